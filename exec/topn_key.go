package exec

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// topnKey encodes a Top-N's buffered rows. A row is kept as one
// normalized key (memseg's order-preserving encoding) and nothing else:
// the key sorts the row, and decodes back into it when its window fires.
// The key's columns, in order:
//
//	window_end                          ascending: windows come out in firing order
//	the further partition columns       ascending, NULLs first
//	the ORDER BY columns                as written
//	every other column                  ascending, NULLs first; FLOAT and DOUBLE as their bits
//	the bits of partition and ORDER BY  FLOAT and DOUBLE columns
//
// Every column is in the key, so rows that tie on the ORDER BY are ordered
// by their other values: which rows a LIMIT keeps depends on the rows
// alone, not on the order in which parallel upstream subtasks delivered
// them, and two rows with equal keys are equal. The normalized float
// encoding folds -0.0 into 0.0 and every NaN into one, so floats are also
// kept as their exact bits, which is what decoding returns.
type topnKey struct {
	cols []keyCol
	// part is how many leading columns (window_end and the further
	// partition columns) make up the partition.
	part   int
	layout *memseg.Layout
	enc    []func(dst []byte, row int) []byte
	str    []byte // scratch for decoding strings
}

// keyCol is one column of a topnKey.
type keyCol struct {
	col   int         // the input (and output) column
	typ   memseg.Type // 0 for a NULL-typed column, which takes no bytes
	order memseg.Order
	// bits marks the IEEE bits of a FLOAT (f32) or DOUBLE column, encoded
	// as a BIGINT.
	bits, f32 bool
	// skip marks a normalized float whose bits come later: decoding steps
	// over it.
	skip bool
}

func (c keyCol) String() string {
	return fmt.Sprintf("%d:%v:%v:%v:%v:%v", c.col, c.typ, c.order.Desc, c.order.NullsLast, c.bits, c.skip)
}

// newTopNKey lays out the key of spec's rows.
func newTopNKey(spec *TopNSpec) (*topnKey, error) {
	in := spec.In
	k := &topnKey{}
	used := make([]bool, len(in))
	var floats []keyCol // the bits to append after the other columns
	add := func(c int, o memseg.Order, tail bool) error {
		if c < 0 || c >= len(in) {
			return fmt.Errorf("top-n: column %d out of range", c)
		}
		if used[c] {
			return nil
		}
		used[c] = true
		t, err := memType(in[c].Type)
		if err != nil {
			return fmt.Errorf("top-n: column %s: %w", in[c].Name, err)
		}
		kc := keyCol{col: c, typ: t, order: o}
		if t == memseg.Float32 || t == memseg.Float64 {
			bits := keyCol{col: c, typ: memseg.Int64, bits: true, f32: t == memseg.Float32}
			if tail {
				k.cols = append(k.cols, bits)
				return nil
			}
			kc.skip = true
			floats = append(floats, bits)
		}
		k.cols = append(k.cols, kc)
		return nil
	}
	if err := add(spec.WindowEnd, memseg.Order{}, false); err != nil {
		return nil, err
	}
	if k.cols[0].typ != memseg.Timestamp {
		return nil, fmt.Errorf("top-n: window_end column %s is %s, not a TIMESTAMP", in[spec.WindowEnd].Name, in[spec.WindowEnd].Type)
	}
	for _, c := range spec.Partition {
		if err := add(c, memseg.Order{}, false); err != nil {
			return nil, err
		}
	}
	k.part = len(k.cols)
	for _, o := range spec.Order {
		if err := add(o.Col, memseg.Order{Desc: o.Desc, NullsLast: o.NullsLast}, false); err != nil {
			return nil, err
		}
	}
	for c := range in {
		if err := add(c, memseg.Order{}, true); err != nil {
			return nil, err
		}
	}
	k.cols = append(k.cols, floats...)
	var lc []memseg.KeyCol
	for _, c := range k.cols {
		if c.typ != 0 {
			lc = append(lc, memseg.KeyCol{Type: c.typ, Order: c.order})
		}
	}
	var err error
	if k.layout, err = memseg.NewLayout(lc...); err != nil {
		return nil, fmt.Errorf("top-n: %w", err)
	}
	return k, nil
}

// memType is the memseg type that holds values of t; 0 for NULL.
func memType(t types.Type) (memseg.Type, error) {
	switch t.Kind {
	case types.Null:
		return 0, nil
	case types.Boolean:
		return memseg.Bool, nil
	case types.Int, types.IntervalYearMonth:
		return memseg.Int32, nil
	case types.BigInt, types.IntervalDayTime:
		return memseg.Int64, nil
	case types.Float:
		return memseg.Float32, nil
	case types.Double:
		return memseg.Float64, nil
	case types.Decimal:
		return memseg.Decimal128, nil
	case types.String:
		return memseg.String, nil
	case types.Date:
		return memseg.Date32, nil
	case types.Timestamp, types.TimestampLTZ:
		return memseg.Timestamp, nil
	}
	return 0, fmt.Errorf("cannot sort values of type %s", t)
}

// bind prepares append for the rows of b. The type dispatch happens here,
// once per column and batch, not per row.
func (k *topnKey) bind(b arrow.RecordBatch) error {
	k.enc = k.enc[:0]
	for _, c := range k.cols {
		f, err := keyEncoder(b.Column(c.col), c)
		if err != nil {
			return fmt.Errorf("top-n: column %d: %w", c.col, err)
		}
		k.enc = append(k.enc, f)
	}
	return nil
}

// append appends the key of row of the bound batch to dst.
func (k *topnKey) append(dst []byte, row int) []byte {
	for _, f := range k.enc {
		dst = f(dst, row)
	}
	return dst
}

func keyEncoder(a arrow.Array, c keyCol) (func(dst []byte, i int) []byte, error) {
	o := c.order
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, v[i], o)
		}, nil
	case *array.Int32:
		v := a.Int32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Timestamp:
		v := a.TimestampValues()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Date32:
		v := a.Date32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, int64(v[i]), o)
		}, nil
	case *array.Float64:
		v := a.Float64Values()
		if c.bits {
			return func(dst []byte, i int) []byte {
				if a.IsNull(i) {
					return memseg.AppendNull(dst, o)
				}
				return memseg.AppendInt64(dst, int64(math.Float64bits(v[i])), o)
			}, nil
		}
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendFloat64(dst, v[i], o)
		}, nil
	case *array.Float32:
		v := a.Float32Values()
		if c.bits {
			return func(dst []byte, i int) []byte {
				if a.IsNull(i) {
					return memseg.AppendNull(dst, o)
				}
				return memseg.AppendInt64(dst, int64(math.Float32bits(v[i])), o)
			}, nil
		}
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendFloat32(dst, v[i], o)
		}, nil
	case *array.Boolean:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendBool(dst, a.Value(i), o)
		}, nil
	case *array.String:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			v := a.Value(i) // aliases the array; AppendString only reads it
			return memseg.AppendString(dst, unsafe.Slice(unsafe.StringData(v), len(v)), o)
		}, nil
	case *array.Decimal128:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			n := a.Value(i)
			return memseg.AppendDecimal128(dst, n.HighBits(), n.LowBits(), o)
		}, nil
	case *array.Null:
		return func(dst []byte, _ int) []byte { return dst }, nil
	}
	return nil, fmt.Errorf("cannot encode %s in a sort key", a.DataType())
}

// windowEnd reads the window_end a key starts with.
func windowEnd(key []byte) (int64, error) {
	v, null, _, err := memseg.DecodeInt64(key, memseg.Order{})
	if err == nil && null {
		err = fmt.Errorf("%w: NULL window_end", memseg.ErrCorrupt)
	}
	return v, err
}

// partition returns the length of key's partition: its window_end and
// further partition columns.
func (k *topnKey) partition(key []byte) (int, error) {
	b := key
	for i := range k.cols[:k.part] {
		var err error
		if b, err = k.column(&k.cols[i], b, nil); err != nil {
			return 0, err
		}
	}
	return len(key) - len(b), nil
}

// decode appends the row of key to bld, the builders of the input columns.
func (k *topnKey) decode(key []byte, bld []array.Builder) error {
	b := key
	for i := range k.cols {
		c := &k.cols[i]
		out := bld[c.col]
		if c.skip {
			out = nil
		}
		var err error
		if b, err = k.column(c, b, out); err != nil {
			return err
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d bytes after the last column", memseg.ErrCorrupt, len(b))
	}
	return nil
}

// column decodes the column c at the start of b into out (nil: skip it)
// and returns the bytes after it.
func (k *topnKey) column(c *keyCol, b []byte, out array.Builder) ([]byte, error) {
	o := c.order
	var null bool
	var err error
	switch c.typ {
	case 0:
		null = true
	case memseg.Bool:
		var v bool
		if v, null, b, err = memseg.DecodeBool(b, o); err == nil && out != nil && !null {
			out.(*array.BooleanBuilder).Append(v)
		}
	case memseg.Int32, memseg.Int64, memseg.Date32, memseg.Timestamp:
		var v int64
		if v, null, b, err = memseg.DecodeInt64(b, o); err == nil && out != nil && !null {
			switch {
			case c.bits && c.f32:
				out.(*array.Float32Builder).Append(math.Float32frombits(uint32(v)))
			case c.bits:
				out.(*array.Float64Builder).Append(math.Float64frombits(uint64(v)))
			case c.typ == memseg.Int32:
				out.(*array.Int32Builder).Append(int32(v))
			case c.typ == memseg.Date32:
				out.(*array.Date32Builder).Append(arrow.Date32(v))
			case c.typ == memseg.Timestamp:
				out.(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			default:
				out.(*array.Int64Builder).Append(v)
			}
		}
	case memseg.Float32:
		var v float32
		if v, null, b, err = memseg.DecodeFloat32(b, o); err == nil && out != nil && !null {
			out.(*array.Float32Builder).Append(v)
		}
	case memseg.Float64:
		var v float64
		if v, null, b, err = memseg.DecodeFloat64(b, o); err == nil && out != nil && !null {
			out.(*array.Float64Builder).Append(v)
		}
	case memseg.Decimal128:
		var hi int64
		var lo uint64
		if hi, lo, null, b, err = memseg.DecodeDecimal128(b, o); err == nil && out != nil && !null {
			out.(*array.Decimal128Builder).Append(decimal128.New(hi, lo))
		}
	case memseg.String:
		if k.str, null, b, err = memseg.DecodeString(k.str[:0], b, o); err == nil && out != nil && !null {
			out.(*array.StringBuilder).BinaryBuilder.Append(k.str)
		}
	default:
		err = fmt.Errorf("%w: column type %v", memseg.ErrCorrupt, c.typ)
	}
	if err != nil {
		return nil, fmt.Errorf("top-n: decoding column %d: %w", c.col, err)
	}
	if null && out != nil {
		out.AppendNull()
	}
	return b, nil
}
