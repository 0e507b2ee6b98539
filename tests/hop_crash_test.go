package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// hopCrashQuery is crashQuery over hopping windows of 2 s sliding by 500
// ms: each row is in four windows, and a slice outlives the windows that
// have fired, so a restore must not fire them again.
const hopCrashQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, window_end, user_id, COUNT(*), MAX(amount)
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '0.5' SECOND, INTERVAL '2' SECOND))
GROUP BY window_start, window_end, user_id;
`

// TestHopCrashRecoveryExactlyOnce kills the real binary running a HOP
// aggregate at random moments and checks that the committed output equals
// an uninterrupted run's; in the second case the last run has another
// parallelism, so the slices and the windows' progress are restored into
// other key-group ranges.
func TestHopCrashRecoveryExactlyOnce(t *testing.T) {
	t.Parallel()
	kills := 4
	rows, rate := 12000, 8000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 30, 200000, 10000
	}
	query := fmt.Sprintf(hopCrashQuery, rows, rate)
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
