package agg

import (
	"testing"

	"github.com/strandsql/strand/memseg"
)

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

// TestTouchReadsEachSlot: touch reads the first byte of each group's slot,
// repeats counted, and nothing else.
func TestTouchReadsEachSlot(t *testing.T) {
	s := make([]fslot, 10)
	for i := range s {
		s[i].w[0] = uint64(i + 1)
		s[i].w[1] = 1000 // not the slot's first byte: not read
	}
	if got := touch(s, []int32{2, 7, 2}); got != 3+8+3 {
		t.Fatalf("touch of groups 2, 7, 2 = %d, want 14", got)
	}
	if got := touch(s, nil); got != 0 {
		t.Fatalf("touch of no groups = %d", got)
	}
}

// TestWindowAccsTouch: every accumulator kind a window keeps in managed
// memory can be touched (Toucher), and touching leaves its state as it was.
func TestWindowAccsTouch(t *testing.T) {
	m, err := memseg.NewManager(16<<20, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range inCalls(t) {
		ac, err := NewIn(k.c, k.in, m)
		if err != nil {
			t.Fatal(err)
		}
		ac.Grow(8)
		gs := []int32{0, 1, 2, 3, 4, 5, 6, 7}
		ac.Update(k.col, []int32{0, 1, 2, 3, 4, 5, 6, 7}, []int32{3, 3, 1, 7, 0, 3, 5, 1})
		tc, ok := ac.(Toucher)
		if !ok {
			t.Errorf("%s(%s): %T is not a Toucher", k.c.Name, k.in, ac)
			continue
		}
		before := results(t, ac, k.c.Out, gs)
		tc.Touch([]int32{7, 0, 3})
		if after := results(t, ac, k.c.Out, gs); after != before {
			t.Errorf("%s(%s): touched, results %s, were %s", k.c.Name, k.in, after, before)
		}
		Release(ac)
	}
}
