package exec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// rowKeyTypes are the column types a RowKey takes.
var rowKeyTypes = []types.Type{
	types.TBoolean, types.TInt, types.TBigInt, types.TFloat, types.TDouble,
	types.TString, types.TDate, types.TTimestamp, types.DecimalOf(20, 4), types.TNull,
}

// randomBatch returns n random rows of schema s, a third of them NULL,
// with strings that hold zero bytes and floats that are NaN or -0.0.
func randomBatch(t *testing.T, rng *rand.Rand, s types.Schema, n int) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, s.Arrow())
	defer b.Release()
	floats := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1.5, -2.25}
	for range n {
		for c, f := range b.Fields() {
			if rng.IntN(3) == 0 || s[c].Type.Kind == types.Null {
				f.AppendNull()
				continue
			}
			v := rng.Int64N(7) - 3
			switch f := f.(type) {
			case *array.BooleanBuilder:
				f.Append(v > 0)
			case *array.Int32Builder:
				f.Append(int32(v))
			case *array.Int64Builder:
				f.Append(v << 40)
			case *array.Float32Builder:
				f.Append(float32(floats[rng.IntN(len(floats))]))
			case *array.Float64Builder:
				f.Append(floats[rng.IntN(len(floats))])
			case *array.StringBuilder:
				bs := make([]byte, rng.IntN(6))
				for i := range bs {
					bs[i] = []byte{0, 1, 'a', 0xff, 'z'}[rng.IntN(5)]
				}
				f.BinaryBuilder.Append(bs)
			case *array.Date32Builder:
				f.Append(arrow.Date32(v))
			case *array.TimestampBuilder:
				f.Append(arrow.Timestamp(v * 1000))
			case *array.Decimal128Builder:
				f.Append(decimal128.New(v, uint64(rng.Int64())))
			default:
				t.Fatalf("no value for %T", f)
			}
		}
	}
	return b.NewRecordBatch()
}

// TestKeyRowsDecode checks KeyRows against RowKey.Decode, the row by row
// decoding: random schemas, partitions and orders (floats among them,
// DESC and NULLS LAST), random rows, and a random mix of keys (some
// referred to more than once) and rows of a sliced input batch.
func TestKeyRowsDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		var s types.Schema
		for c := range 1 + rng.IntN(6) {
			s = append(s, types.Field{Name: string(rune('a' + c)), Type: rowKeyTypes[rng.IntN(len(rowKeyTypes))]})
		}
		var part []int
		var order []SortKey
		for c := range s {
			switch rng.IntN(3) {
			case 0:
				part = append(part, c)
			case 1:
				order = append(order, SortKey{Col: c, Desc: rng.IntN(2) == 0, NullsLast: rng.IntN(2) == 0})
			}
		}
		k, err := NewRowKey(s, -1, part, order)
		if err != nil {
			continue // only NULL columns: no key
		}
		full := randomBatch(t, rng, s, 40)
		in := full.NewSlice(int64(rng.IntN(5)), 40)
		full.Release()
		if err := k.Bind(in); err != nil {
			t.Fatal(err)
		}
		// want holds the expected rows, decoded row by row from their keys.
		want := array.NewRecordBuilder(memory.DefaultAllocator, s.Arrow())
		rows := NewKeyRows(k)
		if iter%2 == 0 {
			if err := rows.Bind(in); err != nil {
				t.Fatal(err)
			}
		}
		var refs []Ref
		var keys [][]byte
		for range rng.IntN(60) {
			r := rng.IntN(int(in.NumRows()))
			key := k.Append(nil, r)
			switch {
			case iter%2 == 0 && rng.IntN(3) == 0:
				rows.Add(InputRow(r))
			case len(refs) > 0 && rng.IntN(3) == 0:
				i := rng.IntN(len(refs))
				rows.Add(refs[i])
				key = keys[i]
			default:
				refs = append(refs, rows.Key(key))
				keys = append(keys, key)
				rows.Add(refs[len(refs)-1])
			}
			if err := k.Decode(key, want.Fields()); err != nil {
				t.Fatal(err)
			}
		}
		cols, err := rows.Build(memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		wb := want.NewRecordBatch()
		for c := range s {
			if !sameColumn(wb.Column(c), cols[c]) {
				t.Fatalf("iter %d: column %d (%s) of part %v order %v:\n got %v\nwant %v", iter, c, s[c].Type, part, order, cols[c], wb.Column(c))
			}
			cols[c].Release()
		}
		if rows.Len() != 0 {
			t.Fatalf("%d rows after Build", rows.Len())
		}
		wb.Release()
		want.Release()
		in.Release()
	}
}

// sameColumn compares two arrays value by value, floats by their bits.
func sameColumn(a, b arrow.Array) bool {
	if a.Len() != b.Len() || a.NullN() != b.NullN() || !arrow.TypeEqual(a.DataType(), b.DataType()) {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if a.IsNull(i) {
			continue
		}
		switch a := a.(type) {
		case *array.Float64:
			if math.Float64bits(a.Value(i)) != math.Float64bits(b.(*array.Float64).Value(i)) {
				return false
			}
		case *array.Float32:
			if math.Float32bits(a.Value(i)) != math.Float32bits(b.(*array.Float32).Value(i)) {
				return false
			}
		default:
			if a.ValueStr(i) != b.ValueStr(i) {
				return false
			}
		}
	}
	return true
}

// TestKeyRowsInputFloats checks that rows of the input keep their floats'
// exact bits (-0.0, NaN payloads) as the keys do.
func TestKeyRowsInputFloats(t *testing.T) {
	s := types.Schema{{Name: "f", Type: types.TDouble}, {Name: "g", Type: types.TFloat}}
	b := array.NewRecordBuilder(memory.DefaultAllocator, s.Arrow())
	nan := math.Float64frombits(0x7ff8000000000123)
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{math.Copysign(0, -1), nan}, nil)
	b.Field(1).(*array.Float32Builder).AppendValues([]float32{float32(math.Copysign(0, -1)), 1}, nil)
	in := b.NewRecordBatch()
	b.Release()
	defer in.Release()
	k, err := NewRowKey(s, -1, []int{0}, []SortKey{{Col: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Bind(in); err != nil {
		t.Fatal(err)
	}
	rows := NewKeyRows(k)
	if err := rows.Bind(in); err != nil {
		t.Fatal(err)
	}
	rows.Add(InputRow(1))
	rows.Add(rows.Key(k.Append(nil, 0)))
	rows.Add(rows.Key(k.Append(nil, 1)))
	cols, err := rows.Build(memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	f := cols[0].(*array.Float64).Float64Values()
	if math.Float64bits(f[0]) != 0x7ff8000000000123 || math.Float64bits(f[1]) != 1<<63 || math.Float64bits(f[2]) != 0x7ff8000000000123 {
		t.Fatalf("floats %x", []uint64{math.Float64bits(f[0]), math.Float64bits(f[1]), math.Float64bits(f[2])})
	}
	for _, c := range cols {
		c.Release()
	}
}

// TestKeyRowsCorrupt checks that a key with bytes left over is refused.
func TestKeyRowsCorrupt(t *testing.T) {
	s := types.Schema{{Name: "a", Type: types.TBigInt}}
	k, err := NewRowKey(s, -1, []int{0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := NewKeyRows(k)
	rows.Add(rows.Key([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 9}))
	if _, err := rows.Build(memory.DefaultAllocator); err == nil {
		t.Fatal("no error for a key with a byte left over")
	}
	rows.Add(rows.Key([]byte{1, 0}))
	if _, err := rows.Build(memory.DefaultAllocator); err == nil {
		t.Fatal("no error for a short key")
	}
}
