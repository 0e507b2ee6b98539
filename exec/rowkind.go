package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// RowKind is what a row of a changelog means, as Flink's RowKind: an
// insertion, the retraction of an update's old value, an update's new
// value, or a deletion.
type RowKind uint8

// The row kinds, in Flink's notation +I, -U, +U, -D.
const (
	Insert RowKind = iota
	UpdateBefore
	UpdateAfter
	Delete
)

func (k RowKind) String() string { return [...]string{"+I", "-U", "+U", "-D"}[k] }

// Retracts reports whether a row of kind k takes a row back (-U, -D).
func (k RowKind) Retracts() bool { return k == UpdateBefore || k == Delete }

// changes is a batch whose rows carry kinds: the kind vector travels
// beside the columns rather than as one of them, so the schema of a batch
// is the same whatever its changelog mode, and an append-only batch (a
// plain arrow.RecordBatch) pays nothing for it.
type changes struct {
	arrow.RecordBatch
	kinds []RowKind
}

// Kinds returns the kind of each row of b, or nil when every row is an
// insertion: the batches of an append-only stream carry no kinds at all.
// The slice is b's: the caller must not change it.
func Kinds(b arrow.RecordBatch) []RowKind {
	if c, ok := b.(*changes); ok {
		return c.kinds
	}
	return nil
}

// KindOf returns the kind of row i of b.
func KindOf(b arrow.RecordBatch, i int) RowKind {
	if c, ok := b.(*changes); ok {
		return c.kinds[i]
	}
	return Insert
}

// WithKinds returns b, whose reference it takes over, with kinds (one per
// row) as its rows' kinds. Without any retraction or update it is b as it
// is, a batch of insertions. kinds must not be changed afterwards.
func WithKinds(b arrow.RecordBatch, kinds []RowKind) arrow.RecordBatch {
	if c, ok := b.(*changes); ok {
		b = c.RecordBatch
	}
	if !anyChange(kinds) {
		return b
	}
	if len(kinds) != int(b.NumRows()) {
		panic("exec: WithKinds: one kind per row")
	}
	return &changes{RecordBatch: b, kinds: kinds}
}

// Rekind returns out, a batch computed row for row from in (the same rows
// in the same order), with in's kinds. It takes over out.
func Rekind(out, in arrow.RecordBatch) arrow.RecordBatch {
	k := Kinds(in)
	if k == nil {
		return out
	}
	return WithKinds(out, k)
}

// TakeKinds returns the kinds of the rows sel of b, nil when they are all
// insertions.
func TakeKinds(b arrow.RecordBatch, sel []int32) []RowKind {
	k := Kinds(b)
	if k == nil {
		return nil
	}
	out := make([]RowKind, len(sel))
	for i, s := range sel {
		out[i] = k[s]
	}
	if !anyChange(out) {
		return nil
	}
	return out
}

func anyChange(kinds []RowKind) bool {
	for _, k := range kinds {
		if k != Insert {
			return true
		}
	}
	return false
}

// NewSlice keeps the kinds of the rows sliced.
func (c *changes) NewSlice(i, j int64) arrow.RecordBatch {
	return WithKinds(c.RecordBatch.NewSlice(i, j), c.kinds[i:j])
}

// SetColumn keeps the rows' kinds.
func (c *changes) SetColumn(i int, col arrow.Array) (arrow.RecordBatch, error) {
	r, err := c.RecordBatch.SetColumn(i, col)
	if err != nil {
		return nil, err
	}
	return WithKinds(r, c.kinds), nil
}
