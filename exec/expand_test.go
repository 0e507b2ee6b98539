package exec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// expandInput is n rows of (k BIGINT, s STRING, v INT): k is NULL in
// every third row, s is "s<i>", v is i.
func expandInput(t *testing.T, in types.Schema, n int) arrow.RecordBatch {
	t.Helper()
	bld := array.NewRecordBuilder(memory.DefaultAllocator, in.Arrow())
	defer bld.Release()
	for i := range n {
		if i%3 == 0 {
			bld.Field(0).AppendNull()
		} else {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
		}
		bld.Field(1).(*array.StringBuilder).Append(fmt.Sprint("s", i))
		bld.Field(2).(*array.Int32Builder).Append(int32(i))
	}
	return bld.NewRecordBatch()
}

// TestExpand: each batch comes out once per grouping set, with the keys
// the set lacks NULL and $e its id; a NULL key of the input stays NULL
// with the $e of the sets that have the key; the rows keep their kinds;
// a longer batch than before grows the columns Expand keeps.
func TestExpand(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "s", Type: types.TString.WithNotNull(true)}, {Name: "v", Type: types.TInt}}
	out := append(append(types.Schema{}, in...), types.Field{Name: "$e", Type: types.TBigInt.WithNotNull(true)})
	out[1].Type = out[1].Type.Nullable()
	// ROLLUP(k, s): {k, s} is 0, {k} is 1, {} is 3.
	x, err := NewExpand(in, []int{0, 1}, []int64{0, 1, 3}, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Open(&TaskContext{Alloc: memory.DefaultAllocator}); err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var got []string
	emit := emitFunc(func(r arrow.RecordBatch) error {
		defer r.Release()
		if !r.Schema().Equal(out.Arrow()) {
			t.Errorf("schema %s, want %s", r.Schema(), out.Arrow())
		}
		for i := range int(r.NumRows()) {
			row := []string{KindOf(r, i).String()}
			for c := range int(r.NumCols()) {
				row = append(row, r.Column(c).ValueStr(i))
			}
			got = append(got, strings.Join(row, " "))
		}
		return nil
	})
	b := WithKinds(expandInput(t, in, 2), []RowKind{Insert, UpdateBefore})
	defer b.Release()
	if err := x.Process(b, emit); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"+I (null) s0 0 0", "-U 1 s1 1 0",
		"+I (null) (null) 0 1", "-U 1 (null) 1 1",
		"+I (null) (null) 0 3", "-U (null) (null) 1 3",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	got = nil
	b7 := expandInput(t, in, 7)
	defer b7.Release()
	if err := x.Process(b7, emit); err != nil {
		t.Fatal(err)
	}
	if len(got) != 21 || got[20] != "+I (null) (null) 6 3" || got[9] != "+I 2 (null) 2 1" {
		t.Fatalf("after growing: %d rows\n  %s", len(got), strings.Join(got, "\n  "))
	}
}

func TestNewExpandChecksColumns(t *testing.T) {
	in := types.Schema{{Name: "k", Type: types.TBigInt}}
	if _, err := NewExpand(in, []int{1}, []int64{0, 1}, append(in, in[0])); err == nil {
		t.Error("a key beyond the input: no error")
	}
	if _, err := NewExpand(in, []int{0}, []int64{0, 1}, in); err == nil {
		t.Error("no $e column: no error")
	}
}
