package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// topnCrashQuery is a window Top-N over a window TVF, whose rows the Top-N
// buffers across checkpoint barriers (they arrive over the window's whole
// second), and one over a window aggregate, whose rows arrive from three
// subtasks at different moments.
const topnCrashQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, amount DOUBLE, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, amount, rownum FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rownum
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
) WHERE rownum <= 3;
`

const topnAggCrashQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id
ORDER BY clicks DESC LIMIT 5;
`

// TestTopNCrashRecovery kills runs of window Top-N queries at random
// moments: the rows a Top-N holds at a checkpoint come back on restore, so
// the committed output equals an uninterrupted run's.
func TestTopNCrashRecovery(t *testing.T) {
	t.Parallel()
	for name, q := range map[string]string{"tvf": topnCrashQuery, "agg": topnAggCrashQuery} {
		query := fmt.Sprintf(q, 12000, 8000)
		want := referenceRun(t, query)
		if len(want) < 50 || !strings.Contains(want[0], ",") {
			t.Fatalf("%s: reference run wrote only %d rows", name, len(want))
		}
		for _, p := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s-p%d", name, p), func(t *testing.T) {
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "q.sql"), query)
				landed := crashRun(t, dir, p, 3, rand.New(rand.NewSource(int64(p))))
				got := committed(t, filepath.Join(dir, "out"))
				t.Logf("%s at parallelism %d: %d kills, %d rows", name, p, landed, len(got))
				if landed == 0 {
					t.Errorf("no kill landed: the run is too short to test recovery")
				}
				diffRows(t, got, want)
			})
		}
	}
}
