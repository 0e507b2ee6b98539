package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sessionCrashQuery is crashQuery over session windows of 0.3 s per user:
// a user clicks every 250 ms on average, so sessions both grow, merge and
// end, and every checkpoint holds open sessions, some of them merged.
const sessionCrashQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, window_end, user_id, COUNT(*), MAX(amount)
FROM TABLE(SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '0.3' SECOND))
GROUP BY window_start, window_end, user_id;
`

// TestSessionCrashRecoveryExactlyOnce kills the real binary running a
// SESSION aggregate at random moments and checks that the committed output
// equals an uninterrupted run's; in the second case the last run has
// another parallelism, so each key's sessions are restored into another
// subtask.
func TestSessionCrashRecoveryExactlyOnce(t *testing.T) {
	kills := 4
	rows, rate := 12000, 8000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 30, 200000, 10000
	}
	query := fmt.Sprintf(sessionCrashQuery, rows, rate)
	want := referenceRun(t, query)
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, c := range []struct{ p, final int }{{1, 1}, {2, 3}} {
		t.Run(fmt.Sprintf("p%d-then-p%d", c.p, c.final), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(int64(10*c.p + c.final)))
			landed, _ := crashRunAt(t, dir, c.p, c.final, kills, rng)
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("%d kills, %d rows", landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// TestSessionSavepointResumes: a stop with savepoint of a SESSION
// aggregate resumes at another parallelism with exactly an uninterrupted
// run's output.
func TestSessionSavepointResumes(t *testing.T) {
	query := fmt.Sprintf(sessionCrashQuery, 9000, 6000)
	want := referenceRun(t, query)
	for i, c := range []struct{ from, to int }{{2, 3}, {3, 1}} {
		t.Run(fmt.Sprintf("%d-to-%d", c.from, c.to), func(t *testing.T) {
			t.Chdir(t.TempDir())
			rng := rand.New(rand.NewSource(int64(i)))
			path, _ := stopAt(t, query, c.from, time.Duration(200+rng.Intn(400))*time.Millisecond, false)
			resume(t, query, path, c.to)
			diffRows(t, committed(t, "out"), want)
		})
	}
}

// TestSessionSavepointRefusedByOtherWindow: a savepoint of a 10 s session
// is not restored into a 20 s one, nor into a TUMBLE of 10 s, even when a
// UID hint gives them the same uid.
func TestSessionSavepointRefusedByOtherWindow(t *testing.T) {
	q := func(window string) string {
		return fmt.Sprintf(crashClicks, 9000, 6000) + `
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT /*+ UID('sessions') */ window_start, window_end, user_id, COUNT(*), MAX(amount)
FROM TABLE(` + window + `)
GROUP BY window_start, window_end, user_id;
`
	}
	session := func(gap string) string {
		return q("SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '" + gap + "' SECOND)")
	}
	t.Chdir(t.TempDir())
	path, _ := stopAt(t, session("10"), 2, 100*time.Millisecond, false)
	for _, other := range []string{session("20"), q("TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)")} {
		var log syncBuffer
		s := spSession(2, &log)
		s.Durable.FromSavepoint = path
		err := s.ExecScript(context.Background(), other)
		if err == nil || !strings.Contains(err.Error(), "uid=sessions: state schema") {
			t.Errorf("restore into another window: %v, want a refusal of the sessions' state schema\n%s", err, log.String())
		}
	}
	resume(t, session("10"), path, 3)
}
