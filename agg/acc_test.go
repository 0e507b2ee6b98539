package agg

import (
	"errors"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// sumOf returns an accumulator of kind over in with groups 0..n-1.
func sumOf(t *testing.T, kind Kind, in types.Type, n int) Acc {
	t.Helper()
	out, err := ResultType(kind, in)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := New(Call{Kind: kind, Arg: 0, Filter: -1, Out: out, Name: kind.String() + "(x)"}, in)
	if err != nil {
		t.Fatal(err)
	}
	ac.Grow(n)
	return ac
}

func result(t *testing.T, ac Acc, out arrow.DataType, g int32) (string, error) {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, out)
	defer b.Release()
	if err := ac.AppendTo(b, []int32{g}); err != nil {
		return "", err
	}
	a := b.NewArray()
	defer a.Release()
	return a.ValueStr(0), nil
}

func int64s(v ...int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues(v, nil)
	return b.NewArray()
}

// A BIGINT sum is exact in any order: the partial sums of group 0 pass the
// int64 range and come back; group 1's does not come back and fails,
// naming the aggregate. State and merges keep all 128 bits.
func TestIntSumWide(t *testing.T) {
	for _, kind := range []Kind{Sum, Avg} {
		ac := sumOf(t, kind, types.TBigInt, 4)
		ac.Update(int64s(math.MaxInt64, math.MaxInt64, math.MinInt64, math.MaxInt64), []int32{0, 1, 2, 3}, []int32{0, 0, 1, 1})
		// Through the state encoding into groups 2 and 3, then merged.
		for g := range int32(2) {
			enc := ac.Put(nil, g)
			rest, err := ac.Get(enc, g+2)
			if err != nil || len(rest) != 0 {
				t.Fatalf("get(put(%d)) = %d bytes left, %v", g, len(rest), err)
			}
		}
		ac.Update(int64s(-math.MaxInt64), []int32{0}, []int32{2})
		got, err := result(t, ac, arrow.PrimitiveTypes.Int64, 2)
		want := map[Kind]string{Sum: "9223372036854775807", Avg: "3074457345618258602"}[kind]
		if err != nil || got != want {
			t.Errorf("%v: group 2 = %s, %v; want %s", kind, got, err, want)
		}
		ac.Merge(1, 3) // 2 * (MinInt64 + MaxInt64) = -2
		ac.Update(int64s(math.MinInt64), []int32{0}, []int32{1})
		got, err = result(t, ac, arrow.PrimitiveTypes.Int64, 1)
		if kind == Avg {
			if err != nil || got != "-1844674407370955162" { // (-2 + MinInt64) / 5
				t.Errorf("AVG: group 1 = %s, %v", got, err)
			}
			continue
		}
		if !errors.Is(err, ErrOverflow) || err.Error() != "SUM(x): numeric overflow: value does not fit BIGINT" {
			t.Errorf("SUM: group 1 = %s, %v; want an overflow", got, err)
		}
	}
}

// State written before sums were wide (a varint count and a varint sum)
// reads the same.
func TestIntSumOldState(t *testing.T) {
	ac := sumOf(t, Sum, types.TBigInt, 1)
	if _, err := ac.Get([]byte{0x04, 0x03}, 0); err != nil { // count 2, sum -2
		t.Fatal(err)
	}
	if got, err := result(t, ac, arrow.PrimitiveTypes.Int64, 0); err != nil || got != "-2" {
		t.Errorf("got %s, %v; want -2", got, err)
	}
}

func TestDecSumWide(t *testing.T) {
	in := types.DecimalOf(38, 6)
	big, err := decimal128.FromString("90000000000000000000000000000000", 38, 6)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewDecimal128Builder(memory.DefaultAllocator, in.Arrow().(*arrow.Decimal128Type))
	b.AppendValues([]decimal128.Num{big, big, big.Negate()}, nil)
	col := b.NewArray()
	out := types.DecimalOf(38, 6).Arrow()
	for _, c := range []struct {
		kind     Kind
		two, all string
	}{ // ValueStr drops trailing zeros
		{Sum, "", "90000000000000000000000000000000"}, {Avg, "90000000000000000000000000000000", "30000000000000000000000000000000"}} {
		ac := sumOf(t, c.kind, in, 2)
		ac.Update(col, []int32{0, 1}, []int32{0, 0}) // beyond 128 bits
		enc := ac.Put(nil, 0)
		if _, err := ac.Get(enc, 1); err != nil {
			t.Fatal(err)
		}
		got, err := result(t, ac, out, 1)
		if c.kind == Sum {
			if !errors.Is(err, ErrOverflow) || err.Error() != "SUM(x): numeric overflow: value does not fit DECIMAL(38, 6)" {
				t.Errorf("SUM of two: %s, %v; want an overflow", got, err)
			}
		} else if err != nil || got != c.two {
			t.Errorf("AVG of two: %s, %v; want %s", got, err, c.two)
		}
		ac.Update(col, []int32{2}, []int32{1})
		if got, err := result(t, ac, out, 1); err != nil || got != c.all {
			t.Errorf("%v of three: %s, %v; want %s", c.kind, got, err, c.all)
		}
	}
}
