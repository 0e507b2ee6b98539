package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// batch accumulates rows in plain Go slices and turns them into an Arrow
// record at the end. Decoders fill a row column by column and may fail
// halfway; Arrow builders cannot drop a partly appended row, plain slices
// can (truncate), and they are reused from batch to batch.
type batch struct {
	schema *arrow.Schema
	cols   []column
	n      int // complete rows
	// kinds holds the kind of each complete row once a changelog format
	// (debezium-json) has committed a row that is not an insertion; nil
	// while every row is one, so that other formats pay nothing.
	kinds []exec.RowKind
}

// storage is the Go representation of a column's values.
type storage uint8

const (
	sInt32 storage = iota // INT, DATE, INTERVAL YEAR TO MONTH
	sInt64                // BIGINT, TIMESTAMP, TIMESTAMP_LTZ, INTERVAL DAY TO SECOND
	sFloat32
	sFloat64
	sDecimal
	sBool
	sString
	sNest // ROW, ARRAY, MAP: kids hold the fields or elements (batch_nested.go)
)

// column holds one column's values; only the slice of its storage is used.
// Every row appends exactly one entry to valid and one to the values, a
// zero value for NULL, so that truncate is a reslice.
type column struct {
	t     types.Type
	dt    arrow.DataType
	st    storage
	valid []bool
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	dec   []decimal128.Num
	bools []bool
	offs  []int32 // string offsets; offs[i] is where row i starts
	data  []byte
	day   dayCache // a timestamp column's last date
	// kids are a ROW's fields (one entry per row each), an ARRAY's
	// elements or a MAP's keys and values (offs[i] is row i's first).
	kids []column
}

func newBatch(s types.Schema) *batch {
	b := &batch{schema: s.Arrow(), cols: make([]column, len(s))}
	for i, f := range s {
		c := &b.cols[i]
		c.t, c.dt = f.Type, f.Type.Arrow()
		switch f.Type.Kind {
		case types.Int, types.Date, types.IntervalYearMonth:
			c.st = sInt32
		case types.BigInt, types.Timestamp, types.TimestampLTZ, types.IntervalDayTime:
			c.st = sInt64
		case types.Float:
			c.st = sFloat32
		case types.Double:
			c.st = sFloat64
		case types.Decimal:
			c.st = sDecimal
		case types.Boolean:
			c.st = sBool
		case types.Row, types.Array, types.Map:
			c.nest()
		default:
			c.st = sString
			c.offs = append(c.offs, 0)
		}
	}
	return b
}

func (c *column) null() {
	c.valid = append(c.valid, false)
	switch c.st {
	case sInt32:
		c.i32 = append(c.i32, 0)
	case sInt64:
		c.i64 = append(c.i64, 0)
	case sFloat32:
		c.f32 = append(c.f32, 0)
	case sFloat64:
		c.f64 = append(c.f64, 0)
	case sDecimal:
		c.dec = append(c.dec, decimal128.Num{})
	case sBool:
		c.bools = append(c.bools, false)
	case sString:
		c.offs = append(c.offs, int32(len(c.data)))
	case sNest:
		c.nullNested()
	}
}

func (c *column) int32(v int32) {
	c.valid = append(c.valid, true)
	c.i32 = append(c.i32, v)
}

func (c *column) int64(v int64) {
	c.valid = append(c.valid, true)
	c.i64 = append(c.i64, v)
}

func (c *column) float32(v float32) {
	c.valid = append(c.valid, true)
	c.f32 = append(c.f32, v)
}

func (c *column) float64(v float64) {
	c.valid = append(c.valid, true)
	c.f64 = append(c.f64, v)
}

func (c *column) decimal(v decimal128.Num) {
	c.valid = append(c.valid, true)
	c.dec = append(c.dec, v)
}

func (c *column) bool(v bool) {
	c.valid = append(c.valid, true)
	c.bools = append(c.bools, v)
}

func (c *column) str(v []byte) {
	c.valid = append(c.valid, true)
	c.data = append(c.data, v...)
	c.offs = append(c.offs, int32(len(c.data)))
}

// repeatLast appends a copy of the last value.
func (c *column) repeatLast() { c.copyLast(c) }

// copyLast appends the last value of from, a column of the same type.
func (c *column) copyLast(from *column) {
	i := len(from.valid) - 1
	if !from.valid[i] {
		c.null()
		return
	}
	switch c.st {
	case sInt32:
		c.int32(from.i32[i])
	case sInt64:
		c.int64(from.i64[i])
	case sFloat32:
		c.float32(from.f32[i])
	case sFloat64:
		c.float64(from.f64[i])
	case sDecimal:
		c.decimal(from.dec[i])
	case sBool:
		c.bool(from.bools[i])
	case sString:
		c.str(from.data[from.offs[i]:from.offs[i+1]])
	}
}

// truncate drops the values appended after the first n rows.
func (c *column) truncate(n int) {
	c.valid = c.valid[:n]
	switch c.st {
	case sInt32:
		c.i32 = c.i32[:n]
	case sInt64:
		c.i64 = c.i64[:n]
	case sFloat32:
		c.f32 = c.f32[:n]
	case sFloat64:
		c.f64 = c.f64[:n]
	case sDecimal:
		c.dec = c.dec[:n]
	case sBool:
		c.bools = c.bools[:n]
	case sString:
		c.offs = c.offs[:n+1]
		c.data = c.data[:c.offs[n]]
	case sNest:
		c.truncateNested(n)
	}
}

// commit marks the row being filled as complete.
func (b *batch) commit() {
	if b.kinds != nil {
		b.kinds = append(b.kinds, exec.Insert)
	}
	b.n++
}

// commitAs marks the row being filled as complete, of kind k.
func (b *batch) commitAs(k exec.RowKind) {
	if b.kinds == nil && k != exec.Insert {
		b.kinds = make([]exec.RowKind, b.n, max(2*b.n, 16))
	}
	if b.kinds != nil {
		b.kinds = append(b.kinds, k)
	}
	b.n++
}

// rollback drops the partly filled row.
func (b *batch) rollback() {
	for i := range b.cols {
		b.cols[i].truncate(b.n)
	}
}

// drop drops the complete rows after the first n, and a partly filled
// one: a message that makes two rows and fails at its second.
func (b *batch) drop(n int) {
	b.n = n
	if b.kinds != nil {
		b.kinds = b.kinds[:n]
	}
	b.rollback()
}

// flush returns the complete rows as a record, carrying their kinds, and
// empties the batch.
func (b *batch) flush(alloc memory.Allocator) arrow.RecordBatch {
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	arrs := make([]arrow.Array, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		c.truncate(b.n)
		arrs[i] = c.build(alloc, b.n)
		c.truncate(0)
	}
	var rec arrow.RecordBatch = array.NewRecordBatch(b.schema, arrs, int64(b.n))
	for _, a := range arrs {
		a.Release()
	}
	if b.kinds != nil {
		rec = exec.WithKinds(rec, b.kinds) // handed over with the record
		b.kinds = nil
	}
	b.n = 0
	return rec
}

func (c *column) build(alloc memory.Allocator, n int) arrow.Array {
	nulls := 0
	for _, v := range c.valid {
		if !v {
			nulls++
		}
	}
	var bitmap *memory.Buffer
	if nulls > 0 {
		bitmap = packBits(alloc, c.valid)
	}
	var bufs []*memory.Buffer
	switch c.st {
	case sInt32:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.i32))}
	case sInt64:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.i64))}
	case sFloat32:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.f32))}
	case sFloat64:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.f64))}
	case sDecimal:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.dec))}
	case sBool:
		bufs = []*memory.Buffer{bitmap, packBits(alloc, c.bools)}
	case sString:
		bufs = []*memory.Buffer{bitmap, copyBuf(alloc, arrow.GetBytes(c.offs)), copyBuf(alloc, c.data)}
	case sNest:
		return c.buildNested(alloc, n, bitmap, nulls)
	}
	data := array.NewData(c.dt, n, bufs, nil, nulls, 0)
	for _, buf := range bufs {
		if buf != nil {
			buf.Release()
		}
	}
	a := array.MakeFromData(data)
	data.Release()
	return a
}

func copyBuf(alloc memory.Allocator, b []byte) *memory.Buffer {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(len(b))
	copy(buf.Bytes(), b)
	return buf
}

func packBits(alloc memory.Allocator, bits []bool) *memory.Buffer {
	buf := memory.NewResizableBuffer(alloc)
	buf.Resize(int(bitutil.BytesForBits(int64(len(bits)))))
	bs := buf.Bytes()
	clear(bs)
	for i, v := range bits {
		if v {
			bitutil.SetBit(bs, i)
		}
	}
	return buf
}

// repeat returns an array of n copies of the column's first value.
func (c *column) repeat(alloc memory.Allocator, n int) arrow.Array {
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	r := column{t: c.t, dt: c.dt, st: c.st}
	if c.st == sString {
		r.offs = append(r.offs, 0)
	}
	for range n {
		if !c.valid[0] {
			r.null()
			continue
		}
		switch c.st {
		case sInt32:
			r.int32(c.i32[0])
		case sInt64:
			r.int64(c.i64[0])
		case sFloat32:
			r.float32(c.f32[0])
		case sFloat64:
			r.float64(c.f64[0])
		case sDecimal:
			r.decimal(c.dec[0])
		case sBool:
			r.bool(c.bools[0])
		case sString:
			r.str(c.data[c.offs[0]:c.offs[1]])
		}
	}
	return r.build(alloc, n)
}
