package tests

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/types"
)

// floatCrashValues are the DOUBLE values of the float sum crash test: row
// n has value floatCrashValues[n%8] and key n%7, so that every group of a
// window holds a mixture of them. 1e16 absorbs the small values in a sum
// of doubles added in order, and -1e16 brings them back or not, so a
// naive sum depends on the order of the rows.
var floatCrashValues = []float64{1e16, 1, -1e16, 0.1, 3.3, -7.7, 2.5e-8, 0.001}

// floatCrashStep is the event time between rows, in ms.
const floatCrashStep = 5

// floatCrashSource returns the float sum crash tests' input: a throttled
// generator of rows rows at rate rows per second, in order of event time
// (5 ms apart) over three splits, and the view vals of its keyed DOUBLE
// values (ts, k, v) of floatCrashValues.
func floatCrashSource(rows, rate int) string {
	var cases strings.Builder
	for i, v := range floatCrashValues {
		fmt.Fprintf(&cases, " WHEN %d THEN CAST('%s' AS DOUBLE)", i, strconv.FormatFloat(v, 'g', -1, 64))
	}
	return fmt.Sprintf(`
CREATE TABLE gen (
  ts TIMESTAMP(3), n BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d', 'splits' = '3',
  'fields.ts.kind' = 'sequence', 'fields.ts.step' = '%d ms', 'fields.n.kind' = 'sequence'
);
CREATE VIEW vals AS SELECT ts, n %% 7 AS k, CASE n %% 8%s END AS v FROM gen;
`, rows, rate, floatCrashStep, cases.String())
}

// floatCrashQuery returns the float sum crash test's query over
// floatCrashSource: SUM and AVG of the values per key and window of the
// window table function fn with the arguments args after the time
// column.
func floatCrashQuery(rows, rate int, fn, args string) string {
	return floatCrashSource(rows, rate) + fmt.Sprintf(`
CREATE TABLE out_t (ws TIMESTAMP(3), k BIGINT, c BIGINT, sv DOUBLE, av DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, k, COUNT(*), SUM(v), AVG(v)
FROM TABLE(%s(TABLE vals, DESCRIPTOR(ts), %s))
GROUP BY window_start, window_end, k;
`, fn, args)
}

// exactFloatSums computes the float sum crash query's result in plain Go:
// for each window of size ms sliding by slide ms (a tumbling window when
// they are equal) and key, the count, the exact sum of its values rounded
// once to the nearest double (big.Float with room for any sum of doubles),
// and that sum over the count. It also returns how many groups' sums,
// added as doubles in row order, differ from the exact ones: a test whose
// data does not make them differ would not test the order.
func exactFloatSums(rows int, size, slide int64) (out []string, naiveDiffers int) {
	type group struct {
		ws    int64
		k     int
		n     int64
		exact *big.Float
		naive float64
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	groups := map[[2]int64]*group{}
	for n := range rows {
		ts := base + int64(n)*floatCrashStep
		k, v := n%7, floatCrashValues[n%8]
		for ws := ts - ts%slide; ws > ts-size; ws -= slide {
			g := groups[[2]int64{ws, int64(k)}]
			if g == nil {
				g = &group{ws: ws, k: k, exact: new(big.Float).SetPrec(4096)}
				groups[[2]int64{ws, int64(k)}] = g
			}
			g.n++
			g.exact.Add(g.exact, big.NewFloat(v))
			g.naive += v
		}
	}
	for _, g := range groups {
		sum, _ := g.exact.Float64()
		if sum != g.naive {
			naiveDiffers++
		}
		out = append(out, fmt.Sprintf("%s,%d,%d,%s,%s", types.FormatTimestamp(g.ws), g.k, g.n,
			types.FormatFloat(sum, 64), types.FormatFloat(sum/float64(g.n), 64)))
	}
	sort.Strings(out)
	return out, naiveDiffers
}

// TestCrashFloatSumExact kills the real binary at random moments while it
// sums DOUBLE values whose naive sum depends on their order (1e16, 1,
// -1e16, 0.1, ...), per key in tumbling and hopping windows, at
// parallelism 1 and 4. The exact accumulators are checkpointed and
// restored (a hopping window's slices merged after a restore too), and
// the committed output must be, bit for bit, an uninterrupted run's and
// the exact sums computed in plain Go, each rounded once.
func TestCrashFloatSumExact(t *testing.T) {
	t.Parallel()
	kills, rows, rate := 4, 12000, 4000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 30, 200000, 10000
	}
	for _, w := range []struct {
		fn, args    string
		size, slide int64
	}{
		{"TUMBLE", "INTERVAL '1' SECOND", 1000, 1000},
		{"HOP", "INTERVAL '0.5' SECOND, INTERVAL '2' SECOND", 2000, 500},
	} {
		query := floatCrashQuery(rows, rate, w.fn, w.args)
		exact, differs := exactFloatSums(rows, w.size, w.slide)
		if differs == 0 {
			t.Fatalf("%s: no group's naive sum differs from its exact one: the data does not test the order", w.fn)
		}
		for _, p := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s-p%d", strings.ToLower(w.fn), p), func(t *testing.T) {
				want := referenceRun(t, query)
				diffRows(t, want, exact)
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "q.sql"), query)
				rng := rand.New(rand.NewSource(int64(p)))
				landed := crashRun(t, dir, p, kills, rng)
				got := committed(t, filepath.Join(dir, "out"))
				t.Logf("%d kills, %d rows, %d of %d groups whose naive sum is not exact", landed, len(got), differs, len(exact))
				if landed == 0 {
					t.Errorf("no kill landed: the run is too short to test recovery")
				}
				diffRows(t, got, want)
			})
		}
	}
}

// floatGroupCrashQuery is floatCrashSource's SUM and AVG per key without a
// window: a group aggregate, whose changelog goes to a debezium-json file
// sink.
func floatGroupCrashQuery(rows, rate int) string {
	return floatCrashSource(rows, rate) + `
CREATE TABLE out_t (k BIGINT, c BIGINT, sv DOUBLE, av DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');
INSERT INTO out_t SELECT k, COUNT(*), SUM(v), AVG(v) FROM vals GROUP BY k;
`
}

// appliedGroups applies the debezium-json changelog of a float group
// crash run's committed files (rows) and returns the rows left, as lines
// k,c,sv,av. A row taken back that was never added fails the test.
func appliedGroups(t *testing.T, rows []string) []string {
	t.Helper()
	count := map[string]int{}
	for _, l := range rows {
		var m struct{ Before, After json.RawMessage }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("changelog line %q: %v", l, err)
		}
		if b := string(m.Before); b != "" && b != "null" {
			count[b]--
		}
		if a := string(m.After); a != "" && a != "null" {
			count[a]++
		}
	}
	var out []string
	for row, n := range count {
		if n < 0 || n > 1 {
			t.Fatalf("row %s is in the applied changelog %d times", row, n)
		}
		if n == 0 {
			continue
		}
		var g struct {
			K, C   int64
			SV, AV float64
		}
		if err := json.Unmarshal([]byte(row), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d,%d,%s,%s", g.K, g.C, types.FormatFloat(g.SV, 64), types.FormatFloat(g.AV, 64)))
	}
	sort.Strings(out)
	return out
}

// exactGroupSums is exactFloatSums for floatGroupCrashQuery: per key, over
// all rows.
func exactGroupSums(rows int) (out []string, naiveDiffers int) {
	exact := make([]*big.Float, 7)
	counts := make([]int64, 7)
	naive := make([]float64, 7)
	for k := range exact {
		exact[k] = new(big.Float).SetPrec(4096)
	}
	for n := range rows {
		exact[n%7].Add(exact[n%7], big.NewFloat(floatCrashValues[n%8]))
		naive[n%7] += floatCrashValues[n%8]
		counts[n%7]++
	}
	for k, e := range exact {
		sum, _ := e.Float64()
		if sum != naive[k] {
			naiveDiffers++
		}
		out = append(out, fmt.Sprintf("%d,%d,%s,%s", k, counts[k], types.FormatFloat(sum, 64), types.FormatFloat(sum/float64(counts[k]), 64)))
	}
	return out, naiveDiffers
}

// TestCrashFloatGroupSumExact is TestCrashFloatSumExact for a group
// aggregate: its exact sums are checkpointed per key and restored while
// the binary is killed at random moments, at parallelism 1 and 4, and
// the committed changelog, applied, must hold each key's exact sum and
// average, as an uninterrupted run's does.
func TestCrashFloatGroupSumExact(t *testing.T) {
	t.Parallel()
	kills, rows, rate := 4, 12000, 4000
	query := floatGroupCrashQuery(rows, rate)
	exact, differs := exactGroupSums(rows)
	if differs == 0 {
		t.Fatalf("no key's naive sum differs from its exact one: the data does not test the order")
	}
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			want := appliedGroups(t, referenceRun(t, query))
			diffRows(t, want, exact)
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(int64(p)))
			landed := crashRun(t, dir, p, kills, rng)
			log := committed(t, filepath.Join(dir, "out"))
			got := appliedGroups(t, log)
			t.Logf("%d kills, %d changes committed, %d of 7 keys whose naive sum is not exact", landed, len(log), differs)
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}
