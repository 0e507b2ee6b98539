package rank

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// changes builds the changelog batches of an operator outside windows:
// rows decoded from their keys (topnKey), each with a kind and, when the
// operator numbers rows, its row number.
type changes struct {
	key   *topnKey
	bld   *array.RecordBuilder
	cols  []array.Builder
	rn    *array.Int64Builder // nil without row numbers
	kinds []exec.RowKind
	n     int
	batch int
}

func newChanges(alloc memory.Allocator, key *topnKey, in, out types.Schema, batch int) *changes {
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	if batch <= 0 {
		batch = 4096
	}
	c := &changes{key: key, bld: array.NewRecordBuilder(alloc, out.Arrow()), batch: batch}
	c.cols = c.bld.Fields()[:len(in)]
	if len(out) > len(in) {
		c.rn = c.bld.Field(len(in)).(*array.Int64Builder)
	}
	return c
}

// add appends the row of key as kind, numbered rownum if the operator
// numbers rows, and emits a full batch.
func (c *changes) add(kind exec.RowKind, key []byte, rownum int64, out exec.Emitter) error {
	if err := c.key.Decode(key, c.cols); err != nil {
		return err
	}
	if c.rn != nil {
		c.rn.Append(rownum)
	}
	c.kinds = append(c.kinds, kind)
	if c.n++; c.n >= c.batch {
		return c.flush(out)
	}
	return nil
}

// flush emits the rows built so far as one batch carrying their kinds.
func (c *changes) flush(out exec.Emitter) error {
	if c.n == 0 {
		return nil
	}
	kinds := c.kinds
	c.kinds, c.n = nil, 0 // handed over with the batch
	var b arrow.RecordBatch = c.bld.NewRecordBatch()
	return out.Emit(exec.WithKinds(b, kinds))
}

func (c *changes) release() { c.bld.Release() }
