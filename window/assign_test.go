package window

import "testing"

func TestTumble(t *testing.T) {
	w := TumbleOf(10, 0)
	for _, c := range []struct{ ts, start int64 }{{0, 0}, {9, 0}, {10, 10}, {-1, -10}, {-10, -10}, {-11, -20}} {
		if got := w.Start(c.ts); got != c.start {
			t.Errorf("Start(%d) = %d, want %d", c.ts, got, c.start)
		}
	}
	if w.Fires(10) != 19 {
		t.Errorf("Fires(10) = %d", w.Fires(10))
	}
	o := TumbleOf(10, 3)
	if o.Start(2) != -7 || o.Start(3) != 3 || o.Start(12) != 3 || o.Start(13) != 13 {
		t.Errorf("offset windows: %d %d %d %d", o.Start(2), o.Start(3), o.Start(12), o.Start(13))
	}
}

// The windows of a slice, by brute force: every window [start, end) of
// the kind that contains the slice.
func TestSliceWindows(t *testing.T) {
	for _, w := range []Assigner{
		{Kind: Hop, Size: 10, Slide: 2}, {Kind: Hop, Size: 10, Slide: 5, Offset: 3}, {Kind: Hop, Size: 4, Slide: 4},
		{Kind: Cumulate, Size: 10, Slide: 2}, {Kind: Cumulate, Size: 9, Slide: 3, Offset: -4}, TumbleOf(7, 2),
	} {
		for s := int64(-30); s < 30; s++ {
			if w.Start(s) != s {
				continue
			}
			var ends []int64
			for e := s - 40; e < s+40; e++ {
				if (e-w.Offset)%w.step() != 0 || w.windowStart(e) > s || e < s+w.SliceSize() {
					continue
				}
				if w.Kind == Hop && e-w.Size > s {
					continue
				}
				ends = append(ends, e)
			}
			if len(ends) == 0 || ends[0] != w.firstEnd(s) || ends[len(ends)-1] != w.lastEnd(s) {
				t.Errorf("%+v slice %d: windows end at %v; firstEnd %d, lastEnd %d", w, s, ends, w.firstEnd(s), w.lastEnd(s))
			}
			if w.Fires(s) != ends[0]-1 || w.Fires(s+w.SliceSize()-1) != ends[0]-1 {
				t.Errorf("%+v slice %d: Fires %d, first window ends at %d", w, s, w.Fires(s), ends[0])
			}
		}
	}
}
