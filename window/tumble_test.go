package window

import "testing"

func TestTumble(t *testing.T) {
	w := Tumble{Size: 10}
	for _, c := range []struct{ ts, start int64 }{{0, 0}, {9, 0}, {10, 10}, {-1, -10}, {-10, -10}, {-11, -20}} {
		if got := w.Start(c.ts); got != c.start {
			t.Errorf("Start(%d) = %d, want %d", c.ts, got, c.start)
		}
	}
	if w.Fires(10) != 19 {
		t.Errorf("Fires(10) = %d", w.Fires(10))
	}
	o := Tumble{Size: 10, Offset: 3}
	if o.Start(2) != -7 || o.Start(3) != 3 || o.Start(12) != 3 || o.Start(13) != 13 {
		t.Errorf("offset windows: %d %d %d %d", o.Start(2), o.Start(3), o.Start(12), o.Start(13))
	}
}
