package connector

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
)

// vec holds a column's values of one fixed width in memory of the batch's
// Arrow allocator, so that a batch hands its buffers to the record it
// makes instead of copying them. Memory comes unzeroed (expr.AllocNoZero):
// every value is written before the record is made. Values are appended
// only within the capacity that push, reserve or grow make in the
// allocator's memory: a plain append past it would move them to Go's heap.
type vec[T any] struct {
	v    []T
	hint int // the length handed over last, the next batch's likely size
}

// minVec is the capacity of a vec's first buffer, in values.
const minVec = 64

func (x *vec[T]) push(a memory.Allocator, v T) {
	if len(x.v) == cap(x.v) {
		x.grow(a, len(x.v)+1)
	}
	x.v = append(x.v, v)
}

// reserve makes room for n more values, which the caller appends.
func (x *vec[T]) reserve(a memory.Allocator, n int) {
	if len(x.v)+n > cap(x.v) {
		x.grow(a, len(x.v)+n)
	}
}

func (x *vec[T]) grow(a memory.Allocator, need int) {
	size := int(unsafe.Sizeof(*new(T)))
	n := max(need, 2*cap(x.v), x.hint, minVec)
	raw := expr.AllocNoZero(a, n*size)
	nv := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), cap(raw)/size)[:len(x.v)]
	copy(nv, x.v)
	x.free(a)
	x.v = nv
}

// bytes returns the memory of x's buffer: its values' bytes, with the
// buffer's capacity.
func (x *vec[T]) bytes() []byte {
	size := int(unsafe.Sizeof(*new(T)))
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x.v))), cap(x.v)*size)[:len(x.v)*size]
}

func (x *vec[T]) free(a memory.Allocator) {
	if cap(x.v) > 0 {
		a.Free(x.bytes())
	}
	x.v = nil
}

// buffer hands x's values over as an Arrow buffer owned by a; x is empty
// after it.
func (x *vec[T]) buffer(a memory.Allocator) *memory.Buffer {
	if cap(x.v) == 0 {
		x.grow(a, 0)
	}
	b := memory.NewBufferWithAllocator(x.bytes(), a)
	x.hint = len(x.v)
	x.v = nil
	return b
}

// bitVec is a bitmap (a validity bitmap, or boolean values) in the
// allocator's memory, appended one bit at a time.
type bitVec struct {
	b    vec[byte]
	n    int // bits
	ones int // bits set
}

func (x *bitVec) push(a memory.Allocator, v bool) {
	if x.n&7 == 0 {
		x.b.push(a, 0)
	}
	if v {
		x.b.v[x.n>>3] |= 1 << (x.n & 7)
		x.ones++
	}
	x.n++
}

// pushOnes appends n set bits.
func (x *bitVec) pushOnes(a memory.Allocator, n int) {
	for ; n > 0 && x.n&7 != 0; n-- {
		x.push(a, true)
	}
	full := n >> 3
	x.b.reserve(a, full+1)
	for range full {
		x.b.v = append(x.b.v, 0xff)
	}
	x.n += full << 3
	x.ones += full << 3
	for range n & 7 {
		x.push(a, true)
	}
}

func (x *bitVec) get(i int) bool { return bitutil.BitIsSet(x.b.v, i) }

// truncate keeps the first n bits.
func (x *bitVec) truncate(n int) {
	if n >= x.n {
		return
	}
	x.b.v = x.b.v[:(n+7)>>3]
	if n&7 != 0 {
		x.b.v[n>>3] &= 1<<(n&7) - 1 // push ORs into the last byte
	}
	x.n = n
	x.ones = bitutil.CountSetBits(x.b.v, 0, n)
}

// buffer hands the bitmap over; x is empty after it.
func (x *bitVec) buffer(a memory.Allocator) *memory.Buffer {
	x.n, x.ones = 0, 0
	return x.b.buffer(a)
}

func (x *bitVec) free(a memory.Allocator) {
	x.n, x.ones = 0, 0
	x.b.free(a)
}
