package rank

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// changes builds the changelog batches of an operator outside windows,
// each row with a kind and, when the operator numbers rows, its row
// number. A row is a kept row's key (topnKey), decoded when the batch is
// built, or a row of the input batch being processed, copied
// (exec.KeyRows): an operator emits a row it was just given without
// decoding it, and a kept row it emits twice (-U at one number, +U at the
// next) is decoded once.
type changes struct {
	rows   *exec.KeyRows
	schema *arrow.Schema
	alloc  memory.Allocator
	rownum bool // a BIGINT column of row numbers follows the rows
	nums   []int64
	kinds  []exec.RowKind
	batch  int
}

func newChanges(alloc memory.Allocator, key *topnKey, in, out types.Schema, batch int) *changes {
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	if batch <= 0 {
		batch = 4096
	}
	return &changes{rows: exec.NewKeyRows(key), schema: out.Arrow(), alloc: alloc, rownum: len(out) > len(in), batch: batch}
}

// bind makes b, an input batch, the one exec.InputRow refers to, until
// unbind, which must come before b is released.
func (c *changes) bind(b arrow.RecordBatch) error { return c.rows.Bind(b) }

func (c *changes) unbind() { c.rows.Unbind() }

// add appends the row of key as kind, numbered rownum if the operator
// numbers rows, and emits a full batch.
func (c *changes) add(kind exec.RowKind, key []byte, rownum int64, out exec.Emitter) error {
	c.addRef(kind, c.rows.Key(key), rownum)
	return c.flushFull(out)
}

// addInput appends row r of the bound input batch as kind, as add.
func (c *changes) addInput(kind exec.RowKind, r int, out exec.Emitter) error {
	c.addRef(kind, exec.InputRow(r), 0)
	return c.flushFull(out)
}

// key stores the key of a row to add, and returns its reference, valid
// until the next flush.
func (c *changes) key(key []byte) exec.Ref { return c.rows.Key(key) }

// addRef appends the row ref refers to, as add; it never flushes, so
// that the caller's references stay valid: the caller flushes with
// flushFull when it holds none.
func (c *changes) addRef(kind exec.RowKind, ref exec.Ref, rownum int64) {
	c.rows.Add(ref)
	if c.rownum {
		c.nums = append(c.nums, rownum)
	}
	c.kinds = append(c.kinds, kind)
}

// flushFull emits the rows built so far once they fill a batch.
func (c *changes) flushFull(out exec.Emitter) error {
	if len(c.kinds) < c.batch {
		return nil
	}
	return c.flush(out)
}

// flush emits the rows built so far as one batch carrying their kinds.
func (c *changes) flush(out exec.Emitter) error {
	n := len(c.kinds)
	if n == 0 {
		return nil
	}
	cols, err := c.rows.Build(c.alloc)
	if err != nil {
		return err
	}
	if c.rownum {
		cols = append(cols, c.numbers())
	}
	b := array.NewRecordBatch(c.schema, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	kinds := c.kinds
	withKinds := exec.WithKinds(b, kinds)
	if exec.Kinds(withKinds) != nil {
		// Handed over with the batch: the next rows take a new slice.
		c.kinds = make([]exec.RowKind, 0, c.batch+c.batch/8)
	} else {
		c.kinds = kinds[:0] // only insertions: the batch carries no kinds
	}
	return out.Emit(withKinds)
}

// numbers returns the rows' numbers as a column, and forgets them.
func (c *changes) numbers() arrow.Array {
	raw := expr.AllocNoZero(c.alloc, 8*len(c.nums))[:8*len(c.nums)]
	copy(arrow.Int64Traits.CastFromBytes(raw), c.nums)
	buf := memory.NewBufferWithAllocator(raw, c.alloc)
	defer buf.Release()
	d := array.NewData(arrow.PrimitiveTypes.Int64, len(c.nums), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer d.Release()
	c.nums = c.nums[:0]
	return array.MakeFromData(d)
}

// release drops the rows not emitted.
func (c *changes) release() {
	c.rows.Unbind()
	c.rows.Reset()
	c.kinds, c.nums = c.kinds[:0], c.nums[:0]
}
