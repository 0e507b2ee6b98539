package expr

import (
	"errors"
	"fmt"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// ErrRuntime marks an error raised by a row during evaluation: a division
// by zero, a failed CAST, a decimal overflow.
var ErrRuntime = errors.New("runtime error")

// Ctx is what evaluation takes from its caller.
type Ctx struct {
	// Alloc allocates the result arrays; nil means memory.DefaultAllocator.
	Alloc memory.Allocator
	// Now is the evaluation clock in epoch milliseconds, read once per
	// batch for CURRENT_TIMESTAMP and PROCTIME(). Only programs that use
	// the clock need it.
	Now func() int64
}

// Program is a compiled expression. One goroutine at a time may use it; it
// keeps its scratch buffers from batch to batch.
type Program struct {
	root  *node
	t     types.Type
	cols  []binding
	clock bool
	st    state
}

// binding loads input column idx into a column node.
type binding struct {
	idx  int
	want arrow.DataType
	nd   *node
}

// Compile checks e against the contract in the package doc and prepares it
// for evaluation over batches with schema in.
func Compile(e Expr, in types.Schema) (*Program, error) {
	c := &compiler{schema: in, cols: map[int]*node{}}
	root, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	p := &Program{root: root, t: e.Type(), clock: c.clock, st: state{epoch: c.epoch}}
	if physOf(p.t) != root.p {
		return nil, fmt.Errorf("expr: %s: result type %s does not match its operands", e, p.t)
	}
	for idx, nd := range c.cols {
		p.cols = append(p.cols, binding{idx: idx, want: in[idx].Type.Arrow(), nd: nd})
	}
	sort.Slice(p.cols, func(i, j int) bool { return p.cols[i].idx < p.cols[j].idx })
	return p, nil
}

// Type is the SQL type of the program's results.
func (p *Program) Type() types.Type { return p.t }

// Eval evaluates the program over b. The result has b.NumRows() rows and
// the Arrow type of the expression's type; the caller releases it. An error
// raised by a row wraps ErrRuntime.
func (p *Program) Eval(ctx *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	alloc := memory.Allocator(memory.DefaultAllocator)
	if ctx != nil && ctx.Alloc != nil {
		alloc = ctx.Alloc
	}
	n := int(b.NumRows())
	if err := p.bind(b, n); err != nil {
		return nil, err
	}
	if p.root.col >= 0 {
		return retype(b.Column(p.root.col), p.t.Arrow()), nil
	}
	if n == 0 {
		return array.MakeArrayOfNull(alloc, p.t.Arrow(), 0), nil
	}
	if p.clock {
		if ctx == nil || ctx.Now == nil {
			return nil, errors.New("expr: the expression reads the clock but Ctx.Now is nil")
		}
		p.st.now = ctx.Now()
	}
	p.st.epoch++

	// Let the root write straight into the result buffer.
	var direct *memory.Buffer
	if w := p.root.p.width(); w > 0 && !p.root.fixed {
		// materialize writes every byte: the root's values, or a copy.
		direct = NewBufferNoZero(alloc, n*w)
		p.root.own.fixed = direct.Bytes()
		defer func() { p.root.own.fixed = nil }()
	}
	res, err := p.root.eval(&p.st, n, nil)
	if err != nil {
		if direct != nil {
			direct.Release()
		}
		return nil, err
	}
	return p.materialize(alloc, res, n, direct), nil
}

func (p *Program) bind(b arrow.RecordBatch, n int) error {
	for i := range p.cols {
		c := &p.cols[i]
		if c.idx >= int(b.NumCols()) {
			return fmt.Errorf("expr: batch has %d columns, expression reads column %d", b.NumCols(), c.idx)
		}
		arr := b.Column(c.idx)
		if !compatible(arr.DataType(), c.want) {
			return fmt.Errorf("expr: column %d is %s, expected %s", c.idx, arr.DataType(), c.want)
		}
		if arr.Len() != n {
			return fmt.Errorf("expr: column %d has %d rows, batch %d", c.idx, arr.Len(), n)
		}
		if n > 0 {
			load(c.nd, arr)
		}
	}
	return nil
}

// compatible reports whether an array of type got can stand for want: the
// same layout and meaning, possibly spelled differently (a time zone).
func compatible(got, want arrow.DataType) bool {
	if got.ID() != want.ID() {
		return false
	}
	switch w := want.(type) {
	case *arrow.TimestampType:
		return got.(*arrow.TimestampType).Unit == w.Unit
	case *arrow.Decimal128Type:
		return got.(*arrow.Decimal128Type).Scale == w.Scale
	}
	return true
}

func retype(arr arrow.Array, t arrow.DataType) arrow.Array {
	if arrow.TypeEqual(arr.DataType(), t) {
		arr.Retain()
		return arr
	}
	d := arr.Data()
	nd := array.NewData(t, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// load points a column node's vec at the array's buffers, copying only
// bitmaps that do not start on a word boundary.
func load(nd *node, arr arrow.Array) {
	d := arr.Data()
	off, n := d.Offset(), d.Len()
	bufs := d.Buffers()
	v := &nd.out
	*v = vec{}
	if nd.p == pNull {
		*v = nullv
		return
	}
	if arr.NullN() > 0 {
		v.valid = wordsOf(bufs[0].Bytes(), off, n, &nd.own.valid)
	}
	switch nd.p {
	case pBool:
		v.bits = wordsOf(bufs[1].Bytes(), off, n, &nd.own.bits)
	case pStr:
		v.offs = view[int32](bufs[1].Bytes())[off : off+n+1]
		if bufs[2] != nil {
			v.data = bufs[2].Bytes()
		}
	case pNest:
		v.nest = arr
	default:
		w := nd.p.width()
		v.fixed = bufs[1].Bytes()[off*w : (off+n)*w]
	}
}

// materialize turns the root's vec into an Arrow array of n rows.
func (p *Program) materialize(alloc memory.Allocator, v *vec, n int, direct *memory.Buffer) arrow.Array {
	dt := p.t.Arrow()
	if p.root.p == pNull {
		return array.NewNull(n)
	}
	if p.root.p == pNest || v.nest != nil {
		if direct != nil {
			direct.Release()
		}
		return nestedResult(alloc, dt, v, n)
	}
	valid, nulls := validity(alloc, v, n)
	var bufs []*memory.Buffer
	switch p.root.p {
	case pBool:
		vals := NewBufferNoZero(alloc, words(n)*8)
		w := view[uint64](vals.Bytes())
		if v.konst {
			fill(w, v.bitsWord(0))
		} else {
			copy(w, v.bits[:len(w)])
		}
		w[len(w)-1] &= tail(n) // Arrow readers expect zero padding
		bufs = []*memory.Buffer{valid, vals}
	case pStr:
		bufs = []*memory.Buffer{valid, nil, nil}
		bufs[1], bufs[2] = strBuffers(alloc, v, n)
	default:
		w := p.root.p.width()
		buf := direct
		if buf == nil {
			buf = NewBufferNoZero(alloc, n*w)
		}
		dst := buf.Bytes()[:n*w]
		switch {
		case v.konst:
			one := make([]byte, w) // the value may live in dst itself
			copy(one, v.fixed[:w])
			for i := 0; i < n*w; i += w {
				copy(dst[i:i+w], one)
			}
		case unsafe.SliceData(v.fixed) != unsafe.SliceData(dst):
			copy(dst, v.fixed[:n*w])
		}
		bufs = []*memory.Buffer{valid, buf}
	}
	return MakeArray(dt, n, bufs, nulls)
}

// MakeArray makes an array of n values of type dt, nulls of them NULL,
// over bufs, which it takes over.
func MakeArray(dt arrow.DataType, n int, bufs []*memory.Buffer, nulls int) arrow.Array {
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	defer d.Release()
	return array.MakeFromData(d)
}

func newBuffer(alloc memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(alloc)
	b.Resize(size)
	return b
}

// validity returns an Arrow validity buffer for v over n rows, nil when no
// row is NULL, and the NULL count.
func validity(alloc memory.Allocator, v *vec, n int) (*memory.Buffer, int) {
	if v.valid == nil {
		return nil, 0
	}
	nulls := n
	if v.konst {
		if v.valid[0]&1 != 0 {
			return nil, 0
		}
	} else {
		nulls = n - countSet(v.valid, n)
		if nulls == 0 {
			return nil, 0
		}
	}
	if v.konst {
		return newBuffer(alloc, words(n)*8), nulls // all NULL: zeroes
	}
	buf := NewBufferNoZero(alloc, words(n)*8)
	w := view[uint64](buf.Bytes())
	copy(w, v.valid[:len(w)])
	w[len(w)-1] &= tail(n)
	return buf, nulls
}

func strBuffers(alloc memory.Allocator, v *vec, n int) (*memory.Buffer, *memory.Buffer) {
	offBuf := NewBufferNoZero(alloc, (n+1)*4)
	offs := view[int32](offBuf.Bytes())[:n+1]
	var size int
	if v.konst {
		size = len(v.str(0)) * n
	} else {
		size = int(v.offs[n] - v.offs[0])
	}
	dataBuf := NewBufferNoZero(alloc, size)
	data := dataBuf.Bytes()
	if v.konst {
		s := v.str(0)
		for i := 0; i < n; i++ {
			offs[i] = int32(i * len(s))
			copy(data[i*len(s):], s)
		}
		offs[n] = int32(size)
		return offBuf, dataBuf
	}
	base := v.offs[0]
	for i, o := range v.offs[:n+1] {
		offs[i] = o - base
	}
	copy(data, v.data[base:v.offs[n]])
	return offBuf, dataBuf
}
