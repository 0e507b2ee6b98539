package checkpoint

import "testing"

func TestAlignerExactlyOnce(t *testing.T) {
	a := NewAligner(3, true)
	if a.Barrier(0, Barrier{ID: 1}) {
		t.Fatal("aligned after one of three channels")
	}
	if !a.Blocked(0) || a.Blocked(1) {
		t.Fatal("channel 0 must be blocked, 1 not")
	}
	if a.Barrier(0, Barrier{ID: 1}) {
		t.Fatal("a repeated barrier must not complete alignment")
	}
	if a.End(2) {
		t.Fatal("aligned with channel 1 still missing")
	}
	if !a.Barrier(1, Barrier{ID: 1}) {
		t.Fatal("not aligned when every live channel delivered the barrier")
	}
	if id := a.Done().ID; id != 1 || a.Blocked(0) || a.Blocked(1) {
		t.Fatalf("Done = %d, blocked %v %v", id, a.Blocked(0), a.Blocked(1))
	}
	if a.Barrier(0, Barrier{ID: 1}) {
		t.Fatal("an old barrier started a new alignment")
	}
}

func TestAlignerEndCompletes(t *testing.T) {
	a := NewAligner(2, true)
	a.Barrier(0, Barrier{ID: 5})
	if !a.End(1) {
		t.Fatal("the last live channel ending must complete alignment")
	}
	if a.Done().ID != 5 {
		t.Fatal("wrong id")
	}
}

func TestAlignerAtLeastOnceNeverBlocks(t *testing.T) {
	a := NewAligner(2, false)
	a.Barrier(0, Barrier{ID: 1})
	if a.Blocked(0) {
		t.Fatal("at-least-once blocked a channel")
	}
	if !a.Barrier(1, Barrier{ID: 1}) {
		t.Fatal("not aligned")
	}
}

func TestAlignerNewerBarrierRestarts(t *testing.T) {
	a := NewAligner(2, true)
	a.Barrier(0, Barrier{ID: 1})
	// Checkpoint 1 was abandoned upstream; 2 arrives on channel 1.
	if a.Barrier(1, Barrier{ID: 2}) || a.Blocked(0) || !a.Blocked(1) {
		t.Fatal("newer barrier must restart alignment")
	}
	if !a.Barrier(0, Barrier{ID: 2}) || a.Done().ID != 2 {
		t.Fatal("alignment of 2 did not complete")
	}
}

func TestAlignerIgnoresOlderBarrier(t *testing.T) {
	a := NewAligner(2, true)
	a.Barrier(0, Barrier{ID: 2}) // checkpoint 1 was abandoned; 2 arrives first on channel 0
	if a.Barrier(1, Barrier{ID: 1}) || a.Blocked(1) {
		t.Fatal("a late barrier of the abandoned checkpoint 1 counted for 2")
	}
	if !a.Barrier(1, Barrier{ID: 2}) || a.Done().ID != 2 {
		t.Fatal("alignment of 2 did not complete")
	}
}
