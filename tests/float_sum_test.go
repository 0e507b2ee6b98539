package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

const floatSumDDL = `
CREATE TABLE src (ts TIMESTAMP(3), k BIGINT, v DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in/f.csv', 'format' = 'csv', 'source.split-size' = '8kb');

CREATE TABLE dst (ws TIMESTAMP(3), k BIGINT, c BIGINT, sv DOUBLE, av DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
`

// TestFloatSumIsExact: SUM and AVG of DOUBLE values that binary floating
// point does not hold exactly (0.1, 3.3, and 1e16 beside them, which
// absorbs them in an inexact sum) give the same result, to the last
// digit, at parallelism 1, 2, 4 and 8, run after run. Every group takes
// rows from most of the file's ranges, which the subtasks read at their
// own pace, so the rows reach the window operator in an order that
// changes with the timing; the sums are exact (agg/fsum.go), so the
// order does not matter. A TUMBLE window sums a group's rows in one
// accumulator; a HOP window merges its slices.
func TestFloatSumIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	values := []string{"0.1", "0.2", "0.3", "3.3", "-7.7", "1819.13", "1e16", "-1e16", "0.001", "123456.789", "2.5e-8", "-0.3"}
	var b strings.Builder
	ts := int64(1704067200000)
	for range 12000 {
		ts += rng.Int63n(2000)
		fmt.Fprintf(&b, "%s,%d,%s\n", types.FormatTimestamp(ts), rng.Intn(300), values[rng.Intn(len(values))])
	}
	input := b.String()
	for _, q := range []struct{ name, window string }{
		{"tumble", "TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' HOUR)"},
		{"hop", "HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '10' MINUTE, INTERVAL '30' MINUTE)"},
	} {
		t.Run(q.name, func(t *testing.T) {
			script := floatSumDDL + fmt.Sprintf(`INSERT INTO dst SELECT window_start, k, COUNT(*), SUM(v), AVG(v)
FROM TABLE(%s) GROUP BY window_start, window_end, k;`, q.window)
			t.Chdir(t.TempDir())
			var want string
			for _, p := range []int{1, 2, 4, 8, 2, 4, 8, 2} {
				got, sess := runOnFile(t, filepath.Join("in", "f.csv"), input, script, p, map[string]string{session.KeyBatchSize: fmt.Sprint(37 * p)})
				if late := sess.LastMetrics.LateRows.Load(); late != 0 {
					t.Fatalf("p%d: %d late rows", p, late)
				}
				if want == "" {
					want = got
					if n := strings.Count(got, "\n"); n < 300 {
						t.Fatalf("%d rows written, want a row per key and window", n)
					}
					continue
				}
				if got != want {
					t.Fatalf("p%d: result differs from parallelism 1's:\n%s", p, firstDiff(want, got))
				}
			}
		})
	}
}

// firstDiff returns the first line where the outputs want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("want %s\ngot  %s", w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
