package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

type held []arrow.RecordBatch

func (h *held) Emit(b arrow.RecordBatch) error { *h = append(*h, b); return nil }

// A repeated expression is computed once (its column is the same array);
// a repeated UUID() is not, nor an expression that differs in a literal.
func TestCalcRepeats(t *testing.T) {
	x := &expr.Col{Index: 0, Name: "x", T: types.TBigInt}
	lt := func(lit *expr.Lit) expr.Expr {
		return &expr.Call{Fn: expr.Lt, Args: []expr.Expr{x, lit}, T: types.TBoolean}
	}
	uuid := func() expr.Expr { return &expr.Call{Fn: expr.UUID, T: types.TString.WithNotNull(true)} }
	project := []expr.Expr{
		lt(&expr.Lit{V: types.IntValue(types.TBigInt, 5)}), uuid(),
		lt(&expr.Lit{V: types.IntValue(types.TBigInt, 5)}), uuid(),
		lt(&expr.Lit{V: types.IntValue(types.TBigInt, 6)}),
	}
	in := types.Schema{{Name: "x", Type: types.TBigInt}}
	out := types.Schema{{Name: "a", Type: types.TBoolean}, {Name: "u", Type: types.TString.WithNotNull(true)},
		{Name: "b", Type: types.TBoolean}, {Name: "v", Type: types.TString.WithNotNull(true)}, {Name: "c", Type: types.TBoolean}}
	c, err := NewCalc(in, nil, project, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(&TaskContext{Alloc: memory.DefaultAllocator, Now: func() int64 { return 0 }}); err != nil {
		t.Fatal(err)
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	bld.AppendValues([]int64{1, 5, 9}, nil)
	col := bld.NewArray()
	bld.Release()
	b := array.NewRecordBatch(in.Arrow(), []arrow.Array{col}, 3)
	col.Release()
	defer b.Release()
	var h held
	if err := c.Process(b, &h); err != nil {
		t.Fatal(err)
	}
	r := h[0]
	defer r.Release()
	if r.Column(0) != r.Column(2) || r.Column(0) == r.Column(4) {
		t.Fatal("x < 5 computed twice, or shared with x < 6")
	}
	if u, v := r.Column(1).(*array.String), r.Column(3).(*array.String); u.Value(0) == v.Value(0) {
		t.Fatalf("UUID() twice gives %s twice", u.Value(0))
	}
	if got := r.Column(2).(*array.Boolean).Value(0); !got {
		t.Fatal("1 < 5 is false")
	}
}
