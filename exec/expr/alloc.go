package expr

import (
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrow's allocators hand out zeroed memory, and Arrow relies on it (a
// builder's values, MakeArrayOfNull's bitmaps). A writer that fills every
// byte of a buffer can skip the zeroing: AllocNoZero asks an allocator
// that can (a run's pool, exec's poolAlloc) for unzeroed memory. It lives
// here, the lowest package that writes Arrow buffers, so that the
// expressions, exec and the connectors share it.

// AllocNoZero allocates n bytes from a without zeroing them when a can
// (the run's pool can; Go's allocator always zeroes): for buffers whose
// every byte the caller writes before anyone reads it.
func AllocNoZero(a memory.Allocator, n int) []byte {
	if nz, ok := a.(interface{ AllocateNoZero(int) []byte }); ok {
		return nz.AllocateNoZero(n)
	}
	b := a.Allocate(n)
	Poison(b)
	return b
}

// NewBufferNoZero returns an Arrow buffer of n bytes of a's memory,
// unzeroed as AllocNoZero's, which a frees when the buffer's last
// reference goes: for a column whose every byte the caller writes.
func NewBufferNoZero(a memory.Allocator, n int) *memory.Buffer {
	return memory.NewBufferWithAllocator(AllocNoZero(a, n), a)
}

// poison, set by the environment variable STRAND_ALLOC_POISON or by
// SetAllocPoison, fills the memory AllocNoZero hands out with garbage: a
// debug mode for tests (make test-poison runs the SQL tests and the
// oracle with it), which then fail where a writer leaves bytes unwritten
// that a reader relies on.
var poison atomic.Bool

func init() { poison.Store(os.Getenv("STRAND_ALLOC_POISON") != "") }

// SetAllocPoison turns the poison debug mode on or off and returns
// whether it was on.
func SetAllocPoison(on bool) bool { return poison.Swap(on) }

// Poison fills b with garbage in the poison debug mode; an allocator's
// AllocateNoZero calls it on what it hands out.
func Poison(b []byte) {
	if !poison.Load() {
		return
	}
	for i := range b {
		b[i] = byte(0xa5 ^ i*7)
	}
}
