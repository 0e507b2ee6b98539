package exec

import "testing"

// TestStateGaugesSum: two stateful operators chained in one subtask each
// record their store's size; the subtask's metric is their sum, and
// follows each one's changes.
func TestStateGaugesSum(t *testing.T) {
	var sub SubtaskMetrics
	a, b := StateGauge{sub: &sub}, StateGauge{sub: &sub}
	a.Disk(100)
	b.Disk(50)
	if got := sub.StateSpilled.Load(); got != 150 {
		t.Fatalf("after 100 and 50: %d", got)
	}
	a.Disk(30)
	b.Disk(70)
	if got := sub.StateSpilled.Load(); got != 100 {
		t.Fatalf("after 30 and 70: %d", got)
	}
}
