package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHopSavepointRefusedByOtherWindow: a savepoint of a 10 s HOP is not
// restored into a 20 s HOP (nor a CUMULATE of the same sizes) even when a
// UID hint gives both the same uid: the state's fingerprint names the
// window's kind and sizes, and slices of one are not slices of the other.
func TestHopSavepointRefusedByOtherWindow(t *testing.T) {
	q := func(fn, slide, size string) string {
		return fmt.Sprintf(crashClicks, 9000, 6000) + `
CREATE TABLE out_t (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT /*+ UID('hopper') */ window_start, window_end, user_id, COUNT(*), MAX(amount)
FROM TABLE(` + fn + `(TABLE clicks, DESCRIPTOR(ts), INTERVAL '` + slide + `' SECOND, INTERVAL '` + size + `' SECOND))
GROUP BY window_start, window_end, user_id;
`
	}
	t.Chdir(t.TempDir())
	path, _ := stopAt(t, q("HOP", "2", "10"), 2, 100*time.Millisecond, false)
	for _, other := range []string{q("HOP", "2", "20"), q("HOP", "5", "10"), q("CUMULATE", "2", "10")} {
		var log syncBuffer
		s := spSession(2, &log)
		s.Durable.FromSavepoint = path
		err := s.ExecScript(context.Background(), other)
		if err == nil || !strings.Contains(err.Error(), "uid=hopper: state schema") {
			t.Errorf("restore into another window: %v, want a refusal of hopper's state schema\n%s", err, log.String())
		}
	}
	// The same window takes it.
	resume(t, q("HOP", "2", "10"), path, 3)
}
