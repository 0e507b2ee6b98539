package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
// as ranges, exactly-once, each time right after a checkpoint completed,
// and checks that the committed output equals an uninterrupted run's:
// each range resumes from the offset its checkpoint holds.
func TestSplitFileCrashRecovery(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	var b strings.Builder
	ts := int64(1704067200000)
	for i := range 300000 {
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
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "in", "big.csv"), b.String())
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			// The first run is killed once its first checkpoint completed,
			// while it still reads; the second resumes from it.
			var logs [2]string
			for run := range 2 {
				// The interval is short: the whole run takes about 100 ms.
				cmd := osexec.Command(strandBinary(t), "run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "10ms")
				cmd.Dir = dir
				stderr, err := cmd.StderrPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				sc := bufio.NewScanner(stderr)
				var log strings.Builder
				for sc.Scan() {
					log.WriteString(sc.Text() + "\n")
					if run == 0 && strings.HasPrefix(sc.Text(), "checkpoint 1 completed") {
						_ = cmd.Process.Signal(syscall.SIGKILL)
						break
					}
				}
				io.Copy(io.Discard, stderr)
				err = cmd.Wait()
				logs[run] = log.String()
				if run == 1 && err != nil {
					t.Fatalf("second run: %v\n%s", err, logs[1])
				}
			}
			if !strings.Contains(logs[1], "resuming from checkpoint 1") || strings.Contains(logs[0], "finished:") {
				t.Fatalf("the kill did not land mid-run:\n%s\n%s", logs[0], logs[1])
			}
			diffRows(t, committed(t, filepath.Join(dir, "out")), want)
		})
	}
}
