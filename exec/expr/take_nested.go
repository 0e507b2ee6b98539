package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeNested is take for struct, list and map arrays: a struct takes the
// rows of each field; a list or map takes the elements of the rows, in
// order, and makes new offsets for them. valid and nulls are the rows'
// validity, already taken.
func takeNested(alloc memory.Allocator, a arrow.Array, sel []int32, valid *memory.Buffer, nulls int) arrow.Array {
	n := len(sel)
	var bufs []*memory.Buffer
	var kids []arrow.ArrayData
	switch a := a.(type) {
	case *array.Struct:
		bufs = []*memory.Buffer{valid}
		for i := 0; i < a.NumField(); i++ {
			k := take(alloc, a.Field(i), sel)
			kids = append(kids, k.Data())
			defer k.Release()
		}
	default:
		offs := listOffsets(a)
		var vals arrow.Array
		switch a := a.(type) {
		case *array.List:
			vals = a.ListValues()
		case *array.Map:
			vals = a.ListValues()
		}
		ob := NewBufferNoZero(alloc, (n+1)*4)
		o := view[int32](ob.Bytes())[:n+1]
		var elems []int32
		o[0] = 0
		for j, i := range sel {
			for e := offs[i]; e < offs[i+1]; e++ {
				elems = append(elems, e)
			}
			o[j+1] = int32(len(elems))
		}
		k := take(alloc, vals, elems)
		defer k.Release()
		kids = []arrow.ArrayData{k.Data()}
		bufs = []*memory.Buffer{valid, ob}
		defer ob.Release()
	}
	if valid != nil {
		defer valid.Release()
	}
	d := array.NewData(a.DataType(), n, bufs, kids, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
