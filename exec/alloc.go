package exec

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
)

// poolAlloc is the Arrow allocator of a run: it keeps the buffers that
// released batches free, by power-of-two capacity, and hands them out
// again, so that a job streaming batches of the same shapes allocates
// (and the garbage collector scans, and the kernel faults in) almost
// nothing after its first batches. Any goroutine may use it: the free
// lists are sync.Pools, which also drop what they hold at a garbage
// collection, so an idle job does not keep memory.
//
// Like Go's allocator it returns zeroed, 64-byte aligned memory: Arrow
// relies on Allocate's zeroes (MakeArrayOfNull's bitmaps and offsets).
// The bytes a Reallocate adds are not zeroed: only Arrow's builders grow
// buffers that hold data (strand's own code sizes its buffers once), and
// they write what they read, zeroing a grown validity bitmap themselves;
// a NULL row's value is left as it comes, which Arrow allows and readers
// ignore (the evaluator's scratch and the JSON decoder leave such values
// too). The poison debug mode fills the added bytes with garbage, so
// that the tests run under it catch a reader relying on zeroes there.
type poolAlloc struct {
	free [poolClasses]sync.Pool // *[]byte of capacity 1 << class
	// holders recycles the *[]byte boxes, so that Free does not allocate.
	holders sync.Pool
}

const (
	poolMinClass = 6  // 64 bytes
	poolClasses  = 31 // up to 1 GiB; larger buffers are not pooled
	poolAlign    = 64
)

func newPoolAlloc() *poolAlloc { return &poolAlloc{} }

// NewPoolAlloc returns an allocator like a run's, for benchmarks and
// tests of code that a run gives one.
func NewPoolAlloc() memory.Allocator { return newPoolAlloc() }

// class returns the size class holding n bytes.
func class(n int) int {
	if n <= 1<<poolMinClass {
		return poolMinClass
	}
	return bits.Len(uint(n - 1))
}

func (a *poolAlloc) Allocate(n int) []byte {
	b, fresh := a.get(n)
	if !fresh {
		clear(b)
	}
	return b
}

// AllocateNoZero is Allocate without the zeroing, for a writer that
// fills every byte it hands on (expr.AllocNoZero). Under the poison
// debug mode the bytes are garbage, so that tests catch a writer that
// leaves some.
func (a *poolAlloc) AllocateNoZero(n int) []byte {
	b, _ := a.get(n)
	expr.Poison(b)
	return b
}

// get returns n bytes as they come: stale if reused, and zero if fresh
// from Go's allocator, which zeroes what it hands out.
func (a *poolAlloc) get(n int) (b []byte, fresh bool) {
	c := class(n)
	if c >= poolClasses {
		return memory.DefaultAllocator.Allocate(n), true
	}
	if h, ok := a.free[c].Get().(*[]byte); ok {
		b := (*h)[:n]
		*h = nil
		a.holders.Put(h)
		return b, false
	}
	size := 1 << c
	// Go places an object of a power-of-two size class at a multiple of
	// its size within a page-aligned span, and a large one at a page:
	// aligned without padding, which would take the next size class up.
	raw := make([]byte, size)
	if uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%poolAlign == 0 {
		return raw[:n], true
	}
	raw = make([]byte, size+poolAlign)
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (poolAlign - 1))
	return raw[shift : shift+n : shift+size], true
}

// Reallocate keeps b's bytes and leaves the ones it adds unzeroed (see
// poolAlloc): a builder growing a buffer by doubling would otherwise
// zero as many bytes as it copies.
func (a *poolAlloc) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		if n > len(b) {
			expr.Poison(b[len(b):n])
		}
		return b[:n]
	}
	nb := a.AllocateNoZero(n)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *poolAlloc) Free(b []byte) {
	c := cap(b)
	if c < 1<<poolMinClass || c&(c-1) != 0 || bits.Len(uint(c))-1 >= poolClasses {
		return // not one of ours: the garbage collector takes it
	}
	h, _ := a.holders.Get().(*[]byte)
	if h == nil {
		h = new([]byte)
	}
	*h = b[:0]
	a.free[bits.Len(uint(c))-1].Put(h)
}
