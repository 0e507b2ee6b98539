package exec

import (
	"strings"
	"testing"
	"time"
)

// TestSummaryNamesLastCheckpoint checks that the end-of-job line gives
// the latest checkpoint's duration and sizes.
func TestSummaryNamesLastCheckpoint(t *testing.T) {
	m := &Metrics{}
	m.Checkpoints.Store(2)
	if s := m.Summary(time.Second); !strings.Contains(s, "checkpoints 2 (failed 0), elapsed") {
		t.Errorf("without the latest checkpoint: %s", s)
	}
	m.LastCheckpoint.Store(&CheckpointStats{Completed: 2, LastID: 2, LastDuration: 1500 * time.Millisecond, LastSize: 15 << 20, LastWritten: 1536})
	want := "checkpoints 2 (failed 0), last checkpoint 1.5s, 1.5 KiB written, state 15.0 MiB, elapsed 1s"
	if s := m.Summary(time.Second); !strings.Contains(s, want) {
		t.Errorf("summary %q lacks %q", s, want)
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1 << 30: "1.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
