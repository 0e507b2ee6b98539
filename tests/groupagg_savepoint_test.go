package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
// looks at first.
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
		t.Fatalf("stop: %v\n%s", err, log.String())
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	first := out.String()
	var log2, out2 syncBuffer
	s2 := spSession(to, &log2)
	s2.Out = &out2
	s2.Durable.FromSavepoint = path
	if err := s2.ExecScript(context.Background(), q); err != nil {
		t.Fatalf("resume: %v\n%s", err, log2.String())
	}
	if first == "" || out2.String() == "" {
		t.Fatalf("the stop was not in the middle: %d and %d bytes of changes", len(first), len(out2.String()))
	}
	if got := applyChangelog(first + out2.String()); got != want {
		t.Fatalf("stopped and resumed:\n%s\nuninterrupted:\n%s", got, want)
	}
}
