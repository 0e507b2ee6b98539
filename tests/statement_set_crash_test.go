package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setQuery is a statement set of three INSERTs over the crash tests'
// generator: two windows that fire alike (one shared source) and a
// filter without a window (a source of its own), into three exactly-once
// filesystem sinks. %s is the HAVING of the first INSERT.
const setQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
CREATE TABLE out_max (ws TIMESTAMP(3), mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out_max', 'format' = 'csv');
CREATE TABLE out_big (ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out_big', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id%s;
INSERT INTO out_max
SELECT window_start, MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
INSERT INTO out_big SELECT ts, user_id, amount FROM clicks WHERE amount > 9.5;
END;
`

var setSinks = []string{"out", "out_max", "out_big"}

// setReference runs query once without checkpoints or kills and returns
// each sink's committed rows.
func setReference(t *testing.T, query string) map[string][]string {
	t.Helper()
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := map[string][]string{}
	for _, s := range setSinks {
		want[s] = committed(t, filepath.Join(ref, s))
		if len(want[s]) < 10 {
			t.Fatalf("reference run wrote only %d rows to %s", len(want[s]), s)
		}
	}
	return want
}

// TestStatementSetCrash kills the real binary running a statement set at
// random moments and checks that each of its sinks holds exactly an
// uninterrupted run's rows: one checkpoint covers the whole set.
func TestStatementSetCrash(t *testing.T) {
	query := fmt.Sprintf(setQuery, 12000, 8000, "")
	want := setReference(t, query)
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			landed := crashRun(t, dir, p, 3, rand.New(rand.NewSource(int64(10+p))))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			for _, s := range setSinks {
				got := committed(t, filepath.Join(dir, s))
				t.Logf("parallelism %d: %d kills, %d rows in %s", p, landed, len(got), s)
				diffRows(t, got, want[s])
			}
		})
	}
}

// TestStatementSetSavepoint stops a statement set with a savepoint and
// resumes it with its first INSERT changed (a HAVING that keeps every
// row, so the same output): the uids of each INSERT's operators and sink
// do not depend on the others, so the savepoint restores, and every sink
// is exact.
func TestStatementSetSavepoint(t *testing.T) {
	query := fmt.Sprintf(setQuery, 9000, 6000, "")
	want := setReference(t, query)
	t.Chdir(t.TempDir())
	path, _ := stopAt(t, query, 2, 200*time.Millisecond, false)
	changed := fmt.Sprintf(setQuery, 9000, 6000, "\nHAVING COUNT(*) > 0")
	log := resume(t, changed, path, 3)
	if strings.Contains(log, "starts empty") {
		t.Errorf("state did not map:\n%s", log)
	}
	for _, s := range setSinks {
		diffRows(t, committed(t, s), want[s])
	}
}

// TestStatementSetSavepointRetried stops a statement set only after its
// input has ended, so that stopAt runs it again from nothing: the run
// again must not find the first run's output in any of the sinks, and
// the resumed output is exact in each.
func TestStatementSetSavepointRetried(t *testing.T) {
	// A second of input, stopped at the earliest four seconds in.
	query := fmt.Sprintf(setQuery, 3000, 3000, "")
	want := setReference(t, query)
	t.Chdir(t.TempDir())
	path, _, tries := stopAtTries(t, query, 2, 4*time.Second, false)
	if tries == 1 {
		t.Fatalf("the stop came before the end of the input: the test tests nothing")
	}
	resume(t, query, path, 3)
	for _, s := range setSinks {
		diffRows(t, committed(t, s), want[s])
	}
}
