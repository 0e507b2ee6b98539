package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// Expand emits each input batch once per grouping set, as Flink's Expand
// does for GROUPING SETS, ROLLUP and CUBE: the copy for a set has the key
// columns the set lacks replaced by NULLs, and a last column, $e, holding
// the set's id (bit len(Keys)-1-i set when key i is absent). The aggregate
// after it groups by the keys and $e. It is stateless and works on whole
// columns: a copy reuses the batch's arrays, and takes its NULL columns
// and its $e from arrays it keeps and slices, so a batch costs no work per
// row. A copy keeps the rows' kinds.
type Expand struct {
	In   types.Schema
	Keys []int
	IDs  []int64
	Out  types.Schema

	alloc  memory.Allocator
	schema *arrow.Schema
	// nulls[i] is NULLs of key i's type and ids[s] id s repeated, each of
	// length size, the longest batch so far.
	nulls []arrow.Array
	ids   []arrow.Array
	size  int
}

// NewExpand checks and makes an Expand; it is an OpSpec's constructor.
func NewExpand(in types.Schema, keys []int, ids []int64, out types.Schema) (*Expand, error) {
	if len(out) != len(in)+1 {
		return nil, fmt.Errorf("expand: %d output columns for %d input columns, want one more", len(out), len(in))
	}
	for _, k := range keys {
		if k < 0 || k >= len(in) {
			return nil, fmt.Errorf("expand: key column %d of %d", k, len(in))
		}
	}
	return &Expand{In: in, Keys: keys, IDs: ids, Out: out, schema: out.Arrow(), alloc: memory.DefaultAllocator}, nil
}

// Open implements Opener.
func (x *Expand) Open(ctx *TaskContext) error {
	x.alloc = ctx.Alloc
	return nil
}

// absent reports whether key i is not in the grouping set of id.
func (x *Expand) absent(id int64, i int) bool { return id>>(len(x.Keys)-1-i)&1 == 1 }

// Process implements Operator.
func (x *Expand) Process(b arrow.RecordBatch, out Emitter) error {
	n := int(b.NumRows())
	if n > x.size {
		x.grow(max(n, 2*x.size))
	}
	cols := make([]arrow.Array, len(x.Out))
	for s, id := range x.IDs {
		copy(cols, b.Columns())
		var made []arrow.Array
		for i, k := range x.Keys {
			if x.absent(id, i) {
				cols[k] = array.NewSlice(x.nulls[i], 0, int64(n))
				made = append(made, cols[k])
			}
		}
		cols[len(x.In)] = array.NewSlice(x.ids[s], 0, int64(n))
		made = append(made, cols[len(x.In)])
		r := array.NewRecordBatch(x.schema, cols, int64(n))
		for _, a := range made {
			a.Release()
		}
		if err := out.Emit(Rekind(r, b)); err != nil {
			return err
		}
	}
	return nil
}

// grow remakes the NULL and id columns with size rows.
func (x *Expand) grow(size int) {
	x.release()
	x.size = size
	for _, k := range x.Keys {
		x.nulls = append(x.nulls, array.MakeArrayOfNull(x.alloc, x.In[k].Type.Arrow(), size))
	}
	vals := make([]int64, size)
	for _, id := range x.IDs {
		bld := array.NewInt64Builder(x.alloc)
		for i := range vals {
			vals[i] = id
		}
		bld.AppendValues(vals, nil)
		x.ids = append(x.ids, bld.NewArray())
		bld.Release()
	}
}

func (x *Expand) release() {
	for _, a := range x.nulls {
		a.Release()
	}
	for _, a := range x.ids {
		a.Release()
	}
	x.nulls, x.ids = x.nulls[:0], x.ids[:0]
}

// Close implements Closer.
func (x *Expand) Close() error {
	x.release()
	return nil
}
