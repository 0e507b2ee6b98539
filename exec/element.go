package exec

import (
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
	// Watermark is set for ElemWatermark: no later element of this channel
	// has an event time at or below it that belongs to a fired window.
	Watermark int64
	// Barrier is set for ElemBarrier.
	Barrier checkpoint.Barrier
}
