package exec

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poolAlloc is the Arrow allocator of a run: it keeps the buffers that
// released batches free, by power-of-two capacity, and hands them out
// again, so that a job streaming batches of the same shapes allocates
// (and the garbage collector scans, and the kernel faults in) almost
// nothing after its first batches. Any goroutine may use it: the free
// lists are sync.Pools, which also drop what they hold at a garbage
// collection, so an idle job does not keep memory.
//
// Like Go's allocator it returns zeroed, 64-byte aligned memory (Arrow's
// builders expect zeroes), and the bytes a Reallocate adds are zero too.
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
	b := a.AllocateNoZero(n)
	clear(b)
	return b
}

// AllocateNoZero is Allocate without the zeroing, for a writer that
// fills every byte it hands on (AllocNoZero).
func (a *poolAlloc) AllocateNoZero(n int) []byte {
	c := class(n)
	if c >= poolClasses {
		return memory.DefaultAllocator.Allocate(n)
	}
	if h, ok := a.free[c].Get().(*[]byte); ok {
		b := (*h)[:n]
		*h = nil
		a.holders.Put(h)
		return b
	}
	size := 1 << c
	raw := make([]byte, size+poolAlign)
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (poolAlign - 1))
	return raw[shift : shift+n : shift+size]
}

func (a *poolAlloc) Reallocate(n int, b []byte) []byte {
	if n <= cap(b) {
		if n > len(b) {
			clear(b[len(b):n])
		}
		return b[:n]
	}
	nb := a.Allocate(n)
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

// AllocNoZero allocates n bytes from a without zeroing them when a can
// (the run's pool can; Go's allocator always zeroes): for buffers whose
// every byte the caller writes before anyone reads it.
func AllocNoZero(a memory.Allocator, n int) []byte {
	if nz, ok := a.(interface{ AllocateNoZero(int) []byte }); ok {
		return nz.AllocateNoZero(n)
	}
	return a.Allocate(n)
}
