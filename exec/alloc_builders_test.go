package exec

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
)

// TestPoolAllocBuilders builds arrays of every type strand uses, with
// NULLs, through Arrow's builders out of the run's pool in the poison
// debug mode (what Reallocate adds is garbage) and checks them against
// the same arrays out of Go's zeroed memory: a builder growing its
// buffers (from 32 values to 4096, by doubling, and again after a batch
// is handed over) must not read bytes it has not written.
func TestPoolAllocBuilders(t *testing.T) {
	defer expr.SetAllocPoison(expr.SetAllocPoison(true))
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	cases := []struct {
		dt  arrow.DataType
		add func(b array.Builder, i int)
	}{
		{arrow.FixedWidthTypes.Boolean, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(i%3 == 0) }},
		{arrow.PrimitiveTypes.Int8, func(b array.Builder, i int) { b.(*array.Int8Builder).Append(int8(i)) }},
		{arrow.PrimitiveTypes.Int16, func(b array.Builder, i int) { b.(*array.Int16Builder).Append(int16(i * 3)) }},
		{arrow.PrimitiveTypes.Int32, func(b array.Builder, i int) { b.(*array.Int32Builder).Append(int32(i * 7)) }},
		{arrow.PrimitiveTypes.Int64, func(b array.Builder, i int) { b.(*array.Int64Builder).Append(int64(i) << 33) }},
		{arrow.PrimitiveTypes.Float32, func(b array.Builder, i int) { b.(*array.Float32Builder).Append(float32(i) / 4) }},
		{arrow.PrimitiveTypes.Float64, func(b array.Builder, i int) { b.(*array.Float64Builder).Append(float64(i) / 8) }},
		{&arrow.Decimal128Type{Precision: 20, Scale: 4}, func(b array.Builder, i int) {
			b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 12345))
		}},
		{arrow.BinaryTypes.String, func(b array.Builder, i int) {
			b.(*array.StringBuilder).Append(fmt.Sprintf("s%d-%s", i, string(make([]byte, i%7))))
		}},
		{arrow.BinaryTypes.Binary, func(b array.Builder, i int) { b.(*array.BinaryBuilder).Append([]byte{byte(i), byte(i >> 8)}) }},
		{arrow.FixedWidthTypes.Date32, func(b array.Builder, i int) { b.(*array.Date32Builder).Append(arrow.Date32(i * 100)) }},
		{arrow.FixedWidthTypes.Timestamp_ms, func(b array.Builder, i int) {
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 123456789))
		}},
		{arrow.FixedWidthTypes.MonthInterval, func(b array.Builder, i int) { b.(*array.MonthIntervalBuilder).Append(arrow.MonthInterval(i)) }},
		{st, func(b array.Builder, i int) {
			sb := b.(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(i))
			if i%4 == 0 {
				sb.FieldBuilder(1).AppendNull()
			} else {
				sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprint(i))
			}
		}},
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), func(b array.Builder, i int) {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			for k := range i % 4 {
				if k == 2 {
					lb.ValueBuilder().AppendNull()
				} else {
					lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + k))
				}
			}
		}},
		{arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), func(b array.Builder, i int) {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			for k := range i % 3 {
				mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprint("k", k))
				mb.ItemBuilder().(*array.Int64Builder).Append(int64(i * k))
			}
		}},
	}
	pool := newPoolAlloc()
	for _, c := range cases {
		build := func(a memory.Allocator) []arrow.Array {
			b := array.NewBuilder(a, c.dt)
			defer b.Release()
			var out []arrow.Array
			for _, n := range []int{4096, 1000, 4096} { // reused after each batch
				for i := range n {
					if (i*7)%5 == 0 {
						b.AppendNull()
					} else {
						c.add(b, i)
					}
				}
				out = append(out, b.NewArray())
			}
			return out
		}
		// Dirty the pool's free buffers, then build through it.
		for _, a := range build(pool) {
			a.Release()
		}
		want, got := build(memory.NewGoAllocator()), build(pool)
		for k := range want {
			if err := array.ValidateFull(got[k]); err != nil {
				t.Fatalf("%s batch %d: %v", c.dt, k, err)
			}
			if !array.Equal(want[k], got[k]) {
				t.Fatalf("%s batch %d differs out of the poisoned pool", c.dt, k)
			}
			want[k].Release()
			got[k].Release()
		}
	}
}
