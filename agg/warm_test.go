package agg

import "testing"

// TestWarmReadsEveryLine: warm reads the first byte of every cache line
// of the slots when the groups are at least a quarter of them, and
// nothing when they are fewer.
func TestWarmReadsEveryLine(t *testing.T) {
	s := make([]fslot, 100) // 32 bytes each: 50 lines
	want := uint64(0)
	for i := 0; i < len(s); i += 2 {
		s[i].w[0] = uint64(i%7 + 1)
		want += uint64(i%7 + 1)
	}
	s[1].w[0] = 100 // mid-line: not read
	if got := warm(s, 25); got != want {
		t.Fatalf("warm of 100 slots for 25 groups = %d, want %d", got, want)
	}
	if got := warm(s, 24); got != 0 {
		t.Fatalf("warm of 100 slots for 24 groups = %d, want 0 (not read)", got)
	}
	if got := warm([]int64(nil), 5); got != 0 {
		t.Fatalf("warm of no slots = %d", got)
	}
}
