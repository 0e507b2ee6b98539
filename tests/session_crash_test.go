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

// sessionSpillQuery is a SESSION aggregate whose open sessions are many
// times a small memory.managed.size: 1,000 users, a row every 5 ms of
// event time (so a user's every 5 s on average) and a gap of 6 s, so that
// nearly every user has a session open, sessions grow and merge over many
// checkpoints (rows up to a second out of order bridge two of them), and
// each holds a COUNT(DISTINCT) of values that repeat.
const sessionSpillQuery = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d', 'splits' = '3', 'seed' = '11',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '1000',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE, amounts BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, window_end, user_id, COUNT(*), MAX(amount), COUNT(DISTINCT CAST(amount AS INT))
FROM TABLE(SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '6' SECOND))
GROUP BY window_start, window_end, user_id;
`

// sessionTopNQuery ranks the clicks of each user's session of 0.3 s (the
// SESSION TVF kept row by row until its session fires) and keeps the two
// largest: a window Top-N over session windows.
const sessionTopNQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, amount DOUBLE, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, window_end, user_id, amount, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, user_id ORDER BY amount DESC) AS rn
  FROM TABLE(SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '0.3' SECOND))
) WHERE rn <= 2;
`

// TestSessionCrashRecoveryExactlyOnce kills the real binary running a
// SESSION aggregate at random moments and checks that the committed output
// equals an uninterrupted run's; in the second case the last run has
// another parallelism, so each key's sessions are restored into another
// subtask; in the third the sessions spill (memory.managed.size 64kb),
// so that checkpoints hold spilled sessions and their timers, restores
// spill again, and sessions that merge do so across checkpoints and
// spills.
func TestSessionCrashRecoveryExactlyOnce(t *testing.T) {
	kills := 4
	rows, rate := 12000, 8000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 30, 200000, 10000
	}
	for _, c := range []struct {
		name     string
		query    string
		p, final int
		mem      string
	}{{"p1-then-p1", sessionCrashQuery, 1, 1, ""}, {"p2-then-p3", sessionCrashQuery, 2, 3, ""}, {"spilling-p2-then-p3", sessionSpillQuery, 2, 3, "64kb"}} {
		t.Run(c.name, func(t *testing.T) {
			query := fmt.Sprintf(c.query, rows, rate)
			want := referenceRun(t, query)
			if len(want) < 100 {
				t.Fatalf("reference run wrote only %d rows", len(want))
			}
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(int64(10*c.p + c.final)))
			var extra []string
			if c.mem != "" {
				extra = []string{"--set", "memory.managed.size=" + c.mem}
			}
			landed, stderr := crashRunAt(t, dir, c.p, c.final, kills, rng, extra...)
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("%d kills, %d rows, the last run spilled %d times", landed, len(got), spills(stderr))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			if c.mem != "" && spills(stderr) == 0 {
				t.Errorf("the last run spilled nothing: the case tests no spilling\n%s", stderr)
			}
			diffRows(t, got, want)
		})
	}
}

// TestSessionSavepointResumes: a stop with savepoint of a SESSION
// aggregate (also one that spills, whose savepoint holds spilled sessions)
// and of a window Top-N over a SESSION TVF resumes at another parallelism
// with exactly an uninterrupted run's output.
func TestSessionSavepointResumes(t *testing.T) {
	for i, c := range []struct {
		name     string
		query    string
		from, to int
		mem      string
	}{{"2-to-3", sessionCrashQuery, 2, 3, ""}, {"3-to-1", sessionCrashQuery, 3, 1, ""}, {"spilling-2-to-3", sessionSpillQuery, 2, 3, "64kb"}, {"topn-2-to-3", sessionTopNQuery, 2, 3, ""}} {
		t.Run(c.name, func(t *testing.T) {
			const rows = 9000
			query := fmt.Sprintf(c.query, rows, 6000)
			want := referenceRun(t, query)
			if c.mem != "" {
				query = "SET 'memory.managed.size' = '" + c.mem + "';\n" + query
			}
			t.Chdir(t.TempDir())
			rng := rand.New(rand.NewSource(int64(i)))
			path, kept := stopAt(t, query, c.from, time.Duration(200+rng.Intn(400))*time.Millisecond, false)
			// On a loaded machine the stop can come after the source has
			// read all its rows: the resumed run then reads none and has
			// nothing to spill, which is not what the spilling case tests.
			for try := 1; c.mem != "" && kept >= rows && try < 3; try++ {
				t.Logf("the stopped run had read all %d rows (try %d); again, stopping at once", rows, try)
				removeNew(t, nil)
				path, kept = stopAt(t, query, c.from, 0, false)
			}
			log := resume(t, query, path, c.to)
			if c.mem != "" && spills(log) == 0 {
				t.Errorf("the resumed run did not spill:\n%s", log)
			}
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
