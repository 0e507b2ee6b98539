package memseg

import "testing"

// TestTrim: the chunk left after trimming starts on a huge-page boundary
// and the parts unmapped before and after it are exactly the rest of the
// mapping, wherever the kernel put it (a kernel since 6.7 aligns large
// anonymous mappings itself, so TestChunkAlignedAndAdvised alone cannot
// catch a wrong trim).
func TestTrim(t *testing.T) {
	const n = 2 * hugePage
	for _, p := range []uintptr{0x7f0000000000, 0x7f0000001000, 0x7f00001ff000, 0x7f0000100000} {
		skip, tail := trim(p, n)
		if (p+skip)%hugePage != 0 {
			t.Errorf("mapping at %#x: chunk at %#x is not aligned", p, p+skip)
		}
		if skip+n+tail != n+hugePage {
			t.Errorf("mapping at %#x: skip %d + chunk %d + tail %d is not the mapping's %d bytes", p, skip, n, tail, n+hugePage)
		}
		if skip%4096 != 0 || tail%4096 != 0 {
			t.Errorf("mapping at %#x: skip %d or tail %d is not whole pages", p, skip, tail)
		}
	}
}
