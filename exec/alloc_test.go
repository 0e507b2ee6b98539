package exec

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
)

// TestPoolAllocReuse checks what Arrow expects of an allocator: zeroed,
// 64-byte aligned memory, and the bytes of a grown buffer kept; and that
// freed buffers are handed out again.
func TestPoolAllocReuse(t *testing.T) {
	a := newPoolAlloc()
	aligned := func(b []byte) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%poolAlign == 0 }
	zero := func(b []byte) bool {
		for _, x := range b {
			if x != 0 {
				return false
			}
		}
		return true
	}
	reused := false
	for range 100 {
		b := a.Allocate(1000)
		if len(b) != 1000 || cap(b) != 1024 || !aligned(b) || !zero(b) {
			t.Fatalf("Allocate(1000): len %d cap %d aligned %v zero %v", len(b), cap(b), aligned(b), zero(b))
		}
		for i := range b {
			b[i] = 0xff
		}
		g := a.Reallocate(1024, b)
		if len(g) != 1024 || g[999] != 0xff {
			t.Fatal("Reallocate within the capacity changed the old bytes")
		}
		g = a.Reallocate(3000, g)
		if len(g) != 3000 || !aligned(g) || g[999] != 0xff {
			t.Fatal("Reallocate beyond the capacity lost bytes")
		}
		a.Free(g)
		c := a.Allocate(2500)
		reused = reused || unsafe.SliceData(c) == unsafe.SliceData(g)
		if !zero(c) {
			t.Fatal("a reused buffer is not zeroed")
		}
		a.Free(c)
	}
	// sync.Pool may drop items at any garbage collection, so reuse is
	// likely, not certain, in any one round.
	if !reused {
		t.Error("no freed buffer was reused in 100 rounds")
	}
	a.Free(make([]byte, 100)) // not a pooled capacity: ignored
}

func TestPoolAllocConcurrent(t *testing.T) {
	a := newPoolAlloc()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				b := a.Allocate(64 << (i % 8))
				for j := range b {
					if b[j] != 0 {
						t.Errorf("goroutine %d: dirty buffer", g)
						return
					}
					b[j] = byte(g + 1)
				}
				a.Free(b)
			}
		}()
	}
	wg.Wait()
}

// TestAllocNoZero checks that expr.AllocNoZero gives aligned buffers of the
// pool's capacities, reused without being zeroed, and plain Go memory
// from another allocator.
func TestAllocNoZero(t *testing.T) {
	defer expr.SetAllocPoison(expr.SetAllocPoison(false))
	a := newPoolAlloc()
	dirty := false
	for range 100 {
		b := expr.AllocNoZero(a, 1000)
		if len(b) != 1000 || cap(b) != 1024 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%poolAlign != 0 {
			t.Fatalf("AllocNoZero(1000): len %d cap %d", len(b), cap(b))
		}
		dirty = dirty || b[0] == 0xff
		b[0] = 0xff
		a.Free(b)
	}
	if !dirty {
		t.Error("no buffer was reused unzeroed in 100 rounds")
	}
	if b := expr.AllocNoZero(memory.DefaultAllocator, 10); len(b) != 10 {
		t.Fatalf("Go's allocator: len %d", len(b))
	}
}

// TestPoolAllocPoison: under the poison debug mode AllocNoZero and the
// bytes Reallocate adds are garbage, from the pool and from any other
// allocator, while Allocate still gives zeroes and Reallocate keeps the
// old bytes.
func TestPoolAllocPoison(t *testing.T) {
	defer expr.SetAllocPoison(expr.SetAllocPoison(true))
	dirty := func(b []byte) bool {
		for _, x := range b {
			if x != 0 {
				return true
			}
		}
		return false
	}
	a := newPoolAlloc()
	for _, al := range []memory.Allocator{a, memory.NewGoAllocator()} {
		if b := expr.AllocNoZero(al, 200); !dirty(b) {
			t.Errorf("%T: AllocNoZero under poison gave zeroes", al)
		}
	}
	for range 20 {
		b := a.Allocate(100)
		if dirty(b) {
			t.Fatal("Allocate under poison is not zeroed")
		}
		for i := range b {
			b[i] = 7
		}
		g := a.Reallocate(120, b)
		if g[99] != 7 || !dirty(g[100:]) {
			t.Fatal("Reallocate within the capacity under poison lost bytes or added zeroes")
		}
		g = a.Reallocate(5000, g)
		if g[99] != 7 || !dirty(g[120:]) {
			t.Fatal("Reallocate under poison lost bytes or added zeroes")
		}
		a.Free(g)
	}
}
