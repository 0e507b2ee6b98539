package tests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
)

// groupAggStopQuery aggregates a throttled generator per user into a
// print sink, which shows the changelog.
const groupAggStopQuery = `
CREATE TABLE p (user_id BIGINT, n BIGINT, cents BIGINT, lo DOUBLE, hi DOUBLE, amounts BIGINT)
WITH ('connector' = 'print');
INSERT INTO p
SELECT user_id, COUNT(*), SUM(CAST(amount * 100 AS BIGINT)), MIN(amount), MAX(amount),
       COUNT(DISTINCT CAST(amount AS BIGINT)) FILTER (WHERE amount > 2)
FROM clicks GROUP BY user_id;
`

// TestGroupAggStopResume stops a group aggregate with a savepoint while
// it runs, and resumes it at another parallelism: the changes printed by
// both runs, applied, are an uninterrupted run's result, with and without
// mini-batches (which are flushed before the savepoint's barrier).
func TestGroupAggStopResume(t *testing.T) {
	query := fmt.Sprintf(crashClicks, 9000, 6000) + groupAggStopQuery
	minis := "SET 'table.exec.mini-batch.enabled' = 'true';\nSET 'table.exec.mini-batch.allow-latency' = '1 s';\nSET 'table.exec.mini-batch.size' = '700';\n"
	for _, c := range []struct {
		name     string
		set      string
		from, to int
	}{{"p2-to-p3", "", 2, 3}, {"mini-batch-p1-to-p2", minis, 1, 2}} {
		t.Run(c.name, func(t *testing.T) {
			q := c.set + query
			stopResume(t, q, c.from, c.to, func(want string) {
				if strings.Count(want, "\n") != 50 {
					t.Fatalf("the reference has %d groups, want 50:\n%s", strings.Count(want, "\n"), want)
				}
			})
		})
	}
}

// stopResume runs q (printing its changes) uninterrupted at parallelism 2,
// then again at parallelism from, stopped with a savepoint after its
// second checkpoint and resumed from it at parallelism to: the changes of
// both runs, applied, must be the uninterrupted run's result, which check
// looks at first. On a loaded machine the input can end before the stop,
// or the stop come after the last row: then it runs again at a quarter of
// the rate (slower), which changes no row.
func stopResume(t *testing.T, q string, from, to int, check func(want string)) {
	t.Helper()
	t.Chdir(t.TempDir())
	ref := spSession(2, &syncBuffer{})
	var refOut syncBuffer
	ref.Out = &refOut
	ref.Durable = session.Durability{}
	delete(ref.Config, session.KeyCheckpointInterval)
	if err := ref.ExecScript(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	want := applyChangelog(refOut.String())
	check(want)
	for try := 0; ; try++ {
		first, second, err := tryStopResume(t, q, from, to)
		if err == nil {
			if got := applyChangelog(first + second); got != want {
				t.Fatalf("stopped and resumed:\n%s\nuninterrupted:\n%s", got, want)
			}
			return
		}
		if try == 2 {
			t.Fatal(err)
		}
		t.Logf("%v (try %d); again at a quarter of the rate", err, try+1)
		for _, d := range []string{".strand", "sp"} {
			if err := os.RemoveAll(d); err != nil {
				t.Fatal(err)
			}
		}
		q = slower(q)
	}
}

// errNotInMiddle says a stop did not land while the job had rows to go.
var errNotInMiddle = errors.New("the stop was not in the middle")

// tryStopResume is stopResume's stopped run and its resumption, returning
// the changes each printed; an error wrapping exec.ErrFinishing or
// errNotInMiddle when the stop did not land in the middle of the input.
func tryStopResume(t *testing.T, q string, from, to int) (first, second string, err error) {
	t.Helper()
	var log, out syncBuffer
	s := spSession(from, &log)
	s.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(ctx, q) }()
	for !strings.Contains(log.String(), "checkpoint 2 completed") {
		select {
		case err := <-errc:
			t.Fatalf("the job ended before its second checkpoint: %v\n%s", err, log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	path, err := s.Jobs.List()[0].Stop(ctx, "sp", false)
	if err != nil {
		// The job goes on to its end: wait for it, so that nothing runs
		// on in the directory when the test moves on.
		if rerr := <-errc; rerr != nil {
			t.Fatalf("the run after a failed stop (%v): %v\n%s", err, rerr, log.String())
		}
		if errors.Is(err, exec.ErrFinishing) {
			return "", "", fmt.Errorf("stop: %w", err)
		}
		t.Fatalf("stop: %v\n%s", err, log.String())
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	var log2, out2 syncBuffer
	s2 := spSession(to, &log2)
	s2.Out = &out2
	s2.Durable.FromSavepoint = path
	if err := s2.ExecScript(context.Background(), q); err != nil {
		t.Fatalf("resume: %v\n%s", err, log2.String())
	}
	if out.String() == "" || out2.String() == "" {
		return "", "", fmt.Errorf("%w: %d and %d bytes of changes", errNotInMiddle, len(out.String()), len(out2.String()))
	}
	return out.String(), out2.String(), nil
}
