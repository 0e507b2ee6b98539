package join

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// rows builds batches of joined rows from the two sides' row keys (the
// normalized keys of every column of a row, as the state keeps them),
// each side's columns decoded from its key or NULL for a padded side.
type rows struct {
	schema *arrow.Schema
	bld    []array.Builder
	types  [2][]memseg.Type // each side's column types
	// need[side][i] marks a column decoded; nil means every column.
	// The others are NULL (the pairs a residual condition is evaluated
	// over need only the columns it reads), and a side's key is not
	// read past its last needed column.
	need    [2][]bool
	kinds   []exec.RowKind
	n       int
	scratch []byte
}

func newRows(alloc memory.Allocator, out types.Schema, left, right types.Schema) *rows {
	r := &rows{schema: out.Arrow()}
	for _, f := range r.schema.Fields() {
		r.bld = append(r.bld, array.NewBuilder(alloc, f.Type))
	}
	for side, sc := range []types.Schema{left, right} {
		for _, f := range sc {
			t, _ := memseg.TypeOf(f.Type.Arrow()) // Spec.check has vetted every type
			r.types[side] = append(r.types[side], t)
		}
	}
	return r
}

// outputs makes the rows a join of s emits (its left columns then its
// right ones, or its left ones alone for a semi or anti join) and, with a
// residual condition, the pairs of both sides' columns it is evaluated
// over.
func (s *Spec) outputs(alloc memory.Allocator, residual bool) (out, cands *rows) {
	right := s.Right
	if s.Kind.filtering() {
		right = nil
	}
	out = newRows(alloc, s.Out, s.Left, right)
	if residual {
		both := append(s.Left[:len(s.Left):len(s.Left)], s.Right...)
		cands = newRows(alloc, both, s.Left, s.Right)
	}
	return out, cands
}

// only makes the rows decode only the columns e reads (a residual
// condition over their columns) and leave the others NULL.
func (r *rows) only(e expr.Expr) {
	n := len(r.types[0])
	r.need = [2][]bool{make([]bool, n), make([]bool, len(r.types[1]))}
	expr.Walk(e, func(e expr.Expr) bool {
		if c, ok := e.(*expr.Col); ok {
			if c.Index < n {
				r.need[0][c.Index] = true
			} else if c.Index-n < len(r.need[1]) {
				r.need[1][c.Index-n] = true
			}
		}
		return true
	})
}

// add appends a joined row of kind k: left's and right's columns from
// their row keys, a nil key padding its side with NULLs.
func (r *rows) add(k exec.RowKind, left, right []byte) error {
	if err := r.side(r.bld[:len(r.types[0])], r.types[0], r.need[0], left); err != nil {
		return err
	}
	if err := r.side(r.bld[len(r.types[0]):], r.types[1], r.need[1], right); err != nil {
		return err
	}
	r.kinds = append(r.kinds, k)
	r.n++
	return nil
}

func (r *rows) side(bld []array.Builder, ts []memseg.Type, need []bool, key []byte) error {
	last := len(ts) // past the last column to decode
	if key == nil {
		last = 0
	} else if need != nil {
		for last > 0 && !need[last-1] {
			last--
		}
	}
	var err error
	for i, t := range ts[:last] {
		b := bld[i]
		if need != nil && !need[i] {
			b.AppendNull()
			b = nil // skipped
		}
		if key, err = memseg.DecodeColumn(b, t, memseg.Order{}, key, &r.scratch); err != nil {
			return err
		}
	}
	for _, b := range bld[last:] {
		b.AppendNull()
	}
	return nil
}

// repeat adds times copies of the joined row of left and right, of kind
// k, emitting a batch whenever batch rows are built.
func (r *rows) repeat(k exec.RowKind, left, right []byte, times uint64, batch int, out exec.Emitter) error {
	for range times {
		if err := r.add(k, left, right); err != nil {
			return err
		}
		if r.n >= batch {
			if err := r.flush(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush emits the rows built so far as one batch carrying their kinds.
func (r *rows) flush(out exec.Emitter) error {
	if r.n == 0 {
		return nil
	}
	kinds := r.kinds
	r.kinds = nil // handed over with the batch
	return out.Emit(exec.WithKinds(r.batch(), kinds))
}

// batch returns the rows built so far as a plain batch, and starts over;
// the candidate pairs of a residual condition are built this way.
func (r *rows) batch() arrow.RecordBatch {
	cols := make([]arrow.Array, len(r.bld))
	for i, b := range r.bld {
		cols[i] = b.NewArray()
	}
	b := array.NewRecordBatch(r.schema, cols, int64(r.n))
	for _, c := range cols {
		c.Release()
	}
	r.kinds, r.n = r.kinds[:0], 0
	return b
}

func (r *rows) release() {
	for _, b := range r.bld {
		b.Release()
	}
}
