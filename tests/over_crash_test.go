package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// overCrashQuery is a bounded ROWS and an unbounded RANGE frame over the
// throttled clicks generator (three splits, out-of-order times, a few
// late rows): the rows waiting for the watermark, a bounded frame's kept
// rows and an unbounded frame's accumulators are all in a checkpoint.
const overCrashQuery = crashClicks + `
CREATE TABLE out_t (f STRING, ts TIMESTAMP(3), user_id BIGINT, x DOUBLE, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT 'rows', ts, user_id, SUM(amount) OVER w, COUNT(*) OVER w
FROM clicks WINDOW w AS (PARTITION BY user_id ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)
UNION ALL
SELECT 'range', ts, user_id, MAX(amount) OVER v, COUNT(*) OVER v
FROM clicks WINDOW v AS (PARTITION BY user_id ORDER BY ts);
`

// TestOverCrashRecovery kills runs of OVER aggregations at random moments,
// the last one at another parallelism: the committed output equals an
// uninterrupted run's.
func TestOverCrashRecovery(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(overCrashQuery, 9000, 6000)
	want := referenceRun(t, query)
	if len(want) < 5000 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	landed, _ := crashRunAt(t, dir, 2, 3, 3, rand.New(rand.NewSource(23)))
	got := committed(t, filepath.Join(dir, "out"))
	t.Logf("%d kills, %d rows", landed, len(got))
	if landed == 0 {
		t.Errorf("no kill landed: the run is too short to test recovery")
	}
	diffRows(t, got, want)
}

// TestOverStopResume stops an OVER aggregation (a bounded RANGE frame)
// with a savepoint while it runs and resumes it at another parallelism:
// the rows printed by both runs are an uninterrupted run's.
func TestOverStopResume(t *testing.T) {
	query := fmt.Sprintf(crashClicks, 9000, 6000) + `
CREATE TABLE p (ts TIMESTAMP(3), user_id BIGINT, mx DOUBLE, n BIGINT) WITH ('connector' = 'print');
INSERT INTO p SELECT ts, user_id, MAX(amount) OVER w, COUNT(*) OVER w
FROM clicks WINDOW w AS (PARTITION BY user_id ORDER BY ts RANGE BETWEEN INTERVAL '0.2' SECOND PRECEDING AND CURRENT ROW);
`
	stopResume(t, query, 2, 3, func(want string) {
		if n := strings.Count(want, "\n"); n < 5000 {
			t.Fatalf("the reference has %d rows", n)
		}
	})
}
