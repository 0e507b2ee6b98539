package window

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/memseg"
)

// A group's key is the memseg normalized key (ascending, NULLs first) of
// its key columns, the encoding memseg.KeyEncoder writes. The aggregate
// keeps only that key, not the columns' values: a fired group's key
// columns, and a spilled DISTINCT value, are decoded from it. Floats come
// back normalized as the encoding makes them: -0.0 as 0.0.

// decoder reads one column of a normalized key: with b nil it only skips
// the column.
type decoder func(b array.Builder, key []byte) (rest []byte, err error)

// decoderFor returns the decoder of a column of Arrow type t.
func decoderFor(t arrow.DataType) (decoder, error) {
	var asc memseg.Order
	switch t.ID() {
	case arrow.INT64, arrow.INT32, arrow.DATE32, arrow.TIMESTAMP:
		return func(b array.Builder, key []byte) ([]byte, error) {
			v, null, rest, err := memseg.DecodeInt64(key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
				return rest, nil
			}
			putInt(b, v)
			return rest, nil
		}, nil
	case arrow.FLOAT64:
		return func(b array.Builder, key []byte) ([]byte, error) {
			v, null, rest, err := memseg.DecodeFloat64(key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
			} else {
				b.(*array.Float64Builder).Append(v)
			}
			return rest, nil
		}, nil
	case arrow.FLOAT32:
		return func(b array.Builder, key []byte) ([]byte, error) {
			v, null, rest, err := memseg.DecodeFloat32(key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
			} else {
				b.(*array.Float32Builder).Append(v)
			}
			return rest, nil
		}, nil
	case arrow.BOOL:
		return func(b array.Builder, key []byte) ([]byte, error) {
			v, null, rest, err := memseg.DecodeBool(key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
			} else {
				b.(*array.BooleanBuilder).Append(v)
			}
			return rest, nil
		}, nil
	case arrow.DECIMAL128:
		return func(b array.Builder, key []byte) ([]byte, error) {
			hi, lo, null, rest, err := memseg.DecodeDecimal128(key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
			} else {
				b.(*array.Decimal128Builder).Append(decimal128.New(hi, lo))
			}
			return rest, nil
		}, nil
	case arrow.STRING:
		var buf []byte
		return func(b array.Builder, key []byte) ([]byte, error) {
			var (
				null bool
				rest []byte
				err  error
			)
			buf, null, rest, err = memseg.DecodeString(buf[:0], key, asc)
			if err != nil || b == nil {
				return rest, err
			}
			if null {
				b.AppendNull()
			} else {
				b.(*array.StringBuilder).BinaryBuilder.Append(buf)
			}
			return rest, nil
		}, nil
	}
	return nil, fmt.Errorf("no key decoder for %s", t)
}

// keyDecoder decodes whole group keys.
type keyDecoder []decoder

func newKeyDecoder(types []arrow.DataType) (keyDecoder, error) {
	d := make(keyDecoder, len(types))
	for i, t := range types {
		var err error
		if d[i], err = decoderFor(t); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// decode appends the key's column values to bs, one builder per column.
func (d keyDecoder) decode(bs []array.Builder, key []byte) error {
	for i, dec := range d {
		var err error
		if key, err = dec(bs[i], key); err != nil {
			return fmt.Errorf("%w: %w", errState, err)
		}
	}
	return nil
}

// len returns the length of the group key that b starts with.
func (d keyDecoder) len(b []byte) (int, error) {
	rest := b
	for _, dec := range d {
		var err error
		if rest, err = dec(nil, rest); err != nil {
			return 0, fmt.Errorf("%w: %w", errState, err)
		}
	}
	return len(b) - len(rest), nil
}
