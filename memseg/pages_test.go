package memseg

import (
	"runtime"
	"testing"
	"time"
	"unsafe"
)

// TestManagerChunks cuts segments from chunks: distinct, whole, writable
// memory across chunk boundaries, reused after Free without a new chunk.
func TestManagerChunks(t *testing.T) {
	const seg = 32 << 10
	m := newManager(t, 8<<20, seg)
	n := 3 * hugePage / seg // three chunks
	segs := make([][]byte, n)
	seen := map[uintptr]bool{}
	for i := range segs {
		s, err := m.Alloc()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != seg || cap(s) != seg {
			t.Fatalf("segment %d: len %d cap %d", i, len(s), cap(s))
		}
		p := uintptr(unsafe.Pointer(&s[0]))
		if seen[p] {
			t.Fatalf("segment %d handed out twice", i)
		}
		seen[p] = true
		for j := range s {
			s[j] = byte(i)
		}
		segs[i] = s
	}
	for i, s := range segs {
		for j := range s {
			if s[j] != byte(i) {
				t.Fatalf("segment %d byte %d is %d: segments overlap", i, j, s[j])
			}
		}
	}
	before := len(*m.chunks)
	if runtime.GOOS == "linux" && before != 3 {
		t.Fatalf("%d chunks mapped for three chunks' worth of segments", before)
	}
	for _, s := range segs {
		m.Free(s)
	}
	for range segs {
		if _, err := m.Alloc(); err != nil {
			t.Fatal(err)
		}
	}
	if len(*m.chunks) != before {
		t.Fatalf("reusing freed segments mapped %d more chunks", len(*m.chunks)-before)
	}
}

// TestManagerReleaseReuses gives the free list's memory back for a
// reservation and hands the released segments out again, zeroed by the
// kernel on Linux, without mapping more.
func TestManagerReleaseReuses(t *testing.T) {
	const seg = 32 << 10
	m := newManager(t, 64*seg, seg)
	var segs [][]byte
	for range 64 {
		s, err := m.Alloc()
		if err != nil {
			t.Fatal(err)
		}
		s[0], s[seg-1] = 7, 7
		segs = append(segs, s)
	}
	for _, s := range segs {
		m.Free(s)
	}
	if err := m.Reserve(32 * seg); err != nil {
		t.Fatal(err)
	}
	if len(m.mu.idle) != 32 || len(m.mu.free) != 32 {
		t.Fatalf("free %d, idle %d after reserving half the budget", len(m.mu.free), len(m.mu.idle))
	}
	m.Unreserve(32 * seg)
	before := len(*m.chunks)
	zeroed := 0
	for range 64 {
		s, err := m.Alloc()
		if err != nil {
			t.Fatal(err)
		}
		if s[0] == 0 && s[seg-1] == 0 {
			zeroed++
		}
	}
	if runtime.GOOS == "linux" && zeroed != 32 {
		t.Fatalf("%d segments came back zeroed, want the 32 released ones", zeroed)
	}
	if len(*m.chunks) != before {
		t.Fatal("released segments were not reused")
	}
}

// TestManagerUnmapsGarbage: a Manager's chunks go back to the kernel once
// the Manager is garbage.
func TestManagerUnmapsGarbage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("chunks are mapped on Linux only")
	}
	// Let the Managers of earlier tests go first: were they unmapped
	// during the wait below, they could hide this one's chunks.
	base := mapped.Load()
	for range 100 {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if now := mapped.Load(); now != base {
			base = now
		} else {
			break
		}
	}
	func() {
		m := newManager(t, 8<<20, 32<<10)
		for range 100 {
			if _, err := m.Alloc(); err != nil {
				t.Fatal(err)
			}
		}
		if mapped.Load() <= base {
			t.Fatal("no chunk mapped")
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for mapped.Load() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still mapped after the Manager became garbage", mapped.Load()-base)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestChunkAlignedAndAdvised: a chunk of a huge page starts on a huge-page
// boundary, so that the kernel can back it with one.
func TestChunkAlignedAndAdvised(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("chunks are mapped on Linux only")
	}
	c, ok := mapChunk(hugePage)
	if !ok {
		t.Skip("the kernel refused a mapping")
	}
	defer unmapChunk(c)
	if p := uintptr(unsafe.Pointer(&c[0])); p%hugePage != 0 {
		t.Fatalf("chunk at %#x is not aligned to a huge page", p)
	}
	c[0], c[hugePage-1] = 1, 1
}

func TestPages(t *testing.T) {
	defer func(p int) { pageSize = p }(pageSize)
	pageSize = 4096 // the cases below, whatever this kernel's pages
	b := make([]byte, 5*4096)
	off := (4096 - int(uintptr(unsafe.Pointer(&b[0])))%4096) % 4096
	for _, c := range []struct{ from, to, want int }{
		{off, off + 4096, 4096},
		{off, off + 4095, 0},
		{off + 1, off + 2*4096 + 1, 4096},
		{off, off + 3*4096, 3 * 4096},
	} {
		p := pages(b[c.from:c.to])
		if len(p) != c.want {
			t.Errorf("pages of [%d,%d): %d bytes, want %d", c.from-off, c.to-off, len(p), c.want)
		}
		if len(p) > 0 && uintptr(unsafe.Pointer(&p[0]))%4096 != 0 {
			t.Errorf("pages of [%d,%d) is not aligned", c.from-off, c.to-off)
		}
	}
}

// TestPagesLargerPages: with 64 KiB pages (arm64 and ppc64 kernels), no
// part of a 32 KiB segment is a whole page, so release must advise
// nothing; advising the segment alone would release the rest of its page,
// a neighbouring segment in use.
func TestPagesLargerPages(t *testing.T) {
	defer func(p int) { pageSize = p }(pageSize)
	pageSize = 64 << 10
	b := make([]byte, 4*pageSize)
	off := (pageSize - int(uintptr(unsafe.Pointer(&b[0])))%pageSize) % pageSize
	for _, c := range []struct{ from, to, want int }{
		{off, off + 32<<10, 0},
		{off + 32<<10, off + 64<<10, 0},
		{off, off + 64<<10, 64 << 10},
		{off + 4096, off + 2*pageSize, pageSize},
	} {
		if p := pages(b[c.from:c.to]); len(p) != c.want {
			t.Errorf("pages of [%d,%d) with 64 KiB pages: %d bytes, want %d", c.from-off, c.to-off, len(p), c.want)
		}
	}
}
