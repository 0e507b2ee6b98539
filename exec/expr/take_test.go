package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// allTypes is a batch of 130 rows (three bitmap words) with one column of
// every type, NULL every fifth row.
func allTypes() []column {
	ts := []types.Type{tB, tI, tL, tF, tD, tDec(20, 4), tS, tDt, tTs, types.TTimestampLTZ, types.TIntervalDT, types.TIntervalYM}
	cs := make([]column, len(ts))
	for k, t := range ts {
		cs[k].t = t
		for i := 0; i < 130; i++ {
			var v any
			if (i+k)%5 != 0 {
				switch t.Kind {
				case types.Boolean:
					v = i%3 == 0
				case types.Int, types.IntervalYearMonth:
					v = int32(i * 7)
				case types.BigInt, types.IntervalDayTime:
					v = int64(i) << 33
				case types.Float:
					v = float32(i) / 4
				case types.Double:
					v = float64(i) / 8
				case types.Decimal:
					v = insertPoint(string(rune('1'+i%9))+"2345", 4)
				case types.String:
					v = string(make([]byte, i%4)) + "é" + string(rune('a'+i%26))
				case types.Date:
					v = types.FormatDate(int32(i * 100))
				default:
					v = types.FormatTimestamp(int64(i) * 123456789)
				}
			}
			cs[k].vals = append(cs[k].vals, v)
		}
	}
	return cs
}

func TestSelectTrueAndTake(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	cs := allTypes()
	b := makeBatch(t, alloc, cs)
	defer b.Release()
	for _, off := range []int64{0, 3, 64} {
		sub := b.NewSlice(off, b.NumRows())
		mask := sub.Column(0).(*array.Boolean)
		sel := SelectTrue(mask, nil)
		var want []int32
		for i := 0; i < mask.Len(); i++ {
			if mask.IsValid(i) && mask.Value(i) {
				want = append(want, int32(i))
			}
		}
		if !equal(sel, want) && !(len(sel) == 0 && len(want) == 0) {
			t.Fatalf("offset %d: SelectTrue = %v, want %v", off, sel, want)
		}
		// Take in selection order and in reverse.
		rev := make([]int32, len(sel))
		for i, s := range sel {
			rev[len(sel)-1-i] = s
		}
		for _, idx := range [][]int32{sel, rev, {}} {
			got := Take(alloc, sub, idx)
			if got.NumRows() != int64(len(idx)) {
				t.Fatalf("Take: %d rows, want %d", got.NumRows(), len(idx))
			}
			for k, c := range cs {
				all := valuesOf(t, sub.Column(k), c.t)
				vals := valuesOf(t, got.Column(k), c.t)
				for j, i := range idx {
					if !equal(vals[j], all[i]) {
						t.Errorf("offset %d column %d (%s) row %d: %#v, want %#v", off, k, c.t, j, vals[j], all[i])
					}
				}
			}
			got.Release()
		}
		sub.Release()
	}
	// Taking every row in order returns the batch itself.
	every := make([]int32, b.NumRows())
	for i := range every {
		every[i] = int32(i)
	}
	same := Take(alloc, b, every)
	if same != b {
		t.Error("Take of every row copied")
	}
	same.Release()
}

// Every type round-trips through evaluation: a column reference returns the
// column, and COALESCE and CASE copy values of every type.
func TestEveryTypeThroughEval(t *testing.T) {
	cs := allTypes()
	for k, c0 := range cs {
		x := c(k, c0.t)
		want := c0.vals
		got, err := run(t, x, cs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !equal(got[i], want[i]) {
				t.Fatalf("%s row %d = %#v, want %#v", c0.t, i, got[i], want[i])
			}
		}
		e := caseOf(c0.t, x, call(IsNull, tB, x), x)
		got, err = run(t, e, cs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !equal(got[i], want[i]) {
				t.Fatalf("%s: %s row %d = %#v, want %#v", e, c0.t, i, got[i], want[i])
			}
		}
	}
}

func TestNullColumn(t *testing.T) {
	alloc := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer alloc.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}, nil)
	nulls := array.NewNull(3)
	b := array.NewRecordBatch(schema, []arrow.Array{nulls}, 3)
	nulls.Release()
	defer b.Release()
	got := Take(alloc, b, []int32{2, 0})
	if got.NumRows() != 2 || got.Column(0).NullN() != 2 {
		t.Errorf("Take of a NULL column: %v", got)
	}
	got.Release()
}
