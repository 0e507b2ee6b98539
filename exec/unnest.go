package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// Unnest emits each input row once per element of its ARRAY (or entry of
// its MAP) in column Col, as Flink's CROSS JOIN UNNEST does: the row's
// columns, then the element (a MAP's key and value), then, with
// Ordinality, the element's 1-based position. A row whose array is NULL
// or empty yields nothing, or, with Outer (LEFT JOIN UNNEST ... ON TRUE),
// one row whose element and position are NULL. Copies keep their row's
// kind. It is stateless and works a batch at a time: the rows and the
// elements are gathered with Take, nothing is boxed.
type Unnest struct {
	Col               int
	Outer, Ordinality bool
	Out               types.Schema

	alloc  memory.Allocator
	schema *arrow.Schema
	sel    []int32 // per output row: its input row
	elems  []int32 // and its element, -1 for none
}

// NewUnnest checks and makes an Unnest; it is an OpSpec's constructor.
func NewUnnest(in types.Schema, col int, outer, ordinality bool, out types.Schema) (*Unnest, error) {
	if col < 0 || col >= len(in) {
		return nil, fmt.Errorf("unnest: column %d of %d", col, len(in))
	}
	want := len(in) + 1
	switch in[col].Type.Kind {
	case types.Array:
	case types.Map:
		want++
	default:
		return nil, fmt.Errorf("unnest: column %d is %s, not an ARRAY or a MAP", col, in[col].Type)
	}
	if ordinality {
		want++
	}
	if len(out) != want {
		return nil, fmt.Errorf("unnest: %d output columns, want %d", len(out), want)
	}
	return &Unnest{Col: col, Outer: outer, Ordinality: ordinality, Out: out, schema: out.Arrow(), alloc: memory.DefaultAllocator}, nil
}

// Open implements Opener.
func (u *Unnest) Open(ctx *TaskContext) error {
	u.alloc = ctx.Alloc
	return nil
}

// Process implements Operator.
func (u *Unnest) Process(b arrow.RecordBatch, out Emitter) error {
	a := b.Column(u.Col)
	d := a.Data()
	offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
	u.sel, u.elems = u.sel[:0], u.elems[:0]
	padded := false
	for i := 0; i < a.Len(); i++ {
		lo, hi := offs[i], offs[i+1]
		if a.IsNull(i) || lo == hi {
			if u.Outer {
				u.sel, u.elems = append(u.sel, int32(i)), append(u.elems, -1)
				padded = true
			}
			continue
		}
		for e := lo; e < hi; e++ {
			u.sel, u.elems = append(u.sel, int32(i)), append(u.elems, e)
		}
	}
	if len(u.sel) == 0 {
		return nil
	}
	rows := expr.Take(u.alloc, b, u.sel)
	defer rows.Release()
	cols := append([]arrow.Array{}, rows.Columns()...)
	var made []arrow.Array
	var kids []arrow.Array
	switch a := a.(type) {
	case *array.Map:
		kids = []arrow.Array{a.Keys(), a.Items()}
	case *array.List:
		kids = []arrow.Array{a.ListValues()}
	}
	release := func() {
		for _, m := range made {
			m.Release()
		}
	}
	for _, k := range kids {
		e, err := u.pick(k, padded)
		if err != nil {
			release()
			return err
		}
		cols, made = append(cols, e), append(made, e)
	}
	if u.Ordinality {
		o := u.ordinals(offs)
		cols, made = append(cols, o), append(made, o)
	}
	r := array.NewRecordBatch(u.schema, cols, int64(len(u.sel)))
	release()
	return out.Emit(WithKinds(r, TakeKinds(b, u.sel)))
}

// pick gathers the elements u.elems of k, NULL where there is none.
func (u *Unnest) pick(k arrow.Array, padded bool) (arrow.Array, error) {
	idx := u.elems
	if padded {
		// A NULL after the elements stands for the missing ones.
		null := array.MakeArrayOfNull(u.alloc, k.DataType(), 1)
		ext, err := array.Concatenate([]arrow.Array{k, null}, u.alloc)
		null.Release()
		if err != nil {
			return nil, fmt.Errorf("unnest: %w", err)
		}
		defer ext.Release()
		k = ext
		idx = make([]int32, len(u.elems))
		for i, e := range u.elems {
			if e < 0 {
				e = int32(k.Len() - 1)
			}
			idx[i] = e
		}
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "e", Type: k.DataType(), Nullable: true}}, nil), []arrow.Array{k}, int64(k.Len()))
	defer one.Release()
	taken := expr.Take(u.alloc, one, idx)
	defer taken.Release()
	c := taken.Column(0)
	c.Retain()
	return c, nil
}

// ordinals is each output row's element position, 1-based, NULL for a
// padded row.
func (u *Unnest) ordinals(offs []int32) arrow.Array {
	bld := array.NewInt32Builder(u.alloc)
	defer bld.Release()
	bld.Reserve(len(u.sel))
	for i, e := range u.elems {
		if e < 0 {
			bld.AppendNull()
			continue
		}
		bld.UnsafeAppend(e - offs[u.sel[i]] + 1)
	}
	return bld.NewArray()
}
