package agg

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// TestMergeRows checks that MergeRows merges as MergeFrom does, group by
// group, for every accumulator: the states (Put) and results (AppendTo)
// agree.
func TestMergeRows(t *testing.T) {
	const groups = 40
	r := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		kind    Kind
		in      types.Type
		retract bool
	}{
		{Count, types.TBigInt, false},
		{Sum, types.TBigInt, false},
		{Avg, types.TInt, false},
		{Sum, types.TDouble, false},
		{Sum, types.DecimalOf(10, 2), false},
		{Min, types.TBigInt, false},
		{Max, types.TString, false},
		{Max, types.TDouble, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v(%v)/retract=%v", c.kind, c.in, c.retract), func(t *testing.T) {
			out, err := ResultType(c.kind, c.in)
			if err != nil {
				t.Fatal(err)
			}
			call := Call{Kind: c.kind, Arg: 0, Filter: -1, Out: out, Name: "x"}
			mk := func() Acc {
				ac, err := newAcc(call, c.in, c.retract)
				if err != nil {
					t.Fatal(err)
				}
				ac.Grow(groups)
				return ac
			}
			src, one, rows := mk(), mk(), mk()
			col := randomColumn(r, c.in, 500)
			defer col.Release()
			var rs, gs []int32
			for i := range 500 {
				rs, gs = append(rs, int32(i)), append(gs, int32(r.IntN(groups)))
			}
			src.Update(col, rs, gs)
			one.Update(col, rs[:100], gs[:100]) // the destinations hold state too
			rows.Update(col, rs[:100], gs[:100])
			perm := r.Perm(groups)
			var g, h []int32
			for i, p := range perm[:groups/2] {
				g, h = append(g, int32(p)), append(h, int32(perm[groups-1-i]))
			}
			for i := range g {
				one.MergeFrom(g[i], src, h[i])
			}
			rows.MergeRows(g, src, h)
			for x := range int32(groups) {
				if a, b := one.Put(nil, x), rows.Put(nil, x); !bytes.Equal(a, b) {
					t.Fatalf("group %d: state %x after MergeRows, %x after MergeFrom", x, b, a)
				}
			}
			all := make([]int32, groups)
			for i := range all {
				all[i] = int32(i)
			}
			if a, b := results(t, one, out, all), results(t, rows, out, all); a != b {
				t.Fatalf("results %s after MergeRows, %s after MergeFrom", b, a)
			}
		})
	}
}

func randomColumn(r *rand.Rand, t types.Type, n int) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t.Arrow())
	defer b.Release()
	for range n {
		if r.IntN(10) == 0 {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(r.Int64N(1<<40) - 1<<39)
		case *array.Int32Builder:
			b.Append(r.Int32N(1000) - 500)
		case *array.Float64Builder:
			b.Append(r.Float64()*100 - 50)
		case *array.Decimal128Builder:
			b.Append(decimal128.FromI64(r.Int64N(100000) - 50000))
		case *array.StringBuilder:
			b.Append(fmt.Sprint("s", r.IntN(1000)))
		}
	}
	return b.NewArray()
}

func results(t *testing.T, ac Acc, out types.Type, groups []int32) string {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, out.Arrow())
	defer b.Release()
	if err := ac.AppendTo(b, groups); err != nil {
		t.Fatal(err)
	}
	a := b.NewArray()
	defer a.Release()
	return a.String()
}
