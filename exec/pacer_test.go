package exec

import "testing"

// TestPacer: a subtask waits only when it is more than p-1 splits and a
// half ahead of another that is still reading; at the same speed (each
// k*p+s splits in) none waits, and a subtask done holds no one back.
func TestPacer(t *testing.T) {
	if newPacer(1) != nil {
		t.Fatal("a pacer for one subtask")
	}
	const mb = 1 << 20
	pc := newPacer(2)
	// Both at the start of their first split: subtask 1 is one split on.
	if pc.ahead(1, pc.position(1, 0, 0, 8*mb)) || pc.ahead(0, pc.position(0, 0, 0, 8*mb)) {
		t.Fatal("a subtask waits at the start")
	}
	pc.set(0, pc.position(0, 0, 2*mb, 8*mb)) // a quarter into split 0
	for _, c := range []struct {
		k         int
		read      int64
		wantAhead bool
	}{
		{0, 6 * mb, false}, // split 1 at 3/4: 1.5 splits on
		{0, 7 * mb, true},  // 1.625 splits on
		{1, 0, true},       // split 3
	} {
		if got := pc.ahead(1, pc.position(1, c.k, c.read, 8*mb)); got != c.wantAhead {
			t.Fatalf("subtask 1 at its split %d, %d bytes in: ahead %v, want %v", c.k, c.read, got, c.wantAhead)
		}
	}
	// Subtask 0 never waits for one behind it in the file.
	pc.set(1, pc.position(1, 0, 0, 8*mb))
	if pc.ahead(0, pc.position(0, 1, 0, 8*mb)) {
		t.Fatal("subtask 0 at split 2 waits for subtask 1 at split 1")
	}
	if !pc.ahead(0, pc.position(0, 1, 5*mb, 8*mb)) {
		t.Fatal("subtask 0 at split 2 and 5/8 does not wait for subtask 1 at the start of split 1")
	}
	pc.done(1)
	if pc.ahead(0, pc.position(0, 40, 0, 8*mb)) {
		t.Fatal("a subtask waits for one that is done")
	}
	// Without a size, a split counts as not started.
	if got := pc.position(1, 2, 5, -1); got != 5*paceUnit {
		t.Fatalf("position without a size %d, want %d", got, 5*paceUnit)
	}
}
