package memseg

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestColumnRoundTrip: every type ColumnEncoder encodes, in every order,
// decodes back through DecodeColumn to the same values, NULLs included,
// and a skipping decode consumes exactly the same bytes.
func TestColumnRoundTrip(t *testing.T) {
	mem := memory.DefaultAllocator
	build := func(dt arrow.DataType, fill func(b array.Builder)) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		fill(b)
		b.AppendNull()
		return b.NewArray()
	}
	cols := []arrow.Array{
		build(arrow.FixedWidthTypes.Boolean, func(b array.Builder) { b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil) }),
		build(arrow.PrimitiveTypes.Int32, func(b array.Builder) { b.(*array.Int32Builder).AppendValues([]int32{-5, 0, 1 << 30}, nil) }),
		build(arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).AppendValues([]int64{-1 << 62, 7}, nil) }),
		build(arrow.PrimitiveTypes.Float32, func(b array.Builder) { b.(*array.Float32Builder).AppendValues([]float32{-1.5, 3}, nil) }),
		build(arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).AppendValues([]float64{-2.25, 1e300}, nil) }),
		build(&arrow.Decimal128Type{Precision: 10, Scale: 2}, func(b array.Builder) {
			b.(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-12345), decimal128.FromI64(99)}, nil)
		}),
		build(arrow.BinaryTypes.String, func(b array.Builder) { b.(*array.StringBuilder).AppendValues([]string{"", "a\x00b", "日本"}, nil) }),
		build(arrow.FixedWidthTypes.Date32, func(b array.Builder) { b.(*array.Date32Builder).AppendValues([]arrow.Date32{-1, 19000}, nil) }),
		build(&arrow.TimestampType{Unit: arrow.Millisecond}, func(b array.Builder) {
			b.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-1000, 1704067200000}, nil)
		}),
	}
	for _, col := range cols {
		defer col.Release()
		typ, err := TypeOf(col.DataType())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Order{{}, {Desc: true}, {NullsLast: true}, {Desc: true, NullsLast: true}} {
			enc, err := ColumnEncoder(col, o)
			if err != nil {
				t.Fatal(err)
			}
			out := array.NewBuilder(mem, col.DataType())
			var scratch []byte
			for i := 0; i < col.Len(); i++ {
				key := append(enc(nil, i), 0xAB) // a following column's byte
				rest, err := DecodeColumn(out, typ, o, key, &scratch)
				if err != nil || len(rest) != 1 || rest[0] != 0xAB {
					t.Fatalf("%s %+v row %d: rest %x, %v", col.DataType(), o, i, rest, err)
				}
				if skipped, err := DecodeColumn(nil, typ, o, key, &scratch); err != nil || len(skipped) != 1 {
					t.Fatalf("%s %+v row %d: skipping left %x, %v", col.DataType(), o, i, skipped, err)
				}
			}
			got := out.NewArray()
			out.Release()
			if !array.Equal(got, col) {
				t.Errorf("%s %+v: decoded %v, encoded %v", col.DataType(), o, got, col)
			}
			got.Release()
		}
	}
}
