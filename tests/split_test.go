package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	osexec "os/exec"
	"path/filepath"
	"slices"
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
// decided per range, is exercised. In the second input the file's blocks
// of rows are shuffled, so that a range read later holds rows earlier
// than the watermark of the ranges read before it: its floor holds the
// subtask's watermark back (exec.InOrder), and no row it keeps is late
// downstream.
func TestSplitFileIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	var ordered []string
	ts := int64(1704067200000)
	for i := range 6000 {
		ts += rng.Int63n(30)
		row := ts - rng.Int63n(3000) // up to 3 s behind: some rows late
		ordered = append(ordered, fmt.Sprintf("%s,%d,%d.25,s%d\n", types.FormatTimestamp(row), rng.Intn(7), rng.Intn(100), i%13))
	}
	var blocks [][]string
	for lo := 0; lo < len(ordered); lo += 500 {
		blocks = append(blocks, ordered[lo:min(lo+500, len(ordered))])
	}
	rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	inputs := map[string]string{"ordered": strings.Join(ordered, ""), "shuffled": strings.Join(slices.Concat(blocks...), "")}
	for _, name := range []string{"ordered", "shuffled"} {
		t.Run(name, func(t *testing.T) { splitExact(t, inputs[name]) })
	}
}

func splitExact(t *testing.T, input string) {
	dir := t.TempDir()
	var want string
	var wantLate int64
	for _, p := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			t.Chdir(dir)
			got, sess := runOnFile(t, filepath.Join("in", "big.csv"), input, splitQuery, p, map[string]string{session.KeyBatchSize: fmt.Sprint(61 * p)})
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
	}
}

// TestSplitFileFiresAsItReads: a file in time order, read as many ranges,
// fires its windows as the ranges are read, one after another: its state
// fits in a managed memory that could not hold every window at once, and
// nothing spills. Read a batch of each range in turn, the subtask's
// watermark stayed at the first range's until the end, every window was
// held, and each one spilled. (At a higher parallelism the subtasks read
// at their own pace, and the window holds what lies between the slowest
// and the fastest, as in Flink without watermark alignment: parallelism 1
// makes the test exact.)
func TestSplitFileFiresAsItReads(t *testing.T) {
	var b strings.Builder
	ts := int64(1704067200000)
	for i := range 60000 {
		ts += 10 // 600 s: 120 windows of 5 s, 500 keys each
		fmt.Fprintf(&b, "%s,%d,%d.25,s%d\n", types.FormatTimestamp(ts), i%500, i%100, i%13)
	}
	t.Chdir(t.TempDir())
	writeFile(t, filepath.Join("in", "big.csv"), b.String())
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = 1
	sess.Config[session.KeyMemory] = "4mb"
	if err := sess.ExecScript(context.Background(), splitQuery); err != nil {
		t.Fatal(planner.FormatError("query", splitQuery, err))
	}
	m := sess.LastMetrics
	if spills, late := m.Spills.Load(), m.LateRows.Load(); spills != 0 || late != 0 {
		t.Fatalf("%d windows spilled, %d rows late; want none", spills, late)
	}
	if got := strings.Count(readOutput(t, "out", false), "\n"); got != 120*500 {
		t.Fatalf("%d rows written, want %d", got, 120*500)
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

const splitRefQuery = `
CREATE TABLE src (ts TIMESTAMP(3), k BIGINT, w BIGINT,
  WATERMARK FOR ts AS CASE WHEN w = 0 THEN CAST(NULL AS TIMESTAMP(3)) ELSE ts - INTERVAL '2' SECOND END
) WITH ('connector' = 'filesystem', 'path' = 'in/big.csv', 'format' = 'csv', 'source.split-size' = '4kb');

CREATE TABLE dst (ws TIMESTAMP(3), k BIGINT, c BIGINT, sw BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO dst
SELECT window_start, k, COUNT(*), SUM(w)
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, k;
`

// TestSplitFileMatchesReference checks the ranges of a file against a
// plain Go reference of their semantics (exec/connector's doc): a line
// belongs to the 4 KiB range it starts in, each range decides lateness
// against its own watermark (the greatest watermark of its rows before,
// from the least possible), rows with a NULL time are dropped, rows with
// a NULL watermark do not move it, and the windows count the rest. The
// file's blocks of rows are shuffled, and blocks start with rows with a
// NULL time or watermark, so that the floor a range holds the watermark
// at before it is read (exec.InOrder) is tested where it is lowest: were
// it too high, a row its range keeps would be late at the window and the
// counts would differ.
func TestSplitFileMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	type row struct {
		ts   int64
		null bool // NULL time
		k, w int64
	}
	var blocks [][]row
	ts := int64(1704067200000)
	for range 40 {
		var blk []row
		for i := range 150 {
			ts += rng.Int63n(40)
			r := row{ts: ts - rng.Int63n(2500), k: rng.Int63n(5), w: 1 + rng.Int63n(9)}
			switch {
			case i < 2 && rng.Intn(2) == 0:
				r.null = true
			case i < 4 && rng.Intn(2) == 0:
				r.w = 0 // NULL watermark
			}
			blk = append(blk, r)
		}
		blocks = append(blocks, blk)
	}
	rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	var b strings.Builder
	type agg struct{ c, sw int64 }
	want := map[[2]int64]*agg{}
	const size, window = 4 << 10, 5000
	wm, rangeOf := types.MinWatermark, int64(-1)
	var late, bad int64
	for _, r := range slices.Concat(blocks...) {
		if rg := int64(b.Len()) / size; rg != rangeOf {
			rangeOf, wm = rg, types.MinWatermark
		}
		if r.null {
			fmt.Fprintf(&b, ",%d,%d\n", r.k, r.w)
			bad++
			continue
		}
		fmt.Fprintf(&b, "%s,%d,%d\n", types.FormatTimestamp(r.ts), r.k, r.w)
		start := r.ts - r.ts%window
		if start+window-1 <= wm {
			late++
			continue
		}
		if r.w != 0 {
			wm = max(wm, r.ts-2000)
		}
		a := want[[2]int64{start, r.k}]
		if a == nil {
			a = &agg{}
			want[[2]int64{start, r.k}] = a
		}
		a.c++
		a.sw += r.w
	}
	var lines []string
	for key, a := range want {
		lines = append(lines, fmt.Sprintf("%s,%d,%d,%d", types.FormatTimestamp(key[0]), key[1], a.c, a.sw))
	}
	slices.Sort(lines)
	wantOut := strings.Join(lines, "\n") + "\n"
	if late == 0 || bad == 0 {
		t.Fatalf("%d late and %d bad rows: the input does not test lateness", late, bad)
	}
	dir := t.TempDir()
	for _, p := range []int{1, 3, 8} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			t.Chdir(dir)
			got, sess := runOnFile(t, filepath.Join("in", "big.csv"), b.String(), splitRefQuery, p, map[string]string{session.KeyBatchSize: fmt.Sprint(7 * p)})
			if got != wantOut {
				t.Errorf("result differs from the reference:\n%s", lineDiff(wantOut, got))
			}
			if m := sess.LastMetrics; m.LateRows.Load() != late || m.BadRows.Load() != bad {
				t.Errorf("%d late and %d bad rows, want %d and %d", m.LateRows.Load(), m.BadRows.Load(), late, bad)
			}
		})
	}
}

// TestSplitBadRowFailsWhereRead: a malformed line (without
// csv.ignore-parse-errors) fails the job when the subtask reaches it, as
// in Flink, after the files before it were read: peeking at a file's
// first rows for its floor (exec.InOrder) meets the line first, and
// failed the job before a row was read.
func TestSplitBadRowFailsWhereRead(t *testing.T) {
	t.Chdir(t.TempDir())
	var a strings.Builder
	for i := range 50 {
		fmt.Fprintf(&a, "%s,%d,%d.25,s%d\n", types.FormatTimestamp(1704067200000+int64(i)*100), i%5, i, i%3)
	}
	writeFile(t, filepath.Join("in", "a.csv"), a.String())
	writeFile(t, filepath.Join("in", "b.csv"), "bad,line\n"+a.String())
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = 1
	err := sess.ExecScript(context.Background(), strings.Replace(splitQuery, "in/big.csv", "in", 1))
	if err == nil || !strings.Contains(err.Error(), "b.csv:1:") {
		t.Fatalf("error %v, want one at b.csv:1", err)
	}
	if got := sess.LastMetrics.RowsRead.Load(); got != 50 {
		t.Fatalf("%d rows read before the failure, want a.csv's 50", got)
	}
}
