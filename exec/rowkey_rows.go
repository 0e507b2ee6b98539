package exec

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
)

// KeyRows builds the columns of a batch of rows that come from two
// places: keys of a RowKey (rows an operator keeps), which it decodes, and
// rows of a bound input batch, which it copies. An operator that emits a
// row it was just given (a deduplication's new row) so copies the row's
// values instead of decoding the key it encoded them into, and one that
// emits a kept row several times (a Top-N's row moving down a rank, -U
// at one number and +U at the next) decodes it once.
//
// Rows are added as references (Ref): Key stores a key and returns its
// reference, InputRow refers to a row of the bound batch. Build decodes
// the keys, each once, row by row, into typed scratch columns, then
// writes each output column in one pass over the rows, gathering values
// from the input column or the scratch. The type dispatch happens once
// per column and batch, never per row and value.
type KeyRows struct {
	key  *RowKey
	keys []byte
	ends []int   // where each key ends in keys
	rows []int32 // each row's Ref
	in   []arrow.Array
	dec  []decoded // per key column
	str  []byte    // decoded strings that are not spans of their keys
}

// Ref is a row of a KeyRows: a stored key (>= 0, its index) or a row of
// the bound input batch (InputRow).
type Ref = int32

// InputRow is the Ref of row r of the bound input batch.
func InputRow(r int) Ref { return -Ref(r) - 1 }

// decoded holds one key column of every stored key, decoded.
type decoded struct {
	null  []bool
	nulls int
	u32   []uint32 // INT, DATE, FLOAT (its bits)
	u64   []uint64 // BIGINT, TIMESTAMP, DOUBLE (its bits), BOOLEAN (0 or 1)
	num   []decimal128.Num
	str   [][]byte
}

// NewKeyRows returns an empty KeyRows of the rows of k.
func NewKeyRows(k *RowKey) *KeyRows {
	return &KeyRows{key: k, dec: make([]decoded, len(k.cols))}
}

// Bind makes b the batch InputRow refers to; its columns must be of the
// RowKey's types, as far as their values' layout goes (a TIMESTAMP's
// zone is the output's, as when its rows are encoded and decoded). It
// holds b, without a reference, until Unbind, which must come before b is
// released.
func (k *KeyRows) Bind(b arrow.RecordBatch) error {
	if int(b.NumCols()) != len(k.key.types) {
		return fmt.Errorf("key rows: batch of %d columns, want %d", b.NumCols(), len(k.key.types))
	}
	for i, c := range b.Columns() {
		if c.DataType().ID() != k.key.types[i].ID() {
			return fmt.Errorf("key rows: column %d is %s, want %s", i, c.DataType(), k.key.types[i])
		}
	}
	k.in = append(k.in[:0], b.Columns()...)
	return nil
}

// Unbind forgets the bound batch.
func (k *KeyRows) Unbind() {
	clear(k.in)
	k.in = k.in[:0]
}

// Key stores a copy of key, the key of a row, and returns its reference,
// valid until Build or Reset.
func (k *KeyRows) Key(key []byte) Ref {
	k.keys = append(k.keys, key...)
	k.ends = append(k.ends, len(k.keys))
	return Ref(len(k.ends) - 1)
}

// Add appends the row ref refers to.
func (k *KeyRows) Add(ref Ref) { k.rows = append(k.rows, ref) }

// Len is the number of rows added since the last Build.
func (k *KeyRows) Len() int { return len(k.rows) }

// Reset forgets the rows and the keys (not the bound batch).
func (k *KeyRows) Reset() {
	k.keys, k.ends, k.rows = k.keys[:0], k.ends[:0], k.rows[:0]
}

// Build returns the columns of the rows added, one per column of the
// RowKey's schema, in memory of alloc, and resets k. The rows of the bound
// batch it refers to must be the ones they were when added.
func (k *KeyRows) Build(alloc memory.Allocator) ([]arrow.Array, error) {
	defer k.Reset()
	if err := k.decode(); err != nil {
		return nil, err
	}
	cols := make([]arrow.Array, len(k.key.types))
	for i := range k.key.cols {
		c := &k.key.cols[i]
		if c.skip {
			continue
		}
		var in arrow.Array
		if len(k.in) > 0 {
			in = k.in[c.col]
		}
		cols[c.col] = k.column(alloc, c, &k.dec[i], in)
	}
	return cols, nil
}

// decode decodes every stored key into k.dec.
func (k *KeyRows) decode() error {
	for i := range k.dec {
		d := &k.dec[i]
		d.null, d.nulls = d.null[:0], 0
		d.u32, d.u64, d.num = d.u32[:0], d.u64[:0], d.num[:0]
		clear(d.str)
		d.str = d.str[:0]
	}
	// A key's strings decode to no more bytes than the key has, so
	// k.str never moves while the decoded strings point into it.
	if cap(k.str) < len(k.keys) {
		k.str = make([]byte, 0, len(k.keys))
	}
	k.str = k.str[:0]
	start := 0
	for _, end := range k.ends {
		b := k.keys[start:end]
		start = end
		for i := range k.key.cols {
			var err error
			if b, err = k.decodeColumn(&k.key.cols[i], &k.dec[i], b); err != nil {
				return fmt.Errorf("row key: decoding column %d: %w", k.key.cols[i].col, err)
			}
		}
		if len(b) != 0 {
			return fmt.Errorf("%w: %d bytes after the last column", memseg.ErrCorrupt, len(b))
		}
	}
	return nil
}

// decodeColumn decodes column c at the start of b into d and returns the
// bytes after it. A FLOAT or DOUBLE is decoded from its bits (the
// normalized value before them is skipped).
func (k *KeyRows) decodeColumn(c *keyCol, d *decoded, b []byte) ([]byte, error) {
	if c.skip {
		return k.key.column(c, b, nil)
	}
	var null bool
	var err error
	switch c.typ {
	case 0:
		null = true
		d.u64 = append(d.u64, 0)
	case memseg.Bool:
		var v bool
		v, null, b, err = memseg.DecodeBool(b, c.order)
		var u uint64
		if v {
			u = 1
		}
		d.u64 = append(d.u64, u)
	case memseg.Int32, memseg.Date32:
		var v int64
		v, null, b, err = memseg.DecodeInt64(b, c.order)
		d.u32 = append(d.u32, uint32(v))
	case memseg.Int64, memseg.Timestamp:
		var v int64
		v, null, b, err = memseg.DecodeInt64(b, c.order)
		if c.bits && c.f32 {
			d.u32 = append(d.u32, uint32(v))
		} else {
			d.u64 = append(d.u64, uint64(v))
		}
	case memseg.Decimal128:
		var hi int64
		var lo uint64
		hi, lo, null, b, err = memseg.DecodeDecimal128(b, c.order)
		d.num = append(d.num, decimal128.New(hi, lo))
	case memseg.String:
		var s []byte
		s, null, b, err = k.decodeString(b, c.order)
		d.str = append(d.str, s)
	default:
		err = fmt.Errorf("%w: key column of type %v", memseg.ErrCorrupt, c.typ)
	}
	if err != nil {
		return nil, err
	}
	d.null = append(d.null, null)
	if null {
		d.nulls++
	}
	return b, nil
}

// decodeString decodes a string column: an ascending string without a
// zero byte is the span of the key before its terminator; any other goes
// through k.str.
func (k *KeyRows) decodeString(b []byte, o memseg.Order) (s []byte, null bool, rest []byte, err error) {
	if !o.Desc && len(b) > 0 && b[0] == 1 { // a value, not a NULL
		if i := bytes.IndexByte(b[1:], 0); i >= 0 && i+2 < len(b) && b[i+2] == 1 {
			return b[1 : i+1 : i+1], false, b[i+3:], nil
		}
	}
	start := len(k.str)
	k.str, null, rest, err = memseg.DecodeString(k.str, b, o)
	return k.str[start:len(k.str):len(k.str)], null, rest, err
}

// column builds the output column of key column c from the rows' refs:
// values of in (nil when no batch is bound) for input rows, of d for keys.
func (k *KeyRows) column(alloc memory.Allocator, c *keyCol, d *decoded, in arrow.Array) arrow.Array {
	dt, n := k.key.types[c.col], len(k.rows)
	if c.typ == 0 {
		return array.NewNull(n)
	}
	var off int
	var bufs []*memory.Buffer
	if in != nil {
		off, bufs = in.Data().Offset(), in.Data().Buffers()
	}
	var valid *memory.Buffer
	nulls := 0
	if d.nulls > 0 || (in != nil && in.NullN() > 0) {
		if valid, nulls = k.validity(alloc, d, in); nulls == 0 {
			valid.Release()
			valid = nil
		}
	}
	var vals *memory.Buffer
	switch c.typ {
	case memseg.Bool:
		vals = k.bools(alloc, d, bufs, off)
	case memseg.String:
		offs, data := k.strings(alloc, d, in)
		out := []*memory.Buffer{valid, offs, data}
		return expr.MakeArray(dt, n, out, nulls)
	case memseg.Decimal128:
		vals = fixed(alloc, k.rows, d.num, inValues(bufs, off, arrow.Decimal128Traits.CastFromBytes))
	default:
		if dt.(arrow.FixedWidthDataType).BitWidth() == 32 {
			vals = fixed(alloc, k.rows, d.u32, inValues(bufs, off, arrow.Uint32Traits.CastFromBytes))
		} else {
			vals = fixed(alloc, k.rows, d.u64, inValues(bufs, off, arrow.Uint64Traits.CastFromBytes))
		}
	}
	return expr.MakeArray(dt, n, []*memory.Buffer{valid, vals}, nulls)
}

// inValues is the values of an input column of fixed width, from its
// first row; nil without one.
func inValues[T any](bufs []*memory.Buffer, off int, cast func([]byte) []T) []T {
	if bufs == nil || bufs[1] == nil {
		return nil
	}
	return cast(bufs[1].Bytes())[off:]
}

// newBuf returns a buffer of n bytes of alloc, not zeroed.
func newBuf(alloc memory.Allocator, n int) (*memory.Buffer, []byte) {
	raw := expr.AllocNoZero(alloc, n)[:n]
	return memory.NewBufferWithAllocator(raw, alloc), raw
}

// fixed gathers a column of fixed-width values.
func fixed[T any](alloc memory.Allocator, rows []int32, dec, in []T) *memory.Buffer {
	buf, raw := newBuf(alloc, len(rows)*int(unsafe.Sizeof(*new(T))))
	dst := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(rows))
	for i, s := range rows {
		if s < 0 {
			dst[i] = in[-s-1]
		} else {
			dst[i] = dec[s]
		}
	}
	return buf
}

// validity builds the rows' validity bitmap and counts their NULLs.
func (k *KeyRows) validity(alloc memory.Allocator, d *decoded, in arrow.Array) (*memory.Buffer, int) {
	n := len(k.rows)
	buf, bm := newBuf(alloc, int(bitutil.BytesForBits(int64(n))))
	clear(bm)
	var inBits []byte
	var off int
	if in != nil && in.NullN() > 0 {
		inBits, off = in.Data().Buffers()[0].Bytes(), in.Data().Offset()
	}
	nulls := 0
	for i, s := range k.rows {
		var ok bool
		if s < 0 {
			ok = inBits == nil || bitutil.BitIsSet(inBits, off+int(-s-1))
		} else {
			ok = !d.null[s]
		}
		if ok {
			bitutil.SetBit(bm, i)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

// bools builds a BOOLEAN column's values.
func (k *KeyRows) bools(alloc memory.Allocator, d *decoded, bufs []*memory.Buffer, off int) *memory.Buffer {
	buf, bm := newBuf(alloc, int(bitutil.BytesForBits(int64(len(k.rows)))))
	clear(bm)
	for i, s := range k.rows {
		var v bool
		if s < 0 {
			v = bitutil.BitIsSet(bufs[1].Bytes(), off+int(-s-1))
		} else {
			v = d.u64[s] != 0
		}
		if v {
			bitutil.SetBit(bm, i)
		}
	}
	return buf
}

// strings builds a STRING column's offsets and data.
func (k *KeyRows) strings(alloc memory.Allocator, d *decoded, in arrow.Array) (*memory.Buffer, *memory.Buffer) {
	// The offsets of in's rows, from its first, point into its whole
	// data buffer.
	var offs []int32
	var data []byte
	if in != nil {
		offs = in.(*array.String).ValueOffsets()
		if b := in.Data().Buffers()[2]; b != nil {
			data = b.Bytes()
		}
	}
	size := 0
	for _, s := range k.rows {
		if s < 0 {
			r := -s - 1
			size += int(offs[r+1] - offs[r])
		} else {
			size += len(d.str[s])
		}
	}
	ob, raw := newBuf(alloc, (len(k.rows)+1)*4)
	o := arrow.Int32Traits.CastFromBytes(raw)[:len(k.rows)+1]
	db, dst := newBuf(alloc, size)
	at := 0
	o[0] = 0
	for i, s := range k.rows {
		if s < 0 {
			r := -s - 1
			at += copy(dst[at:], data[offs[r]:offs[r+1]])
		} else {
			at += copy(dst[at:], d.str[s])
		}
		o[i+1] = int32(at)
	}
	return ob, db
}
