package exec

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/types"
)

// VertexMetrics are one vertex's counters, summed over its subtasks,
// updated once per batch: rows into its chain, rows out of it, and each
// subtask's current watermark.
type VertexMetrics struct {
	ID          int
	Name        string
	Parallelism int
	RowsIn      atomic.Int64
	RowsOut     atomic.Int64
	watermarks  []atomic.Int64
}

func newVertexMetrics(v *Vertex) *VertexMetrics {
	m := &VertexMetrics{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, watermarks: make([]atomic.Int64, v.Parallelism)}
	for i := range m.watermarks {
		m.watermarks[i].Store(types.MinWatermark)
	}
	return m
}

// Watermark is the vertex's event time: the lowest watermark of its
// subtasks, types.MinWatermark before every subtask has one.
func (m *VertexMetrics) Watermark() int64 {
	wm := types.MaxWatermark
	for i := range m.watermarks {
		wm = min(wm, m.watermarks[i].Load())
	}
	return wm
}

// counted counts the rows a chain emits.
type counted struct {
	next Emitter
	m    *VertexMetrics
}

func (c *counted) Emit(b arrow.RecordBatch) error {
	c.m.RowsOut.Add(b.NumRows())
	return c.next.Emit(b)
}
