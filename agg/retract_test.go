package agg

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

func retracting(t *testing.T, kind Kind, in types.Type) Acc {
	t.Helper()
	out, err := ResultType(kind, in)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := NewRetracting(Call{Kind: kind, Arg: 0, Filter: -1, Out: out, Name: kind.String() + "(x)"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ac.(Retracter); !ok {
		t.Fatalf("%v: %T is no Retracter", kind, ac)
	}
	ac.Grow(2)
	return ac
}

// A retracted MIN or MAX falls back to the next value its group holds,
// counting duplicates, and to NULL when none is left; its state survives
// Put and Get.
func TestMultisetRetract(t *testing.T) {
	col := int64s(5, 3, 9, 3, 7)
	all := []int32{0, 1, 2, 3, 4}
	zeros := []int32{0, 0, 0, 0, 0}
	for _, tc := range []struct {
		kind  Kind
		steps []string // the result after retracting rows 1, 2, 3, 0, 4 in turn
	}{
		{Min, []string{"3", "3", "5", "7", "(null)"}},
		{Max, []string{"9", "7", "7", "7", "(null)"}},
	} {
		ac := retracting(t, tc.kind, types.TBigInt)
		ac.Update(col, all, zeros)
		for i, r := range []int32{1, 2, 3, 0, 4} {
			ac.(Retracter).Retract(col, []int32{r}, []int32{0})
			// Through the encoding into group 1.
			if _, err := ac.Get(ac.Put(nil, 0), 1); err != nil {
				t.Fatal(err)
			}
			got, err := result(t, ac, types.TBigInt.Arrow(), 1)
			if err != nil || got != tc.steps[i] {
				t.Errorf("%v after %d retractions = %s, %v; want %s", tc.kind, i+1, got, err, tc.steps[i])
			}
		}
		if ac.Heap() != 0 {
			t.Errorf("%v: %d heap bytes held by empty sets", tc.kind, ac.Heap())
		}
	}
}

// Sums and counts retract exactly, across the int64 range.
func TestSumRetract(t *testing.T) {
	col := int64s(math.MaxInt64, math.MaxInt64, 5)
	for _, tc := range []struct {
		kind Kind
		want string
	}{{Sum, "5"}, {Avg, "5"}, {Count, "1"}} {
		in := types.TBigInt
		ac := retracting(t, tc.kind, in)
		ac.Update(col, []int32{0, 1, 2}, []int32{0, 0, 0})
		ac.(Retracter).Retract(col, []int32{0, 1}, []int32{0, 0})
		out, _ := ResultType(tc.kind, in)
		got, err := result(t, ac, out.Arrow(), 0)
		if err != nil || got != tc.want {
			t.Errorf("%v = %s, %v; want %s", tc.kind, got, err, tc.want)
		}
	}
}

// TestRetractFromEmpty: a sum takes nothing back from a group that holds
// no value (retractedFromEmpty): a changelog read from its middle
// retracts rows the aggregate never saw, and a count below 0 would be
// written as the marker of a wide sum, which Get then misreads. Group 0
// holds no value; group 1 holds one, retracted twice. Both then encode,
// decode into a fresh accumulator and give NULL, and take new values.
func TestRetractFromEmpty(t *testing.T) {
	dec := types.DecimalOf(10, 2)
	db := array.NewDecimal128Builder(memory.DefaultAllocator, dec.Arrow().(*arrow.Decimal128Type))
	db.Append(decimal128.FromI64(700))
	db.Append(decimal128.FromI64(300))
	decs := db.NewArray()
	defer decs.Release()
	for _, tc := range []struct {
		name string
		kind Kind
		in   types.Type
		col  arrow.Array // the value to retract, then another
		then string      // the result after the other is added
	}{
		{"sum-bigint", Sum, types.TBigInt, int64s(7, 3), "3"},
		{"avg-bigint", Avg, types.TBigInt, int64s(7, 3), "3"},
		{"sum-decimal", Sum, dec, decs, "3"},
		{"sum-double", Sum, types.TDouble, float64s(7, 3), "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ac := retracting(t, tc.kind, tc.in)
			r := ac.(Retracter)
			out, err := ResultType(tc.kind, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			ac.Update(tc.col, []int32{0}, []int32{1})
			r.Retract(tc.col, []int32{0}, []int32{0})
			r.Retract(tc.col, []int32{0, 0}, []int32{1, 1})
			fresh := retracting(t, tc.kind, tc.in)
			for g := range int32(2) {
				rest, err := fresh.Get(ac.Put(nil, g), g)
				if err != nil || len(rest) != 0 {
					t.Fatalf("group %d: Get of its Put: %v, %d bytes left", g, err, len(rest))
				}
				if got, err := result(t, fresh, out.Arrow(), g); err != nil || got != "(null)" {
					t.Fatalf("group %d after the retractions = %s, %v; want (null)", g, got, err)
				}
			}
			fresh.Update(tc.col, []int32{1, 1}, []int32{0, 1})
			for g := range int32(2) {
				if got, err := result(t, fresh, out.Arrow(), g); err != nil || got != tc.then {
					t.Fatalf("group %d after a new value = %s, %v; want %s", g, got, err, tc.then)
				}
			}
		})
	}
}

// TestCountRetractFromEmpty: COUNT(x) does not go below 0 when a value is
// retracted from a group that holds none (retractedFromEmpty).
func TestCountRetractFromEmpty(t *testing.T) {
	ac := retracting(t, Count, types.TBigInt)
	col := int64s(7)
	ac.(Retracter).Retract(col, []int32{0}, []int32{0})
	if got, err := result(t, ac, types.TBigInt.Arrow(), 0); err != nil || got != "0" {
		t.Fatalf("COUNT(x) after retracting from an empty group = %s, %v; want 0", got, err)
	}
	ac.Update(col, []int32{0}, []int32{0})
	if got, err := result(t, ac, types.TBigInt.Arrow(), 0); err != nil || got != "1" {
		t.Fatalf("COUNT(x) after a value = %s, %v; want 1", got, err)
	}
}
