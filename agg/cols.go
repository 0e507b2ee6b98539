package agg

import (
	"math/bits"
	"unsafe"

	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// NewIn is New for accumulators whose columns of memseg.MinBlock bytes or
// more live in blocks of m's mapped memory (Manager.Block) instead of the
// Go heap, where the accumulator's kind keeps no pointers in them (COUNT,
// SUM and AVG of integers, decimals and floats, MIN and MAX of numbers,
// dates, times and booleans; the others are New's). A window subtask holds
// many windows open at once (a dozen or more per subtask at p=2 over one
// file, whose sources read 8 MB apart); on the heap each one's columns
// were faulted in 4 KiB at a time and raised the collector's goal by
// their size. The memory is not charged to m's budget: the caller charges
// its groups (Size). Release gives the blocks back; an accumulator
// dropped without it keeps them from m's other users until m is.
func NewIn(a Call, in types.Type, m *memseg.Manager) (Acc, error) {
	ac, err := New(a, in)
	if err != nil {
		return nil, err
	}
	switch ac := ac.(type) {
	case *countAcc:
		ac.mem = m
	case *intSumAcc:
		ac.mem = m
	case *floatSumAcc:
		ac.mem = m
	case *decSumAcc:
		ac.mem = m
	case *extreme[int64]:
		ac.mem = m
	case *extreme[float64]:
		ac.mem = m
	case *extreme[bool]:
		ac.mem = m
	}
	return ac, nil
}

// Release gives back the blocks of an accumulator from NewIn and leaves
// it without slots (Grow makes them again); an accumulator from New has
// none.
func Release(ac Acc) {
	if r, ok := ac.(interface{ freeCols() }); ok {
		r.freeCols()
	}
}

// growIn is Grow for a column of an accumulator whose memory is m: one of
// memseg.MinBlock bytes or more, and of a type whose size is a power of
// two, goes in a block of m's, a power of two of bytes, and the column it
// replaces goes back to m (freeIn). With m nil it is Grow. T must hold no
// pointers: the collector does not look into blocks.
func growIn[T any](m *memseg.Manager, s []T, n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if m == nil || n <= cap(s) || size&(size-1) != 0 {
		return Grow(s, n)
	}
	want := max(n, 2*cap(s)) * size
	if want < memseg.MinBlock {
		return Grow(s, n)
	}
	b := m.Block(1 << bits.Len(uint(want-1)))
	out := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)[:n]
	copy(out, s)
	freeIn(m, s)
	return out
}

// freeIn gives back column s if growIn put it in a block of m's: exactly
// when m is set and s's room is memseg.MinBlock bytes or more of a type
// whose size is a power of two, as growIn decides.
func freeIn[T any](m *memseg.Manager, s []T) {
	size := int(unsafe.Sizeof(*new(T)))
	if m == nil || size&(size-1) != 0 || cap(s)*size < memseg.MinBlock {
		return
	}
	m.FreeBlock(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), cap(s)*size))
}
