package agg

import (
	"slices"
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

// BenchmarkAccManyGroups measures the update loop of an accumulator over
// a window of a million groups, each 4096-row batch's rows at random
// among them: every update waits for memory, once per line of the
// group's slots it touches.
func BenchmarkAccManyGroups(b *testing.B) {
	const rows, many = 4096, 1 << 20
	rs, scattered := make([]int32, rows), make([]int32, rows)
	for i := range rs {
		rs[i], scattered[i] = int32(i), int32(uint32(i)*2654435761%many)
	}
	dec := types.DecimalOf(38, 2)
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	db := array.NewDecimal128Builder(memory.DefaultAllocator, dec.Arrow().(*arrow.Decimal128Type))
	for i := range rows {
		ib.Append(int64(i) * 1_000_003)
		db.Append(decimal128.FromI64(int64(i) * 12345))
	}
	ints, decs := ib.NewArray(), db.NewArray()
	for _, c := range []struct {
		name string
		kind Kind
		in   types.Type
		col  arrow.Array
	}{
		{"count", Count, types.TBigInt, ints},
		{"sum-bigint", Sum, types.TBigInt, ints},
		{"sum-decimal", Sum, dec, decs},
		{"max-bigint", Max, types.TBigInt, ints},
	} {
		b.Run(c.name, func(b *testing.B) {
			out := types.TBigInt
			if c.kind != Count {
				var err error
				if out, err = ResultType(c.kind, c.in); err != nil {
					b.Fatal(err)
				}
			}
			ac, err := New(Call{Kind: c.kind, Arg: 0, Filter: -1, Out: out}, c.in)
			if err != nil {
				b.Fatal(err)
			}
			ac.Grow(many)
			gs := slices.Clone(scattered)
			b.SetBytes(rows)
			for b.Loop() {
				ac.Update(c.col, rs, gs)
				for i := range gs {
					gs[i] = (gs[i] + 7919) % many
				}
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

// BenchmarkAppendToCold measures a window's firing as a window subtask
// at parallelism 2 does it: the results of SUM, MIN and COUNT of 3 200
// groups taken in key order (a permutation of the group numbers) from
// columns that have left the cache (a 64 MB sweep between firings, not
// timed), and, for the cost of warming columns that are in the cache,
// the same without the sweep.
func BenchmarkAppendToCold(b *testing.B) {
	const groups, rows = 3200, 9600
	rs, gs := make([]int32, rows), make([]int32, rows)
	for i := range rs {
		rs[i], gs[i] = int32(i), int32(i*7919%groups)
	}
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	for i := range rows {
		fb.Append(float64(i*12345%100_000) / 100)
	}
	col := fb.NewArray()
	order := make([]int32, groups)
	for i := range order {
		order[i] = int32(i * 1237 % groups) // 1237 is prime to 3200
	}
	var accs []Acc
	for _, k := range []Kind{Sum, Min, Count} {
		out, err := ResultType(k, types.TDouble)
		if err != nil {
			b.Fatal(err)
		}
		ac, err := New(Call{Kind: k, Arg: 0, Filter: -1, Out: out}, types.TDouble)
		if err != nil {
			b.Fatal(err)
		}
		ac.Grow(groups)
		ac.Update(col, rs, gs)
		accs = append(accs, ac)
	}
	sweep := make([]byte, 64<<20)
	for _, cold := range []bool{true, false} {
		name := "hot"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if cold {
					b.StopTimer()
					for i := 0; i < len(sweep); i += 64 {
						sweep[i]++
					}
					b.StartTimer()
				}
				for _, ac := range accs {
					var bld array.Builder = array.NewFloat64Builder(memory.DefaultAllocator)
					if _, ok := ac.(*countAcc); ok {
						bld = array.NewInt64Builder(memory.DefaultAllocator)
					}
					if err := ac.AppendTo(bld, order); err != nil {
						b.Fatal(err)
					}
					bld.Release()
				}
			}
		})
	}
}
