package exec

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/checkpoint"
)

// ElemKind says what an Element carries.
type ElemKind uint8

// Element kinds. Control elements travel in the same channel as batches,
// in order, so a watermark or barrier never overtakes the rows before it.
const (
	ElemBatch ElemKind = iota
	ElemWatermark
	ElemBarrier
	ElemEnd
)

// Element is what flows through a channel between two subtasks. A channel
// carries the elements of exactly one sender, in the order it sent them.
type Element struct {
	Kind ElemKind
	// Batch is set for ElemBatch. The receiver owns it and releases it.
	Batch arrow.RecordBatch
	// Part, when set with Batch, is the share of Batch this element
	// carries: a hash exchange sends one batch to every receiver that
	// has rows of it, each with the rows that are its own (Batch is
	// retained once per receiver), instead of a copy of those rows. The
	// receiver gives it back with Part.Free once it is done with it.
	Part *Part
	// Watermark is set for ElemWatermark: no later element of this channel
	// has an event time at or below it that belongs to a fired window.
	Watermark int64
	// Idle, with ElemWatermark, says instead that the sender's input is
	// idle (table.exec.source.idle-timeout): the receiver leaves the
	// channel out of its watermark until the channel sends a batch or a
	// watermark again.
	Idle bool
	// Barrier is set for ElemBarrier.
	Barrier checkpoint.Barrier
}

// Part is a hash exchange's share of a batch for one receiver, and the
// key hashes it computed for its rows, so that the receiver does not copy
// the rows or hash their keys again.
type Part struct {
	// Rows are the rows of the batch that the element carries, in batch
	// order; nil means every row.
	Rows []int32
	// Hashes[i] is the key hash of the element's i-th row (Rows[i], or
	// row i when Rows is nil): memseg.Hash of the row's normalized key
	// over Keys (memseg.HashInt64 of the value for one integer-like
	// column, the same function), the hash whose key group picked the
	// receiver. Nil when the exchange did not hash.
	Hashes []uint64
	// Keys are the key columns hashed: the edge's Keys.
	Keys []int
}

var parts = sync.Pool{New: func() any { return new(Part) }}

// newPart returns an empty Part over keys, its slices reused.
func newPart(keys []int) *Part {
	p := parts.Get().(*Part)
	p.Rows, p.Hashes, p.Keys = p.Rows[:0], p.Hashes[:0], keys
	return p
}

// Free gives the Part back for reuse; it must not be used afterwards.
func (p *Part) Free() {
	p.Keys = nil
	parts.Put(p)
}
