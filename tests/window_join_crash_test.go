package tests

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// windowJoinCrashQuery is a LEFT window join of two throttled generators
// of %[1]d rows at %[2]d rows per second on 50 keys, per 1-second window
// of their times (windows fire all through a run), into an exactly-once
// filesystem sink; %[3]s is the window's size.
const windowJoinCrashQuery = crashClicks + `
CREATE TABLE views (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '2', 'seed' = '11',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '50',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, la DOUBLE, ra DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT /*+ UID('wj') */ L.window_start, L.user_id, L.amount, R.amount
FROM (SELECT * FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '%[3]s' SECOND))) L
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE views, DESCRIPTOR(ts), INTERVAL '%[3]s' SECOND))) R
ON L.user_id = R.user_id AND L.window_start = R.window_start AND L.window_end = R.window_end AND L.amount < R.amount;
`

// windowJoinQuery fills windowJoinCrashQuery's rows, rate (both tables',
// crashClicks's by position too) and window size.
func windowJoinQuery(rows, rate int, size string) string {
	return fmt.Sprintf(windowJoinCrashQuery, rows, rate, size)
}

// TestWindowJoinCrashRecovery kills runs of a window join at random
// moments, one of them with so little managed memory that its windows
// spill, and resumes at another parallelism: the committed output equals
// an uninterrupted run's, no row missing, none twice.
func TestWindowJoinCrashRecovery(t *testing.T) {
	t.Parallel()
	query := windowJoinQuery(8000, 5000, "1")
	want := referenceRun(t, query)
	if len(want) < 1000 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, c := range []struct {
		p, final int
		extra    []string
	}{{2, 3, nil}, {3, 1, []string{"--set", "memory.managed.size=64kb"}}} {
		t.Run(fmt.Sprintf("p%d-to-p%d", c.p, c.final), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			landed, _ := crashRunAt(t, dir, c.p, c.final, 3, rand.New(rand.NewSource(int64(10*c.p+c.final))), c.extra...)
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("parallelism %d then %d: %d kills, %d rows", c.p, c.final, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// TestWindowJoinSavepoint stops a window join with a savepoint and
// resumes it at another parallelism: the output equals an uninterrupted
// run's. A window join of another window size does not take the
// savepoint, though a UID hint gives both the same uid: the state's
// fingerprint names the window.
func TestWindowJoinSavepoint(t *testing.T) {
	query := windowJoinQuery(9000, 6000, "1")
	want := referenceRun(t, query)
	t.Chdir(t.TempDir())
	path, _ := stopAt(t, query, 2, 300*time.Millisecond, false)
	var log syncBuffer
	s := spSession(2, &log)
	s.Durable.FromSavepoint = path
	if err := s.ExecScript(context.Background(), windowJoinQuery(9000, 6000, "2")); err == nil || !strings.Contains(err.Error(), "uid=wj: state schema") {
		t.Errorf("restore into a window join of 2-second windows: %v, want a refusal of wj's state schema\n%s", err, log.String())
	}
	resume(t, query, path, 3)
	diffRows(t, committed(t, "out"), want)
}
