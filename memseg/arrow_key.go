package memseg

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
		enc, err := encoderFor(b.Column(c))
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
		enc, err := encoderFor(c)
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

var asc = Order{}

func encoderFor(a arrow.Array) (colEncoder, error) {
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendInt64(dst, v[i], asc)
		}, nil
	case *array.Int32:
		v := a.Int32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendInt64(dst, int64(v[i]), asc)
		}, nil
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendInt64(dst, int64(v[i]), asc)
		}, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendInt64(dst, int64(v[i]), asc)
		}, nil
	case *array.Float64:
		v := a.Float64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendFloat64(dst, v[i], asc)
		}, nil
	case *array.Float32:
		v := a.Float32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendFloat32(dst, v[i], asc)
		}, nil
	case *array.Boolean:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			return AppendBool(dst, a.Value(i), asc)
		}, nil
	case *array.String:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			v := a.Value(i) // aliases the array's data; AppendString only reads it
			return AppendString(dst, unsafe.Slice(unsafe.StringData(v), len(v)), asc)
		}, nil
	case *array.Decimal128:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return AppendNull(dst, asc)
			}
			n := a.Value(i)
			return AppendDecimal128(dst, n.HighBits(), n.LowBits(), asc)
		}, nil
	}
	return nil, fmt.Errorf("cannot encode %s as a key", a.DataType())
}
