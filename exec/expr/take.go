package expr

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// SelectTrue appends to sel[:0] the indexes of the rows where mask is TRUE
// (not FALSE, not NULL), in order.
func SelectTrue(mask *array.Boolean, sel []int32) []int32 {
	sel = sel[:0]
	n := mask.Len()
	if n == 0 {
		return sel
	}
	d := mask.Data()
	off := d.Offset()
	vals := d.Buffers()[1].Bytes()
	var valid []byte
	if mask.NullN() > 0 {
		valid = d.Buffers()[0].Bytes()
	}
	for w := 0; w < words(n); w++ {
		m := loadWord(vals, off+w*64)
		if valid != nil {
			m &= loadWord(valid, off+w*64)
		}
		if w == words(n)-1 {
			m &= tail(n)
		}
		for ; m != 0; m &= m - 1 {
			sel = append(sel, int32(w*64+bits.TrailingZeros64(m)))
		}
	}
	return sel
}

// Take returns a new batch of the rows of b at the indexes in sel, in
// sel's order. It handles every column type strand uses (and any other
// fixed-width or 32-bit-offset binary column).
func Take(alloc memory.Allocator, b arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	n := int(b.NumRows())
	if len(sel) == n && identity(sel) {
		b.Retain()
		return b
	}
	cols := make([]arrow.Array, b.NumCols())
	for i, c := range b.Columns() {
		cols[i] = take(alloc, c, sel)
	}
	out := array.NewRecordBatch(b.Schema(), cols, int64(len(sel)))
	for _, c := range cols {
		c.Release()
	}
	return out
}

func identity(sel []int32) bool {
	for i, s := range sel {
		if int(s) != i {
			return false
		}
	}
	return true
}

func take(alloc memory.Allocator, a arrow.Array, sel []int32) arrow.Array {
	d := a.Data()
	off, bufs := d.Offset(), d.Buffers()
	n := len(sel)
	if a.DataType().ID() == arrow.NULL {
		return array.NewNull(n)
	}
	var valid *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		var set int
		valid, set = takeBits(alloc, bufs[0].Bytes(), off, sel)
		if nulls = n - set; nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	var out []*memory.Buffer
	switch dt := a.DataType().(type) {
	case *arrow.BooleanType:
		vals, _ := takeBits(alloc, bufs[1].Bytes(), off, sel)
		out = []*memory.Buffer{valid, vals}
	case *arrow.StringType, *arrow.BinaryType:
		out = []*memory.Buffer{valid, nil, nil}
		out[1], out[2] = takeStrings(alloc, a, sel)
	case *arrow.StructType, *arrow.ListType, *arrow.MapType:
		return takeNested(alloc, a, sel, valid, nulls)
	case arrow.FixedWidthDataType:
		vals := NewBufferNoZero(alloc, n*dt.BitWidth()/8)
		src, dst := bufs[1].Bytes(), vals.Bytes()
		switch w := dt.BitWidth() / 8; w {
		case 1:
			gather(dst, src[off:], sel)
		case 2:
			gather(view[uint16](dst), view[uint16](src)[off:], sel)
		case 4:
			gather(view[uint32](dst), view[uint32](src)[off:], sel)
		case 8:
			gather(view[uint64](dst), view[uint64](src)[off:], sel)
		case 16:
			gather(view[[2]uint64](dst), view[[2]uint64](src)[off:], sel)
		default:
			for j, i := range sel {
				copy(dst[j*w:(j+1)*w], src[(off+int(i))*w:])
			}
		}
		out = []*memory.Buffer{valid, vals}
	default:
		panic(fmt.Sprintf("expr.Take: unsupported column type %s", a.DataType()))
	}
	nd := array.NewData(a.DataType(), n, out, nil, nulls, 0)
	for _, b := range out {
		if b != nil {
			b.Release()
		}
	}
	defer nd.Release()
	return array.MakeFromData(nd)
}

func gather[T any](dst, src []T, sel []int32) {
	dst = dst[:len(sel)]
	for j, i := range sel {
		dst[j] = src[i]
	}
}

// takeBits gathers bits of an Arrow bitmap, returning them and how many
// are set.
func takeBits(alloc memory.Allocator, src []byte, off int, sel []int32) (*memory.Buffer, int) {
	buf := NewBufferNoZero(alloc, words(len(sel))*8)
	dst := view[uint64](buf.Bytes())
	clear(dst)
	set := 0
	for j, i := range sel {
		k := off + int(i)
		b := uint64(src[k>>3]>>(uint(k)&7)) & 1
		dst[j>>6] |= b << (uint(j) & 63)
		set += int(b)
	}
	return buf, set
}

func takeStrings(alloc memory.Allocator, a arrow.Array, sel []int32) (*memory.Buffer, *memory.Buffer) {
	d := a.Data()
	off := d.Offset()
	offs := view[int32](d.Buffers()[1].Bytes())[off:]
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	size := 0
	for _, i := range sel {
		size += int(offs[i+1] - offs[i])
	}
	ob := NewBufferNoZero(alloc, (len(sel)+1)*4)
	db := NewBufferNoZero(alloc, size)
	o, dst := view[int32](ob.Bytes())[:len(sel)+1], db.Bytes()
	at := 0
	o[0] = 0
	for j, i := range sel {
		at += copy(dst[at:], data[offs[i]:offs[i+1]])
		o[j+1] = int32(at)
	}
	return ob, db
}
