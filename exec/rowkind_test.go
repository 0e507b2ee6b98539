package exec

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

func int64Batch(t *testing.T, vals ...int64) arrow.RecordBatch {
	t.Helper()
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.AppendValues(vals, nil)
	a := bld.NewArray()
	defer a.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{a}, int64(len(vals)))
}

func TestKindsOfAnAppendOnlyBatchAreNil(t *testing.T) {
	b := int64Batch(t, 1, 2)
	defer b.Release()
	if Kinds(b) != nil || KindOf(b, 1) != Insert {
		t.Fatal("a plain batch is all insertions")
	}
	c := WithKinds(b, []RowKind{Insert, Insert})
	if c != b {
		t.Fatal("kinds without a change must leave the batch plain")
	}
}

func TestKindsFollowSlicesAndTakes(t *testing.T) {
	b := WithKinds(int64Batch(t, 1, 2, 3, 4), []RowKind{Insert, UpdateBefore, UpdateAfter, Delete})
	defer b.Release()
	s := b.NewSlice(1, 3)
	defer s.Release()
	if got := Kinds(s); !slices.Equal(got, []RowKind{UpdateBefore, UpdateAfter}) {
		t.Fatalf("slice kinds %v", got)
	}
	if got := TakeKinds(b, []int32{3, 0}); !slices.Equal(got, []RowKind{Delete, Insert}) {
		t.Fatalf("taken kinds %v", got)
	}
	if got := TakeKinds(b, []int32{0}); got != nil {
		t.Fatalf("insertions only: %v, want nil", got)
	}
	var names []string
	for i := range 4 {
		names = append(names, KindOf(b, i).String())
	}
	if !slices.Equal(names, []string{"+I", "-U", "+U", "-D"}) {
		t.Fatalf("kind names %v", names)
	}
	if !Delete.Retracts() || !UpdateBefore.Retracts() || UpdateAfter.Retracts() || Insert.Retracts() {
		t.Fatal("Retracts")
	}
}

func TestCalcKeepsKindsOfFilteredRows(t *testing.T) {
	// The kinds reach the next operator with the rows that pass a filter.
	b := WithKinds(int64Batch(t, 1, 2, 3), []RowKind{Insert, UpdateBefore, Delete})
	defer b.Release()
	c := filterOdd(t)
	var got []RowKind
	out := emitFunc(func(r arrow.RecordBatch) error {
		defer r.Release()
		for i := range int(r.NumRows()) {
			got = append(got, KindOf(r, i))
		}
		return nil
	})
	if err := c.Process(b, out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []RowKind{Insert, Delete}) {
		t.Fatalf("kinds after the filter: %v", got)
	}
}

type emitFunc func(arrow.RecordBatch) error

func (f emitFunc) Emit(b arrow.RecordBatch) error { return f(b) }

// filterOdd is a Calc keeping the rows whose x is odd.
func filterOdd(t *testing.T) *Calc {
	t.Helper()
	x := &expr.Col{Index: 0, Name: "x", T: types.TBigInt}
	two := &expr.Lit{V: types.IntValue(types.TBigInt, 2)}
	one := &expr.Lit{V: types.IntValue(types.TBigInt, 1)}
	cond := &expr.Call{Fn: expr.Eq, Args: []expr.Expr{&expr.Call{Fn: expr.Mod, Args: []expr.Expr{x, two}, T: types.TBigInt}, one}, T: types.TBoolean}
	in := types.Schema{{Name: "x", Type: types.TBigInt}}
	c, err := NewCalc(in, cond, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Open(&TaskContext{Alloc: memory.DefaultAllocator, Now: func() int64 { return 0 }}); err != nil {
		t.Fatal(err)
	}
	return c
}
