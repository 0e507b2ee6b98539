package memseg

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// KeyEncoder encodes the key columns of an Arrow batch's rows as full
// normalized keys: the bytes that key hash tables, assign key groups and
// name state in Pebble. All key columns are ascending, NULLs first.
//
// Reset binds the encoder to one batch; Append then encodes any row of it.
// The type dispatch happens once per column in Reset, not per row.
type KeyEncoder struct {
	cols []colEncoder
}

type colEncoder func(dst []byte, row int) []byte

// Reset binds the encoder to columns cols of b. The batch must stay alive
// while Append is used.
func (k *KeyEncoder) Reset(b arrow.RecordBatch, cols []int) error {
	k.cols = k.cols[:0]
	for _, c := range cols {
		enc, err := ColumnEncoder(b.Column(c), Order{})
		if err != nil {
			return fmt.Errorf("key column %d: %w", c, err)
		}
		k.cols = append(k.cols, enc)
	}
	return nil
}

// ResetArrays binds the encoder to the given columns.
func (k *KeyEncoder) ResetArrays(cols ...arrow.Array) error {
	k.cols = k.cols[:0]
	for i, c := range cols {
		enc, err := ColumnEncoder(c, Order{})
		if err != nil {
			return fmt.Errorf("key column %d: %w", i, err)
		}
		k.cols = append(k.cols, enc)
	}
	return nil
}

// Append appends the key of row to dst.
func (k *KeyEncoder) Append(dst []byte, row int) []byte {
	for _, enc := range k.cols {
		dst = enc(dst, row)
	}
	return dst
}

// ColumnEncoder returns a function that appends the normalized key, in
// order o, of a row of a: the one column of a KeyEncoder, for callers that
// need other orders. A column of the NULL type takes no bytes.
func ColumnEncoder(a arrow.Array, o Order) (func(dst []byte, row int) []byte, error) {
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendInt64(dst, v[i], o)
		}, nil
	case *array.Int32:
		v := a.Int32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Float64:
		v := a.Float64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendFloat64(dst, v[i], o)
		}, nil
	case *array.Float32:
		v := a.Float32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendFloat32(dst, v[i], o)
		}, nil
	case *array.Boolean:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			return AppendBool(dst, a.Value(i), o)
		}, nil
	case *array.String:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			v := a.Value(i) // aliases the array's data; AppendString only reads it
			return AppendString(dst, unsafe.Slice(unsafe.StringData(v), len(v)), o)
		}, nil
	case *array.Decimal128:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, o)
			}
			n := a.Value(i)
			return AppendDecimal128(dst, n.HighBits(), n.LowBits(), o)
		}, nil
	case *array.Null:
		return func(dst []byte, _ int) []byte { return dst }, nil
	}
	return nil, fmt.Errorf("cannot encode %s as a key", a.DataType())
}

// IntValues returns the values of an integer-like column (BIGINT, INT,
// DATE, TIMESTAMP: the columns whose keys AppendInt64 encodes) as
// int64s: the column's own for BIGINT and TIMESTAMP, widened into *wide
// for INT and DATE; false for a column of another type. The slots of
// NULLs hold any value.
func IntValues(a arrow.Array, wide *[]int64) ([]int64, bool) {
	switch a := a.(type) {
	case *array.Int64:
		return a.Int64Values(), true
	case *array.Timestamp:
		v := a.TimestampValues()
		return unsafe.Slice((*int64)(unsafe.SliceData(v)), len(v)), true
	case *array.Int32:
		*wide = (*wide)[:0]
		for _, v := range a.Int32Values() {
			*wide = append(*wide, int64(v))
		}
		return *wide, true
	case *array.Date32:
		*wide = (*wide)[:0]
		for _, v := range a.Date32Values() {
			*wide = append(*wide, int64(v))
		}
		return *wide, true
	}
	return nil, false
}

// TypeOf returns the memseg type of Arrow type t as ColumnEncoder encodes
// it; 0 for the NULL type.
func TypeOf(t arrow.DataType) (Type, error) {
	switch t.ID() {
	case arrow.NULL:
		return 0, nil
	case arrow.BOOL:
		return Bool, nil
	case arrow.INT32:
		return Int32, nil
	case arrow.INT64:
		return Int64, nil
	case arrow.FLOAT32:
		return Float32, nil
	case arrow.FLOAT64:
		return Float64, nil
	case arrow.DECIMAL128:
		return Decimal128, nil
	case arrow.STRING:
		return String, nil
	case arrow.DATE32:
		return Date32, nil
	case arrow.TIMESTAMP:
		return Timestamp, nil
	}
	return 0, fmt.Errorf("no normalized key for %s", t)
}

// DecodeColumn decodes the column of type t (0: the NULL type, which takes
// no bytes) in order o at the start of key, appends its value to b, the
// builder of the Arrow type TypeOf maps to t, or skips it when b is nil,
// and returns the bytes after it. Strings are decoded through *scratch,
// which it reuses.
func DecodeColumn(b array.Builder, t Type, o Order, key []byte, scratch *[]byte) (rest []byte, err error) {
	var null bool
	switch t {
	case 0:
		null, rest = true, key
	case Bool:
		var v bool
		if v, null, rest, err = DecodeBool(key, o); err == nil && b != nil && !null {
			b.(*array.BooleanBuilder).Append(v)
		}
	case Int32, Int64, Date32, Timestamp:
		var v int64
		if v, null, rest, err = DecodeInt64(key, o); err == nil && b != nil && !null {
			switch t {
			case Int32:
				b.(*array.Int32Builder).Append(int32(v))
			case Date32:
				b.(*array.Date32Builder).Append(arrow.Date32(v))
			case Timestamp:
				b.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			default:
				b.(*array.Int64Builder).Append(v)
			}
		}
	case Float32:
		var v float32
		if v, null, rest, err = DecodeFloat32(key, o); err == nil && b != nil && !null {
			b.(*array.Float32Builder).Append(v)
		}
	case Float64:
		var v float64
		if v, null, rest, err = DecodeFloat64(key, o); err == nil && b != nil && !null {
			b.(*array.Float64Builder).Append(v)
		}
	case Decimal128:
		var hi int64
		var lo uint64
		if hi, lo, null, rest, err = DecodeDecimal128(key, o); err == nil && b != nil && !null {
			b.(*array.Decimal128Builder).Append(decimal128.New(hi, lo))
		}
	case String:
		if *scratch, null, rest, err = DecodeString((*scratch)[:0], key, o); err == nil && b != nil && !null {
			b.(*array.StringBuilder).BinaryBuilder.Append(*scratch)
		}
	default:
		err = fmt.Errorf("%w: key column of type %v", ErrCorrupt, t)
	}
	if err != nil {
		return nil, err
	}
	if null && b != nil {
		b.AppendNull()
	}
	return rest, nil
}
