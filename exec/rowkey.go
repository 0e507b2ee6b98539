package exec

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// RowKey encodes a whole row as one normalized key (memseg's
// order-preserving encoding), for operators that keep rows as keys and
// nothing else (a Top-N, a deduplication, an OVER aggregate): the key
// sorts the row, and decodes back into it. The key's columns, in order:
//
//	the leading column, if any          ascending (a window Top-N's window_end)
//	the partition columns               ascending, NULLs first
//	the ORDER BY columns                as written
//	every other column                  ascending, NULLs first; FLOAT and DOUBLE as their bits
//	the bits of partition and ORDER BY  FLOAT and DOUBLE columns
//
// Every column is in the key, so rows that tie on the ORDER BY are ordered
// by their other values: which rows come first depends on the rows alone,
// not on the order in which parallel upstream subtasks delivered them, and
// two rows with equal keys are equal. The normalized float encoding folds
// -0.0 into 0.0 and every NaN into one, so floats are also kept as their
// exact bits, which is what decoding returns.
type RowKey struct {
	cols []keyCol
	// part is how many leading columns (the leading column and the
	// partition columns) make up the partition; order how many make up
	// the partition and the ORDER BY.
	part, order int
	layout      *memseg.Layout
	types       []arrow.DataType // of the input columns
	enc         []func(dst []byte, row int) []byte
	str         []byte // scratch for decoding strings
}

// keyCol is one column of a RowKey.
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

// SortKey is one ORDER BY column.
type SortKey struct {
	Col             int
	Desc, NullsLast bool
}

// NewRowKey lays out the key of rows of in: the TIMESTAMP column lead
// first unless lead is -1, then the partition columns, the order, and the
// rest.
func NewRowKey(in types.Schema, lead int, partition []int, order []SortKey) (*RowKey, error) {
	k := &RowKey{}
	for _, f := range in {
		k.types = append(k.types, f.Type.Arrow())
	}
	used := make([]bool, len(in))
	var floats []keyCol // the bits to append after the other columns
	add := func(c int, o memseg.Order, tail bool) error {
		if c < 0 || c >= len(in) {
			return fmt.Errorf("row key: column %d out of range", c)
		}
		if used[c] {
			return nil
		}
		used[c] = true
		t, err := memseg.TypeOf(in[c].Type.Arrow())
		if err != nil {
			return fmt.Errorf("row key: column %s: %w", in[c].Name, err)
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
	if lead >= 0 {
		if err := add(lead, memseg.Order{}, false); err != nil {
			return nil, err
		}
		if k.cols[0].typ != memseg.Timestamp {
			return nil, fmt.Errorf("row key: leading column %s is %s, not a TIMESTAMP", in[lead].Name, in[lead].Type)
		}
	}
	for _, c := range partition {
		if err := add(c, memseg.Order{}, false); err != nil {
			return nil, err
		}
	}
	k.part = len(k.cols)
	for _, o := range order {
		if err := add(o.Col, memseg.Order{Desc: o.Desc, NullsLast: o.NullsLast}, false); err != nil {
			return nil, err
		}
	}
	k.order = len(k.cols)
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
		return nil, fmt.Errorf("row key: %w", err)
	}
	return k, nil
}

// Bind prepares Append for the rows of b. The type dispatch happens here,
// once per column and batch, not per row.
func (k *RowKey) Bind(b arrow.RecordBatch) error {
	k.enc = k.enc[:0]
	for _, c := range k.cols {
		f, err := keyEncoder(b.Column(c.col), c)
		if err != nil {
			return fmt.Errorf("row key: column %d: %w", c.col, err)
		}
		k.enc = append(k.enc, f)
	}
	return nil
}

// Append appends the key of row of the bound batch to dst.
func (k *RowKey) Append(dst []byte, row int) []byte {
	for _, f := range k.enc {
		dst = f(dst, row)
	}
	return dst
}

// AppendSplit is Append that also returns where the row's partition
// (the leading column and the partition columns) ends in dst: that prefix
// is the key a hash exchange on the partition columns encodes.
func (k *RowKey) AppendSplit(dst []byte, row int) ([]byte, int) {
	end := len(dst)
	for i, f := range k.enc {
		if i == k.part {
			end = len(dst)
		}
		dst = f(dst, row)
	}
	if k.part == len(k.enc) {
		end = len(dst)
	}
	return dst, end
}

// keyEncoder returns the encoder of column c of a batch, a: memseg's, but
// for the exact bits of a float.
func keyEncoder(a arrow.Array, c keyCol) (func(dst []byte, i int) []byte, error) {
	if !c.bits {
		return memseg.ColumnEncoder(a, c.order)
	}
	o := c.order
	switch a := a.(type) {
	case *array.Float64:
		v := a.Float64Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, int64(math.Float64bits(v[i])), o)
		}, nil
	case *array.Float32:
		v := a.Float32Values()
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return memseg.AppendNull(dst, o)
			}
			return memseg.AppendInt64(dst, int64(math.Float32bits(v[i])), o)
		}, nil
	}
	return nil, fmt.Errorf("cannot encode the bits of %s", a.DataType())
}

// Layout is the key's layout, for a memseg.Sorter of such keys.
func (k *RowKey) Layout() *memseg.Layout { return k.layout }

// Partition returns the length of key's partition: its leading column
// and partition columns.
func (k *RowKey) Partition(key []byte) (int, error) { return k.prefix(key, k.part) }

// Ordered returns the length of key's partition and ORDER BY columns:
// rows whose keys share it are peers (they tie on the ORDER BY).
func (k *RowKey) Ordered(key []byte) (int, error) { return k.prefix(key, k.order) }

// prefix returns the length of key's first n columns.
func (k *RowKey) prefix(key []byte, n int) (int, error) {
	b := key
	for i := range k.cols[:n] {
		var err error
		if b, err = k.column(&k.cols[i], b, nil); err != nil {
			return 0, err
		}
	}
	return len(key) - len(b), nil
}

// Decode appends the row of key to bld, the builders of the input columns.
func (k *RowKey) Decode(key []byte, bld []array.Builder) error {
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
func (k *RowKey) column(c *keyCol, b []byte, out array.Builder) ([]byte, error) {
	if !c.bits {
		rest, err := memseg.DecodeColumn(out, c.typ, c.order, b, &k.str)
		if err != nil {
			return nil, fmt.Errorf("row key: decoding column %d: %w", c.col, err)
		}
		return rest, nil
	}
	v, null, rest, err := memseg.DecodeInt64(b, c.order)
	if err != nil {
		return nil, fmt.Errorf("row key: decoding column %d: %w", c.col, err)
	}
	switch {
	case out == nil:
	case null:
		out.AppendNull()
	case c.f32:
		out.(*array.Float32Builder).Append(math.Float32frombits(uint32(v)))
	default:
		out.(*array.Float64Builder).Append(math.Float64frombits(uint64(v)))
	}
	return rest, nil
}
