package tests

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

const splitQuery = `
CREATE TABLE src (ts TIMESTAMP(3), k BIGINT, v DOUBLE, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in/big.csv', 'format' = 'csv', 'source.split-size' = '16kb');

CREATE TABLE dst (ws TIMESTAMP(3), k BIGINT, c BIGINT, sv DOUBLE, mx STRING, d BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO dst
SELECT window_start, k, COUNT(*), SUM(v), MAX(s), COUNT(DISTINCT s)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
`

// TestSplitFileIsExact: one file read as ranges (source.split-size) gives
// the same result and drops the same late rows at parallelism 1, 2, 4 and
// 8 and any batch size, the ranges being fixed by the file, not the job.
// The input's disorder exceeds the watermark delay, so that lateness,
// decided per range, is exercised.
func TestSplitFileIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	var b strings.Builder
	ts := int64(1704067200000)
	for i := range 6000 {
		ts += rng.Int63n(30)
		row := ts - rng.Int63n(3000) // up to 3 s behind: some rows late
		fmt.Fprintf(&b, "%s,%d,%d.25,s%d\n", types.FormatTimestamp(row), rng.Intn(7), rng.Intn(100), i%13)
	}
	dir := t.TempDir()
	var want string
	var wantLate int64
	for _, p := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			t.Chdir(dir)
			writeFile(t, filepath.Join("in", "big.csv"), b.String())
			sess := session.New(io.Discard, io.Discard)
			sess.Parallelism = p
			sess.Config[session.KeyBatchSize] = fmt.Sprint(61 * p)
			if err := sess.ExecScript(context.Background(), splitQuery); err != nil {
				t.Fatal(planner.FormatError("query", splitQuery, err))
			}
			got := readOutput(t, "out", false)
			late := sess.LastMetrics.LateRows.Load()
			if p == 1 {
				want, wantLate = got, late
				if late == 0 || late > 3000 || got == "" {
					t.Fatalf("%d late rows, %d bytes of output: the input does not test lateness", late, len(got))
				}
				return
			}
			if late != wantLate {
				t.Errorf("%d late rows, at parallelism 1 %d", late, wantLate)
			}
			if got != want {
				t.Errorf("result differs from parallelism 1's")
			}
		})
		if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSplitFileCrashRecovery kills the real binary while it reads one file
// as ranges, exactly-once, and checks that the committed output equals an
// uninterrupted run's: each range resumes from the offset its checkpoint
// holds.
func TestSplitFileCrashRecovery(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	var b strings.Builder
	ts := int64(1704067200000)
	for i := range 150000 {
		ts += rng.Int63n(3)
		fmt.Fprintf(&b, "%s,%d,%d.5,s%d\n", types.FormatTimestamp(ts-rng.Int63n(1000)), rng.Intn(50), rng.Intn(100), i%17)
	}
	query := strings.Replace(strings.Replace(splitQuery, "'16kb'", "'256kb'", 1), "COUNT(DISTINCT s)", "COUNT(DISTINCT v)", 1)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "in", "big.csv"), b.String())
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := committed(t, filepath.Join(ref, "out"))
	total := 0
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "in", "big.csv"), b.String())
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			landed := crashRun(t, dir, p, 4, rand.New(rand.NewSource(int64(p))))
			t.Logf("parallelism %d: %d kills", p, landed)
			total += landed
			diffRows(t, committed(t, filepath.Join(dir, "out")), want)
		})
	}
	if total == 0 {
		t.Errorf("no kill landed: the runs are too short to test recovery")
	}
}
