package exec

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// VertexMetrics are one vertex's counters, updated once per batch: rows
// into its chain and out of it summed over its subtasks, and each
// subtask's own counters (Subtasks).
type VertexMetrics struct {
	ID          int
	Name        string
	Parallelism int
	RowsIn      atomic.Int64
	RowsOut     atomic.Int64
	Subtasks    []SubtaskMetrics
}

// SubtaskMetrics are one subtask's counters. The state and buffer figures
// are read when asked for, from the subtask's memory manager and channels,
// so that they cost the task nothing.
type SubtaskMetrics struct {
	RowsIn   atomic.Int64
	RowsOut  atomic.Int64
	LateRows atomic.Int64 // dropped at the source or by a window that had fired
	// BadRows are rows the source task skipped for a NULL event time;
	// a connector's unparsable rows (ignore-parse-errors) are counted only
	// in the job's Metrics, which its reader is given.
	BadRows atomic.Int64
	Spills  atomic.Int64 // windows spilled to the state store
	// StateSpilled is the size in bytes of the subtask's state store on
	// disk as of its latest spill or checkpoint; 0 before either. A keyed
	// operator outside windows, whose state is its store, measures it
	// (and StateMemtable) at most once a second (StateGauge).
	StateSpilled atomic.Int64
	// StateKeys is the entries a join's or a deduplication's store holds
	// (StateGauge.Keys): what a state TTL keeps flat.
	StateKeys atomic.Int64
	// StateMemtable is the bytes of a keyed operator's store held in its
	// memtables, outside managed memory.
	StateMemtable atomic.Int64

	watermark atomic.Int64
	memory    *memseg.Manager
	ins       []<-chan Element
	outs      []chan<- Element
}

func newVertexMetrics(v *Vertex) *VertexMetrics {
	m := &VertexMetrics{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, Subtasks: make([]SubtaskMetrics, v.Parallelism)}
	for i := range m.Subtasks {
		m.Subtasks[i].watermark.Store(types.MinWatermark)
	}
	return m
}

// Watermark is the vertex's event time: the lowest watermark of its
// subtasks, types.MinWatermark before every subtask has one.
func (m *VertexMetrics) Watermark() int64 {
	wm := types.MaxWatermark
	for i := range m.Subtasks {
		wm = min(wm, m.Subtasks[i].Watermark())
	}
	return wm
}

// Watermark is the subtask's current watermark, types.MinWatermark
// before it has one.
func (s *SubtaskMetrics) Watermark() int64 { return s.watermark.Load() }

// StateMemory is the managed memory the subtask's operators hold, in
// bytes; 0 for a subtask without managed memory.
func (s *SubtaskMetrics) StateMemory() int64 {
	if s.memory == nil {
		return 0
	}
	return s.memory.Used()
}

// InputFill is how full the subtask's input channels are, from 0 (empty)
// to 1 (every buffer taken): near 1, the subtask does not keep up with its
// input, as Flink's inPoolUsage. 0 for a source.
func (s *SubtaskMetrics) InputFill() float64 { return fill(s.ins) }

// OutputFill is how full the channels the subtask writes to are: near 1,
// the subtask is backpressured, waiting for the vertex downstream, as
// Flink's outPoolUsage. 0 for a sink.
func (s *SubtaskMetrics) OutputFill() float64 { return fill(s.outs) }

func fill[C ~<-chan Element | ~chan<- Element](chans []C) float64 {
	var n, c int
	for _, ch := range chans {
		n += len(ch)
		c += cap(ch)
	}
	if c == 0 {
		return 0
	}
	return float64(n) / float64(c)
}

// counted counts the rows a chain emits.
type counted struct {
	next Emitter
	m    *VertexMetrics
	sub  *SubtaskMetrics
}

func (c *counted) Emit(b arrow.RecordBatch) error {
	c.m.RowsOut.Add(b.NumRows())
	c.sub.RowsOut.Add(b.NumRows())
	return c.next.Emit(b)
}
