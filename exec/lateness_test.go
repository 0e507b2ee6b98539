package exec

import (
	"math/rand/v2"
	"testing"
)

// TestLateness checks that lateness decides as Fires does, row by row,
// with rows out of order and the watermark rising, and calls Fires about
// once per window when rows come in order.
func TestLateness(t *testing.T) {
	calls := 0
	fires := func(ts int64) int64 {
		calls++
		return ts - ts%10 + 9 // 10 ms tumbling windows
	}
	r := rand.New(rand.NewPCG(1, 2))
	l := lateness{fires: fires}
	wm := int64(-1 << 62)
	for i := range 10000 {
		ts := int64(i/4) + int64(r.IntN(30))
		if want := fires(ts) <= wm; l.late(ts, wm) != want {
			t.Fatalf("row %d at %d, watermark %d: late %v", i, ts, wm, want)
		}
		wm = max(wm, ts-15)
	}
	calls = 0
	l = lateness{fires: fires}
	for ts := range int64(10000) {
		if l.late(ts, ts-15) {
			t.Fatalf("in-order row %d late", ts)
		}
	}
	if calls > 2000 {
		t.Errorf("%d calls of Fires for 10000 rows in order over 1000 windows", calls)
	}
}
