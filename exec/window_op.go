package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// WindowAgg runs a window.Aggregate as an operator: batches are folded into
// their windows, and a watermark fires the windows it passes.
type WindowAgg struct {
	Spec window.Spec
	UID  string

	agg     *window.Aggregate
	metrics *Metrics

	// Checkpointed state; nil store when the job does not checkpoint.
	store  *state.Store
	maxPar int
	lo, hi int
}

// Open implements Opener.
func (w *WindowAgg) Open(ctx *TaskContext) error {
	spec := w.Spec
	spec.BatchSize = ctx.BatchSize
	agg, err := window.New(spec, ctx.Alloc)
	if err != nil {
		return err
	}
	w.agg, w.metrics = agg, ctx.Metrics
	if ctx.Checkpoint != nil {
		return w.openState(ctx)
	}
	return nil
}

// Process implements Operator.
func (w *WindowAgg) Process(b arrow.RecordBatch, _ Emitter) error {
	dropped, err := w.agg.Add(b)
	if dropped > 0 {
		w.metrics.LateRows.Add(dropped)
	}
	return err
}

// OnWatermark implements WatermarkHandler.
func (w *WindowAgg) OnWatermark(wm int64, out Emitter) error {
	return w.agg.Advance(wm, out.Emit)
}

// AssignWindow appends window_start, window_end and window_time to every
// row: a window table function whose output is not aggregated.
type AssignWindow struct {
	TimeCol int
	Window  window.Tumble
	Out     types.Schema

	schema *arrow.Schema
	alloc  memory.Allocator
}

// Open implements Opener.
func (a *AssignWindow) Open(ctx *TaskContext) error {
	a.schema, a.alloc = a.Out.Arrow(), ctx.Alloc
	return nil
}

// Process implements Operator.
func (a *AssignWindow) Process(b arrow.RecordBatch, out Emitter) error {
	ts := b.Column(a.TimeCol).(*array.Timestamp)
	n := ts.Len()
	start := array.NewTimestampBuilder(a.alloc, &arrow.TimestampType{Unit: arrow.Millisecond})
	end := array.NewTimestampBuilder(a.alloc, &arrow.TimestampType{Unit: arrow.Millisecond})
	wt := array.NewTimestampBuilder(a.alloc, &arrow.TimestampType{Unit: arrow.Millisecond})
	defer start.Release()
	defer end.Release()
	defer wt.Release()
	start.Reserve(n)
	end.Reserve(n)
	wt.Reserve(n)
	for i, v := range ts.TimestampValues() {
		if ts.IsNull(i) {
			start.AppendNull()
			end.AppendNull()
			wt.AppendNull()
			continue
		}
		s := a.Window.Start(int64(v))
		start.UnsafeAppend(arrow.Timestamp(s))
		end.UnsafeAppend(arrow.Timestamp(s + a.Window.Size))
		wt.UnsafeAppend(arrow.Timestamp(s + a.Window.Size - 1))
	}
	cols := append(append([]arrow.Array{}, b.Columns()...), start.NewArray(), end.NewArray(), wt.NewArray())
	defer func() {
		for _, c := range cols[len(cols)-3:] {
			c.Release()
		}
	}()
	return out.Emit(array.NewRecordBatch(a.schema, cols, b.NumRows()))
}

// NewWindowAgg returns the window aggregate operator over input schema in.
func NewWindowAgg(uid string, in types.Schema, timeCol int, w window.Tumble, keys []int, aggs []window.Agg) (*WindowAgg, error) {
	spec := window.Spec{Window: w, In: in, TimeCol: timeCol, Keys: keys, Aggs: aggs}
	if _, err := window.New(spec, memory.DefaultAllocator); err != nil {
		return nil, err
	}
	return &WindowAgg{Spec: spec, UID: uid}, nil
}
