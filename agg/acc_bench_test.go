package agg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// BenchmarkAccSum measures the update loop of SUM alone: a 4096-row batch
// into 1000 groups, per input type.
func BenchmarkAccSum(b *testing.B) {
	const rows, groups = 4096, 1000
	rs, gs := make([]int32, rows), make([]int32, rows)
	for i := range rs {
		rs[i], gs[i] = int32(i), int32(i*7%groups)
	}
	dec := types.DecimalOf(38, 2)
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	i32 := array.NewInt32Builder(memory.DefaultAllocator)
	db := array.NewDecimal128Builder(memory.DefaultAllocator, dec.Arrow().(*arrow.Decimal128Type))
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	for i := range rows {
		ib.Append(int64(i) * 1_000_003)
		i32.Append(int32(i))
		db.Append(decimal128.FromI64(int64(i) * 12345))
		fb.Append(float64(i*12345%100_000) / 100) // prices, as a CSV file holds them
	}
	for _, c := range []struct {
		name string
		in   types.Type
		col  arrow.Array
	}{
		{"bigint", types.TBigInt, ib.NewArray()},
		{"int", types.TInt, i32.NewArray()},
		{"decimal", dec, db.NewArray()},
		{"double", types.TDouble, fb.NewArray()},
	} {
		b.Run(c.name, func(b *testing.B) {
			out, err := ResultType(Sum, c.in)
			if err != nil {
				b.Fatal(err)
			}
			ac, err := New(Call{Kind: Sum, Arg: 0, Filter: -1, Out: out}, c.in)
			if err != nil {
				b.Fatal(err)
			}
			ac.Grow(groups)
			b.SetBytes(rows)
			for b.Loop() {
				ac.Update(c.col, rs, gs)
			}
		})
	}
}

// BenchmarkAccSumResult measures taking the results of a DOUBLE SUM: 4096
// groups of two prices each.
func BenchmarkAccSumResult(b *testing.B) {
	const groups = 4096
	rs, gs := make([]int32, groups), make([]int32, groups)
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	for i := range rs {
		rs[i], gs[i] = int32(i), int32(i*7%groups)
		fb.Append(float64(i*12345%100_000) / 100)
	}
	col := fb.NewArray()
	out, err := ResultType(Sum, types.TDouble)
	if err != nil {
		b.Fatal(err)
	}
	ac, err := New(Call{Kind: Sum, Arg: 0, Filter: -1, Out: out}, types.TDouble)
	if err != nil {
		b.Fatal(err)
	}
	ac.Grow(groups)
	ac.Update(col, rs, gs)
	ac.Update(col, rs[1:], gs[:groups-1])
	ob := array.NewFloat64Builder(memory.DefaultAllocator)
	for b.Loop() {
		if err := ac.AppendTo(ob, gs); err != nil {
			b.Fatal(err)
		}
		ob.NewArray().Release()
	}
}
