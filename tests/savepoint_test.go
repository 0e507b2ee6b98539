package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
)

// spSession is a session as strand run makes one, on the state directory
// .strand of the working directory.
func spSession(p int, log io.Writer) *session.Session {
	s := session.New(io.Discard, log)
	s.Parallelism = p
	s.Durable = session.Durability{StateDir: ".strand", Name: "q"}
	s.Config[session.KeyCheckpointInterval] = "100ms"
	return s
}

// stopAt runs query in a session at parallelism p in the working
// directory and stops it with a savepoint into sp after wait, returning
// the savepoint's path. The run must end with the stop, without an error.
func stopAt(t *testing.T, query string, p int, wait time.Duration, drain bool) (path string, kept int64) {
	t.Helper()
	path, kept, _ = stopAtTries(t, query, p, wait, drain)
	return path, kept
}

// stopAtTries is stopAt, also returning how many runs it took.
func stopAtTries(t *testing.T, query string, p int, wait time.Duration, drain bool) (path string, kept int64, tries int) {
	t.Helper()
	before, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	// On a loaded machine the first checkpoint can come so late that the
	// bounded input ends before it or before the stop: then the run is
	// started again from nothing and stopped at once.
	for try := 0; ; try++ {
		path, kept, err := tryStopAt(t, query, p, wait, drain)
		if err == nil {
			return path, kept, try + 1
		}
		if !errors.Is(err, exec.ErrFinishing) || try == 2 {
			t.Fatalf("stop with savepoint: %v", err)
		}
		t.Logf("the input ended before the stop (try %d); again without waiting, at a quarter of the rate", try+1)
		removeNew(t, before)
		wait = 0
		query = slower(query)
	}
}

// removeNew removes every entry of the working directory that is not in
// before: all that a run wrote there (its state, its savepoints, each of
// its sinks' directories, whatever the query names them), so that the
// next run starts from nothing.
func removeNew(t *testing.T, before []os.DirEntry) {
	t.Helper()
	es, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if slices.ContainsFunc(before, func(b os.DirEntry) bool { return b.Name() == e.Name() }) {
			continue
		}
		if err := os.RemoveAll(e.Name()); err != nil {
			t.Fatal(err)
		}
	}
}

var rateRe = regexp.MustCompile(`'rows-per-second' = '(\d+)'`)

// slower divides the rates of query's generators by four: their rows do
// not depend on the rate, so neither does the output.
func slower(query string) string {
	return rateRe.ReplaceAllStringFunc(query, func(m string) string {
		n, _ := strconv.Atoi(rateRe.FindStringSubmatch(m)[1])
		return fmt.Sprintf("'rows-per-second' = '%d'", max(1, n/4))
	})
}

// tryStopAt is stopAt once; it returns the stop's error.
func tryStopAt(t *testing.T, query string, p int, wait time.Duration, drain bool) (path string, kept int64, err error) {
	t.Helper()
	var log syncBuffer
	s := spSession(p, &log)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(ctx, query) }()
	deadline := time.After(time.Minute)
	for !strings.Contains(log.String(), "checkpoint 1 completed") {
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("the job ended before its first checkpoint: %v\n%s", err, log.String())
			}
			return "", 0, fmt.Errorf("the job ended before its first checkpoint: %w\n%s", exec.ErrFinishing, log.String())
		case <-deadline:
			t.Fatalf("no checkpoint:\n%s", log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	time.Sleep(wait)
	jobs := s.Jobs.List()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	path, err = jobs[0].Stop(ctx, "sp", drain)
	if err != nil {
		if rerr := <-errc; rerr != nil {
			t.Fatalf("the run after a failed stop (%v): %v\n%s", err, rerr, log.String())
		}
		// A job whose input ended before the stop refuses it while it
		// finishes (ErrFinishing), and once it has finished is no longer
		// running: either way the stop came too late.
		if st, _, _ := jobs[0].Status(); st == exec.Finished && !errors.Is(err, exec.ErrFinishing) {
			err = fmt.Errorf("%w: %v", exec.ErrFinishing, err)
		}
		return "", 0, fmt.Errorf("%w\n%s", err, log.String())
	}
	if err := <-errc; err != nil {
		t.Fatalf("the stopped run: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "stopped with a savepoint") {
		t.Fatalf("the run does not say it stopped:\n%s", log.String())
	}
	if _, err := checkpoint.LoadSavepoint(path); err != nil {
		t.Fatal(err)
	}
	m := s.LastMetrics
	return path, m.RowsRead.Load() - m.LateRows.Load() - m.BadRows.Load(), nil
}

// resume runs query from the savepoint at path, at parallelism p, to the
// end of its input.
func resume(t *testing.T, query, path string, p int) string {
	t.Helper()
	var log syncBuffer
	s := spSession(p, &log)
	s.Durable.FromSavepoint = path
	if err := s.ExecScript(context.Background(), query); err != nil {
		t.Fatalf("resume from %s: %v\n%s", path, err, log.String())
	}
	if !strings.Contains(log.String(), "resuming from savepoint") {
		t.Fatalf("the resumed run did not restore the savepoint:\n%s", log.String())
	}
	return log.String()
}

// TestStopWithSavepointResumes stops a running query with a savepoint at
// random moments (each case its own seed), resumes it (at the same parallelism, at another, after
// moving the savepoint directory), and checks that the committed output
// equals an uninterrupted run's: nothing lost, nothing twice.
func TestStopWithSavepointResumes(t *testing.T) {
	cases := []struct {
		name       string
		query      string
		from, to   int
		move       bool
		drain      bool
		wantSpills bool
	}{
		{name: "p1", query: crashQuery, from: 1, to: 1},
		{name: "p1 again", query: crashQuery, from: 1, to: 1},
		{name: "p3", query: crashQuery, from: 3, to: 3},
		{name: "p3 again", query: crashQuery, from: 3, to: 3},
		{name: "p3 once more", query: crashQuery, from: 3, to: 3},
		{name: "moved 2 to 3", query: crashQuery, from: 2, to: 3, move: true},
		{name: "3 to 1", query: crashQuery, from: 3, to: 1},
		{name: "top-n", query: topNSavepointQuery, from: 2, to: 3},
		{name: "spilling window", query: spillCrashQuery, from: 2, to: 2, wantSpills: true},
		{name: "drain", query: crashQuery, from: 2, to: 2, drain: true},
		// A savepoint is aligned whatever the mode.
		{name: "at-least-once 3 to 2", query: "SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE';\n" + crashQuery, from: 3, to: 2},
		{name: "top-n 3 to 1", query: topNSavepointQuery, from: 3, to: 1},
		{name: "hop 2 to 3", query: hopCrashQuery, from: 2, to: 3},
		{name: "hop 1 to 1", query: hopCrashQuery, from: 1, to: 1},
		{name: "join 2 to 3", query: joinCrashQuery, from: 2, to: 3},
		{name: "exact sums 2 to 3", query: floatSumSavepointQuery, from: 2, to: 3},
		{name: "exact sums 3 to 1", query: floatSumSavepointQuery, from: 3, to: 1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var query string
			var want []string
			if !c.wantSpills {
				query = fmt.Sprintf(c.query, 9000, 6000)
				want = referenceRun(t, query)
			} else {
				query = fmt.Sprintf(c.query, 30000, 20000, 20000)
				want = referenceRun(t, query)
				query = "SET 'memory.managed.size' = '128kb';\n" + query
			}
			dir := t.TempDir()
			t.Chdir(dir)
			rng := rand.New(rand.NewSource(int64(i)))
			path, read := stopAt(t, query, c.from, time.Duration(rng.Intn(600))*time.Millisecond, c.drain)
			if c.drain {
				// Every row read before the stop is in a window that
				// fired, and the savepoint holds no open window.
				total := 0
				for _, r := range committed(t, "out") {
					var n int
					if _, err := fmt.Sscanf(strings.Split(r, ",")[2], "%d", &n); err != nil {
						t.Fatal(err)
					}
					total += n
				}
				if int64(total) != read {
					t.Errorf("drained output counts %d clicks, the run kept %d rows", total, read)
				}
				md, err := checkpoint.LoadSavepoint(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range md.Operators {
					for _, st := range op.Subtasks {
						if st.Data != nil && st.Data.Size > 12 {
							t.Errorf("drained savepoint holds %d bytes of %s state", st.Data.Size, op.UID)
						}
					}
				}
				return
			}
			if c.move {
				moved := filepath.Join(t.TempDir(), "elsewhere")
				if err := os.Rename(path, moved); err != nil {
					t.Fatal(err)
				}
				path = moved
			}
			log := resume(t, query, path, c.to)
			if c.wantSpills && spills(log) == 0 {
				t.Logf("the resumed run did not spill:\n%s", log)
			}
			diffRows(t, committed(t, "out"), want)
		})
	}
}

// floatSumSavepointQuery sums the crash source's DOUBLE amounts per user
// and window: nearly every sum is not a double, so the savepoint holds
// exact sums in their own encoding, which must restore at another
// parallelism into the same output bits as an uninterrupted run.
const floatSumSavepointQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, total DOUBLE, mean DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, SUM(amount), AVG(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// topNSavepointQuery is a window Top-N over the crash source.
const topNSavepointQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT * FROM (
  SELECT window_start, user_id, cnt, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY cnt DESC, user_id) AS rn
  FROM (SELECT window_start, window_end, user_id, COUNT(*) AS cnt
        FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
        GROUP BY window_start, window_end, user_id)
) WHERE rn <= 3;
`

// TestSavepointRefusedWhenBad checks that a savepoint that is missing,
// truncated, corrupt, of a newer format, or a checkpoint is refused before
// anything runs, naming the file, and that nothing starts afresh.
func TestSavepointRefusedWhenBad(t *testing.T) {
	query := fmt.Sprintf(crashQuery, 9000, 6000)
	dir := t.TempDir()
	t.Chdir(dir)
	good, _ := stopAt(t, query, 2, 100*time.Millisecond, false)
	files, err := os.ReadDir(good)
	if err != nil {
		t.Fatal(err)
	}
	type damage struct {
		name string
		file string
		do   func(path string) error
		want string
	}
	var cases []damage
	for _, f := range files {
		name := f.Name()
		cases = append(cases,
			damage{"truncate " + name, name, func(p string) error { return os.Truncate(p, 10) }, name},
			damage{"flip " + name, name, flipByte, name},
			damage{"delete " + name, name, os.Remove, name},
		)
	}
	cases = append(cases,
		damage{"empty _metadata", "_metadata", func(p string) error { return os.WriteFile(p, nil, 0o644) }, "_metadata"},
		damage{"newer version", "_metadata", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[8] = 99
			return os.WriteFile(p, b, 0o644)
		}, "newer"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "sp")
			if err := os.CopyFS(bad, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			if err := c.do(filepath.Join(bad, c.file)); err != nil {
				t.Fatal(err)
			}
			before := committed(t, "out")
			var log syncBuffer
			s := spSession(2, &log)
			s.Durable.FromSavepoint = bad
			err := s.ExecScript(context.Background(), query)
			if !errors.Is(err, checkpoint.ErrSavepoint) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("restore from a damaged savepoint: %v, want an invalid savepoint naming %s", err, c.want)
			}
			if strings.Contains(log.String(), "started") {
				t.Fatalf("the job started:\n%s", log.String())
			}
			if after := committed(t, "out"); len(after) != len(before) {
				t.Fatalf("the refused run changed the output: %d rows, then %d", len(before), len(after))
			}
		})
	}
}

func flipByte(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	b[len(b)/2] ^= 0x40
	return os.WriteFile(p, b, 0o644)
}

// v1Clicks is the seeded generator of v1Query, which other savepoint
// tests read too.
const v1Clicks = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '40000', 'rows-per-second' = '20000', 'splits' = '2', 'seed' = '11',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '20',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
`

// v1Query is the query of the savepoint in testdata/savepoints/v1/: a
// window aggregate over a seeded generator, printed.
const v1Query = v1Clicks + `SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// TestSavepointV1 restores the savepoint of format version 1 committed
// under testdata/savepoints/v1/ and checks what the resumed run prints:
// the rows of the uninterrupted run that the stopped run had not printed
// (expected.txt). STRAND_WRITE_SAVEPOINT=1 makes the savepoint and
// expected.txt anew.
func TestSavepointV1(t *testing.T) {
	testdata, err := filepath.Abs("testdata/savepoints/v1")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if os.Getenv("STRAND_WRITE_SAVEPOINT") != "" {
		writeV1(t, testdata)
	}
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 3
	s.Durable = session.Durability{StateDir: ".strand", Name: "q", FromSavepoint: filepath.Join(testdata, "savepoint")}
	s.Config[session.KeyCheckpointInterval] = "1s"
	if err := s.ExecScript(context.Background(), v1Query); err != nil {
		t.Fatalf("restoring the v1 savepoint: %v\n%s", err, log.String())
	}
	want, err := os.ReadFile(filepath.Join(testdata, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	diffRows(t, sortedLines(out.String()), sortedLines(string(want)))
}

func sortedLines(s string) []string {
	var rows []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			rows = append(rows, l)
		}
	}
	slices.Sort(rows)
	return rows
}

// writeV1 makes the v1 savepoint: a run stopped with a savepoint part way,
// and the rows of an uninterrupted run that it had not printed.
func writeV1(t *testing.T, testdata string) {
	var full bytes.Buffer
	ref := session.New(&full, io.Discard)
	ref.Parallelism = 2
	if err := ref.ExecScript(context.Background(), v1Query); err != nil {
		t.Fatal(err)
	}
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 2
	s.Durable = session.Durability{StateDir: ".strand", Name: "q"}
	s.Config[session.KeyCheckpointInterval] = "200ms"
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), v1Query) }()
	for !strings.Contains(log.String(), "checkpoint 1 completed") {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	path, err := s.Jobs.List()[0].Stop(context.Background(), "sp", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(testdata); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(testdata, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(testdata, "savepoint"), os.DirFS(path)); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range sortedLines(out.String()) {
		count[r]++
	}
	var rest []string
	for _, r := range sortedLines(full.String()) {
		if count[r] > 0 {
			count[r]--
			continue
		}
		rest = append(rest, r)
	}
	if err := os.WriteFile(filepath.Join(testdata, "expected.txt"), []byte(strings.Join(rest, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(testdata, "query.sql"), []byte(v1Query), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckSavepointFirstQueryOnly: strand run restores a savepoint into
// the first INSERT or SELECT of its files only, so check-savepoint
// matches it to that one and says the later ones start without it,
// instead of reporting their operators' state as unmapped and exiting 1
// for a run that starts.
func TestCheckSavepointFirstQueryOnly(t *testing.T) {
	sp, err := filepath.Abs("testdata/savepoints/v1/savepoint")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), v1Query+`
SELECT window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
`)
	out, errs, code := runStrand(t, dir, "check-savepoint", sp, "q.sql")
	if code != 0 || strings.Contains(out, "cannot map") || strings.Count(out, "starts without the savepoint") != 1 {
		t.Fatalf("check-savepoint of a file whose second query is new: exit %d\n%s%s", code, out, errs)
	}
}

// TestSavepointSupersedesCheckpoints takes a savepoint of a job that goes
// on checkpointing, restores the savepoint in a run that is stopped before
// its first checkpoint, and runs the job again without the savepoint: the
// restore removed the output of the checkpoints after the savepoint, so
// they must not be resumed from either, and the output is exact.
func TestSavepointSupersedesCheckpoints(t *testing.T) {
	query := fmt.Sprintf(crashQuery, 12000, 6000)
	want := referenceRun(t, query)
	t.Chdir(t.TempDir())
	ctx := context.Background()
	running := func(s *session.Session) *session.Job {
		for {
			if js := s.Jobs.List(); len(js) > 0 && js[0].Metrics.RowsRead.Load() > 0 {
				return js[0]
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	var log syncBuffer
	a := spSession(2, &log)
	errc := make(chan error, 1)
	go func() { errc <- a.ExecScript(ctx, query) }()
	for !strings.Contains(log.String(), "checkpoint 1 completed") {
		time.Sleep(5 * time.Millisecond)
	}
	path, err := running(a).Savepoint(ctx, "sp")
	if err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(log.String(), "checkpoint 5 completed") {
		time.Sleep(5 * time.Millisecond)
	}
	if err := running(a).Cancel(); err != nil {
		t.Fatal(err)
	}
	<-errc

	b := spSession(2, io.Discard)
	b.Config[session.KeyCheckpointInterval] = "1h"
	b.Durable.FromSavepoint = path
	go func() { errc <- b.ExecScript(ctx, query) }()
	if err := running(b).Cancel(); err != nil {
		t.Fatal(err)
	}
	<-errc

	var clog syncBuffer
	c := spSession(2, &clog)
	if err := c.ExecScript(ctx, query); err != nil {
		t.Fatalf("%v\n%s", err, clog.String())
	}
	if strings.Contains(clog.String(), "resuming from checkpoint") {
		t.Errorf("the run resumed from a checkpoint the savepoint superseded:\n%s", clog.String())
	}
	diffRows(t, committed(t, "out"), want)
}

// TestSavepointNeedsCheckpointing: a savepoint restored into a job that
// does not checkpoint is refused, not ignored.
func TestSavepointNeedsCheckpointing(t *testing.T) {
	sp, err := filepath.Abs("testdata/savepoints/v1/savepoint")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	s := session.New(io.Discard, io.Discard)
	s.Durable.FromSavepoint = sp
	err = s.ExecScript(context.Background(), v1Query)
	if err == nil || !strings.Contains(err.Error(), "restoring a savepoint needs checkpointing") {
		t.Fatalf("a savepoint into a job without checkpoints: %v", err)
	}
}
