package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// batch accumulates rows in Arrow buffers of its allocator (vec.go) and
// hands them to the record it makes: no builder, no copy. Decoders fill a
// row column by column and may fail halfway; a column can drop a partly
// appended row (truncate), which Arrow builders cannot.
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

// column holds one column's values; only the vec of its storage is used.
// Every row appends exactly one value, a zero value for NULL, so that
// truncate is a reslice.
type column struct {
	t     types.Type
	dt    arrow.DataType
	st    storage
	alloc memory.Allocator
	n     int // values appended
	// valid is the validity bitmap: empty (all valid) until the batch's
	// first NULL, then one bit per value.
	valid bitVec
	i32   vec[int32]
	i64   vec[int64]
	f32   vec[float32]
	f64   vec[float64]
	dec   vec[decimal128.Num]
	bools bitVec
	offs  vec[int32] // string offsets; offs[i] is where value i starts
	data  vec[byte]
	day   dayCache // a timestamp column's last date
	// kids are a ROW's fields (one entry per row each), an ARRAY's
	// elements or a MAP's keys and values (offs[i] is row i's first).
	kids []column
}

func newBatch(s types.Schema) *batch {
	b := &batch{schema: s.Arrow(), cols: make([]column, len(s))}
	for i, f := range s {
		c := &b.cols[i]
		c.t, c.dt, c.alloc = f.Type, f.Type.Arrow(), memory.DefaultAllocator
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
			c.offs.push(c.alloc, 0)
		}
	}
	return b
}

// use makes the batch take its buffers from a (nil: Go's allocator) from
// its next record on.
func (b *batch) use(a memory.Allocator) {
	if a == nil {
		a = memory.DefaultAllocator
	}
	for i := range b.cols {
		b.cols[i].use(a)
	}
}

func (c *column) use(a memory.Allocator) {
	c.alloc = a
	for k := range c.kids {
		c.kids[k].use(a)
	}
}

// mark counts the value being appended, valid or NULL. It is small
// enough to be inlined: a valid value before the batch's first NULL only
// counts.
func (c *column) mark(ok bool) {
	if !ok || c.valid.n > 0 {
		c.markBit(ok)
	}
	c.n++
}

func (c *column) markBit(ok bool) {
	if c.valid.n == 0 && c.n > 0 {
		c.valid.pushOnes(c.alloc, c.n)
	}
	c.valid.push(c.alloc, ok)
}

// isValid says whether value i is not NULL.
func (c *column) isValid(i int) bool { return c.valid.n == 0 || c.valid.get(i) }

// nulls counts the NULL values.
func (c *column) nulls() int { return c.valid.n - c.valid.ones }

func (c *column) null() {
	c.mark(false)
	switch c.st {
	case sInt32:
		c.i32.push(c.alloc, 0)
	case sInt64:
		c.i64.push(c.alloc, 0)
	case sFloat32:
		c.f32.push(c.alloc, 0)
	case sFloat64:
		c.f64.push(c.alloc, 0)
	case sDecimal:
		c.dec.push(c.alloc, decimal128.Num{})
	case sBool:
		c.bools.push(c.alloc, false)
	case sString:
		c.offs.push(c.alloc, int32(len(c.data.v)))
	case sNest:
		c.nullNested()
	}
}

func (c *column) int32(v int32) {
	c.mark(true)
	if len(c.i32.v) == cap(c.i32.v) {
		c.i32.grow(c.alloc, len(c.i32.v)+1)
	}
	c.i32.v = append(c.i32.v, v) // within the capacity: in place
}

func (c *column) int64(v int64) {
	c.mark(true)
	if len(c.i64.v) == cap(c.i64.v) {
		c.i64.grow(c.alloc, len(c.i64.v)+1)
	}
	c.i64.v = append(c.i64.v, v) // within the capacity: in place
}

func (c *column) float32(v float32) {
	c.mark(true)
	if len(c.f32.v) == cap(c.f32.v) {
		c.f32.grow(c.alloc, len(c.f32.v)+1)
	}
	c.f32.v = append(c.f32.v, v) // within the capacity: in place
}

func (c *column) float64(v float64) {
	c.mark(true)
	if len(c.f64.v) == cap(c.f64.v) {
		c.f64.grow(c.alloc, len(c.f64.v)+1)
	}
	c.f64.v = append(c.f64.v, v) // within the capacity: in place
}

func (c *column) decimal(v decimal128.Num) {
	c.mark(true)
	c.dec.push(c.alloc, v)
}

func (c *column) bool(v bool) {
	c.mark(true)
	c.bools.push(c.alloc, v)
}

func (c *column) str(v []byte) {
	c.mark(true)
	if len(c.data.v)+len(v) > cap(c.data.v) {
		c.data.grow(c.alloc, len(c.data.v)+len(v))
	}
	c.data.v = append(c.data.v, v...)
	if len(c.offs.v) == cap(c.offs.v) {
		c.offs.grow(c.alloc, len(c.offs.v)+1)
	}
	c.offs.v = append(c.offs.v, int32(len(c.data.v)))
}

// repeatLast appends a copy of the last value.
func (c *column) repeatLast() { c.copyLast(c) }

// copyLast appends the last value of from, a column of the same type.
func (c *column) copyLast(from *column) {
	i := from.n - 1
	if !from.isValid(i) {
		c.null()
		return
	}
	c.copyValue(from, i)
}

// copyValue appends value i of from, which is not NULL.
func (c *column) copyValue(from *column, i int) {
	switch c.st {
	case sInt32:
		c.int32(from.i32.v[i])
	case sInt64:
		c.int64(from.i64.v[i])
	case sFloat32:
		c.float32(from.f32.v[i])
	case sFloat64:
		c.float64(from.f64.v[i])
	case sDecimal:
		c.decimal(from.dec.v[i])
	case sBool:
		c.bool(from.bools.get(i))
	case sString:
		c.str(from.data.v[from.offs.v[i]:from.offs.v[i+1]])
	}
}

// truncate drops the values appended after the first n.
func (c *column) truncate(n int) {
	c.n = n
	c.valid.truncate(n)
	switch c.st {
	case sInt32:
		c.i32.v = c.i32.v[:n]
	case sInt64:
		c.i64.v = c.i64.v[:n]
	case sFloat32:
		c.f32.v = c.f32.v[:n]
	case sFloat64:
		c.f64.v = c.f64.v[:n]
	case sDecimal:
		c.dec.v = c.dec.v[:n]
	case sBool:
		c.bools.truncate(n)
	case sString:
		c.offs.v = c.offs.v[:n+1]
		c.data.v = c.data.v[:c.offs.v[n]]
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
// empties the batch: the record takes the columns' buffers.
func (b *batch) flush() arrow.RecordBatch {
	arrs := make([]arrow.Array, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		c.truncate(b.n)
		arrs[i] = c.build()
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

// build hands the column's values over as an array and empties it.
func (c *column) build() arrow.Array {
	n, nulls := c.n, c.nulls()
	var bitmap *memory.Buffer
	if nulls > 0 {
		bitmap = c.valid.buffer(c.alloc)
	} else {
		c.valid.free(c.alloc) // NULLs rolled back, or none
	}
	c.n = 0
	var bufs []*memory.Buffer
	switch c.st {
	case sInt32:
		bufs = []*memory.Buffer{bitmap, c.i32.buffer(c.alloc)}
	case sInt64:
		bufs = []*memory.Buffer{bitmap, c.i64.buffer(c.alloc)}
	case sFloat32:
		bufs = []*memory.Buffer{bitmap, c.f32.buffer(c.alloc)}
	case sFloat64:
		bufs = []*memory.Buffer{bitmap, c.f64.buffer(c.alloc)}
	case sDecimal:
		bufs = []*memory.Buffer{bitmap, c.dec.buffer(c.alloc)}
	case sBool:
		bufs = []*memory.Buffer{bitmap, c.bools.buffer(c.alloc)}
	case sString:
		bufs = []*memory.Buffer{bitmap, c.offs.buffer(c.alloc), c.data.buffer(c.alloc)}
		c.offs.push(c.alloc, 0)
	case sNest:
		return c.buildNested(n, bitmap, nulls)
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

// repeat returns an array of n copies of the column's first value.
func (c *column) repeat(alloc memory.Allocator, n int) arrow.Array {
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	r := column{t: c.t, dt: c.dt, st: c.st, alloc: alloc}
	if c.st == sString {
		r.offs.push(alloc, 0)
	}
	for range n {
		if !c.isValid(0) {
			r.null()
			continue
		}
		r.copyValue(c, 0)
	}
	return r.build()
}
