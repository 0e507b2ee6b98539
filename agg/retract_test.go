package agg

import (
	"math"
	"testing"

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
