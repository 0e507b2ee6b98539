package agg

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// inCalls are calls whose accumulators NewIn puts in blocks, with their
// input type and a column of 8 values of it.
func inCalls(t *testing.T) []struct {
	c   Call
	in  types.Type
	col arrow.Array
} {
	t.Helper()
	f := array.NewFloat64Builder(memory.DefaultAllocator)
	f.AppendValues([]float64{1.5, -2.25, 3, 0.1, 7, -0.5, 2, 9.75}, nil)
	bo := array.NewBooleanBuilder(memory.DefaultAllocator)
	bo.AppendValues([]bool{true, false, false, true, true, false, true, false}, nil)
	dec := types.DecimalOf(12, 2)
	db := array.NewDecimal128Builder(memory.DefaultAllocator, dec.Arrow().(*arrow.Decimal128Type))
	for _, v := range []int64{150, -225, 300, 10, 700, -50, 200, 975} {
		db.Append(decimal128.FromI64(v))
	}
	ints := int64s(5, -3, 8, 1, 0, 12, -7, 4)
	floats, bools, decs := f.NewArray(), bo.NewArray(), db.NewArray()
	t.Cleanup(func() { ints.Release(); floats.Release(); bools.Release(); decs.Release() })
	var out []struct {
		c   Call
		in  types.Type
		col arrow.Array
	}
	for _, k := range []struct {
		kind Kind
		in   types.Type
		col  arrow.Array
	}{
		{CountStar, types.Type{}, nil}, {Count, types.TBigInt, ints}, {Sum, types.TBigInt, ints}, {Avg, types.TBigInt, ints},
		{Sum, types.TDouble, floats}, {Min, types.TDouble, floats}, {Max, types.TBigInt, ints}, {Min, types.TBoolean, bools},
		{Sum, dec, decs}, {Avg, dec, decs},
	} {
		res := types.TBigInt
		if k.kind != CountStar && k.kind != Count {
			var err error
			if res, err = ResultType(k.kind, k.in); err != nil {
				t.Fatal(err)
			}
		}
		arg := 0
		if k.kind == CountStar {
			arg = -1
		}
		out = append(out, struct {
			c   Call
			in  types.Type
			col arrow.Array
		}{Call{Kind: k.kind, Arg: arg, Filter: -1, Out: res, Name: fmt.Sprintf("%v(x)", k.kind)}, k.in, k.col})
	}
	return out
}

// TestNewInSameResults grows accumulators of NewIn and of New alike, from
// a few groups on the heap through blocks of growing size (each growth
// copying the slots into a new block), updating groups all along, and
// checks that every group's result is the same; then Release, a new
// accumulator reusing the blocks from empty slots, and the same again.
func TestNewInSameResults(t *testing.T) {
	m, err := memseg.NewManager(64<<20, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range inCalls(t) {
		t.Run(k.c.Name+"/"+k.in.String(), func(t *testing.T) {
			for round := range 2 {
				heap, err := New(k.c, k.in)
				if err != nil {
					t.Fatal(err)
				}
				in, err := NewIn(k.c, k.in, m)
				if err != nil {
					t.Fatal(err)
				}
				groups := 0
				for _, n := range []int{3, 100, 2500, 2600, 9000, 40000} {
					heap.Grow(n)
					in.Grow(n)
					rows, gs := make([]int32, 8), make([]int32, 8)
					for i := range rows {
						rows[i], gs[i] = int32(i), int32((groups+i*997)%n)
					}
					heap.Update(k.col, rows, gs)
					in.Update(k.col, rows, gs)
					groups = n
				}
				all := make([]int32, groups)
				for g := range all {
					all[g] = int32(g)
				}
				if want, got := results(t, heap, k.c.Out, all), results(t, in, k.c.Out, all); got != want {
					t.Fatalf("round %d: results differ from New's accumulator's", round)
				}
				Release(in)
			}
		})
	}
}

// TestNewInOffHeap: the columns of a window's many groups come from the
// Manager's blocks, so growing them allocates nothing on the Go heap
// once a released accumulator's blocks are on the free lists (MIN and
// MAX's column of a bit a group too, at 131 072 groups).
func TestNewInOffHeap(t *testing.T) {
	m, err := memseg.NewManager(64<<20, 32<<10)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range inCalls(t) {
		ac, err := NewIn(k.c, k.in, m)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(10, func() {
			ac.Grow(1 << 17)
			Release(ac)
		})
		if allocs > 0 {
			t.Errorf("%s: %v heap allocations per Grow of 131 072 groups", k.c.Name, allocs)
		}
	}
}
