package exec

import (
	"errors"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// WindowAgg runs a window.Aggregate as an operator: batches are folded into
// their windows, and a watermark fires the windows it passes. Its state
// lives in the subtask's managed memory and spills to a state store when
// that runs out: the checkpointed store when the job checkpoints, else a
// private one in the run's scratch directory, removed on Close.
type WindowAgg struct {
	Spec window.Spec
	UID  string

	agg     *window.Aggregate
	metrics *Metrics
	sub     *SubtaskMetrics
	// gauge records the store's size in the subtask's metrics.
	gauge  StateGauge
	spills int64 // the aggregate's spills already counted in metrics

	// Checkpointed state, or the private spill store (tmp its directory);
	// nil until a checkpointing job opens it or a spill needs it.
	store   *state.Store
	tmp     string
	scratch *Scratch
	sorted  *state.Sorted
	maxPar  int
	lo, hi  int
}

// Open implements Opener.
func (w *WindowAgg) Open(ctx *TaskContext) error {
	spec := w.Spec
	spec.BatchSize = ctx.BatchSize
	agg, err := window.New(spec, ctx.Alloc)
	if err != nil {
		return err
	}
	w.agg, w.metrics, w.sub, w.maxPar = agg, ctx.Metrics, ctx.counters(), ctx.MaxParallelism
	w.gauge.sub = w.sub
	if ctx.Memory != nil {
		agg.UseMemory(ctx.Memory)
	}
	if ctx.Checkpoint != nil {
		return w.openState(ctx)
	}
	w.scratch = ctx.Scratch
	agg.UseStore(w.spillStore, w.UID, w.maxPar, 0)
	return nil
}

// spillStore opens a private store for a job that does not checkpoint.
func (w *WindowAgg) spillStore() (*state.Store, error) {
	st, tmp, err := scratchStore(w.scratch, "spill-")
	w.store, w.tmp = st, tmp
	return st, err
}

// scratchStore opens a state store in a new directory (named from
// prefix) of the run's scratch space: a window operator's spill store in a
// job that does not checkpoint. closeStore closes and removes it.
func scratchStore(scratch *Scratch, prefix string) (st *state.Store, dir string, err error) {
	parent, err := scratch.Dir()
	if err != nil {
		return nil, "", err
	}
	if dir, err = os.MkdirTemp(parent, prefix); err != nil {
		return nil, "", err
	}
	if st, err = state.Open(vfs.Default, dir); err != nil {
		return nil, "", errors.Join(err, os.RemoveAll(dir))
	}
	return st, dir, nil
}

// closeStore closes *st, if open, and removes *tmp, the directory of a
// scratch store, if set; both are cleared, so that it may be called again.
func closeStore(st **state.Store, tmp *string) error {
	if *st == nil {
		return nil
	}
	err := (*st).Close()
	*st = nil
	if *tmp != "" {
		err = errors.Join(err, os.RemoveAll(*tmp))
		*tmp = ""
	}
	return err
}

// Process implements Operator.
func (w *WindowAgg) Process(b arrow.RecordBatch, _ Emitter) error {
	dropped, err := w.agg.Add(b)
	w.late(dropped)
	w.countSpills()
	return err
}

// ProcessRows implements RowsProcessor: the aggregate folds the rows of
// p without a copy, and takes p's key hashes when they are over its keys.
func (w *WindowAgg) ProcessRows(b arrow.RecordBatch, p *Part, _ Emitter) error {
	dropped, err := w.agg.AddRows(b, p.Rows, w.hashes(p))
	w.late(dropped)
	w.countSpills()
	return err
}

// hashes returns p's key hashes if they are the aggregate's, else nil.
func (w *WindowAgg) hashes(p *Part) []uint64 {
	if !slices.Equal(p.Keys, w.Spec.Keys) {
		return nil
	}
	return p.Hashes
}

func (w *WindowAgg) late(n int64) {
	if n > 0 {
		w.metrics.LateRows.Add(n)
		w.sub.LateRows.Add(n)
	}
}

// countSpills adds the aggregate's new spills to the job's and the
// subtask's metrics, and measures the store they went to: only on a
// spill, since measuring asks the store for its files.
func (w *WindowAgg) countSpills() {
	if n := w.agg.Spills(); n > w.spills {
		w.metrics.Spills.Add(n - w.spills)
		w.sub.Spills.Add(n - w.spills)
		w.spills = n
		w.measure()
	}
}

// measure records the size of the subtask's state store on disk.
func (w *WindowAgg) measure() {
	if w.store != nil {
		w.gauge.Disk(w.store.DiskUsage())
	}
}

// OnWatermark implements WatermarkHandler.
func (w *WindowAgg) OnWatermark(wm int64, out Emitter) error {
	defer w.countSpills()
	return w.agg.Advance(wm, out.Emit)
}

// ProcWindowAgg is a processing-time window aggregate (Spec.TimeCol -1):
// it folds each batch into the window holding the task's clock when the
// batch arrives, as Flink's processing-time windows do, and fires a window
// once the clock reaches its end, on the next batch or timer tick,
// whichever comes first. Event-time watermarks do not fire it, except the
// final one at the end of a bounded input, which fires every window. Its
// results therefore depend on timing.
type ProcWindowAgg struct {
	WindowAgg

	now func() int64
	// last is the latest processing time seen: the clock is read as never
	// going back, so that a batch never lands in a window already fired.
	last int64
}

// Open implements Opener.
func (w *ProcWindowAgg) Open(ctx *TaskContext) error {
	w.now, w.last = ctx.Now, types.MinWatermark
	return w.WindowAgg.Open(ctx)
}

// Process implements Operator.
func (w *ProcWindowAgg) Process(b arrow.RecordBatch, out Emitter) error {
	return w.add(b, nil, nil, out)
}

// ProcessRows implements RowsProcessor as Process does, for the rows of p.
func (w *ProcWindowAgg) ProcessRows(b arrow.RecordBatch, p *Part, out Emitter) error {
	return w.add(b, p.Rows, w.hashes(p), out)
}

// add folds rows sel of b (every row if nil), whose key hashes are hashes
// (or nil), into the window of the clock's time.
func (w *ProcWindowAgg) add(b arrow.RecordBatch, sel []int32, hashes []uint64, out Emitter) error {
	// Windows that ended before now fire first; now's window ends after
	// now, so it is open and the batch can always join it.
	now := w.clock()
	if err := w.agg.Advance(now-1, out.Emit); err != nil {
		return err
	}
	dropped, err := w.agg.AddRowsAt(b, sel, hashes, now)
	w.late(dropped)
	w.countSpills()
	return err
}

// OnWatermark implements WatermarkHandler: only the end of input fires
// processing-time windows.
func (w *ProcWindowAgg) OnWatermark(wm int64, out Emitter) error {
	if wm != types.MaxWatermark {
		return nil
	}
	defer w.countSpills()
	return w.agg.Advance(wm, out.Emit)
}

// OnProcessingTime implements ProcessingTimeHandler: it fires the windows
// that have ended.
func (w *ProcWindowAgg) OnProcessingTime(out Emitter) error {
	defer w.countSpills()
	return w.agg.Advance(w.clock()-1, out.Emit)
}

// clock reads the task's clock, never going back.
func (w *ProcWindowAgg) clock() int64 {
	w.last = max(w.last, w.now())
	return w.last
}

// AssignWindow appends window_start, window_end and window_time to every
// row: a window table function whose output is not aggregated. A row is
// repeated once per window holding it (HOP and CUMULATE), in the order of
// the windows' ends.
type AssignWindow struct {
	TimeCol int
	Window  window.Assigner
	Out     types.Schema

	schema *arrow.Schema
	alloc  memory.Allocator
	sel    []int32
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
	per := int(a.Window.Size / a.Window.SliceSize())
	start.Reserve(n * per)
	end.Reserve(n * per)
	wt.Reserve(n * per)
	a.sel = a.sel[:0]
	for i, v := range ts.TimestampValues() {
		if ts.IsNull(i) {
			a.sel = append(a.sel, int32(i))
			start.AppendNull()
			end.AppendNull()
			wt.AppendNull()
			continue
		}
		a.Window.Windows(int64(v), func(s, e int64) {
			a.sel = append(a.sel, int32(i))
			start.Append(arrow.Timestamp(s))
			end.Append(arrow.Timestamp(e))
			wt.Append(arrow.Timestamp(e - 1))
		})
	}
	rows := b
	if len(a.sel) != n {
		rows = expr.Take(a.alloc, b, a.sel)
		defer rows.Release()
	}
	cols := append(append([]arrow.Array{}, rows.Columns()...), start.NewArray(), end.NewArray(), wt.NewArray())
	defer func() {
		for _, c := range cols[len(cols)-3:] {
			c.Release()
		}
	}()
	return out.Emit(array.NewRecordBatch(a.schema, cols, int64(len(a.sel))))
}

// NewWindowAgg returns the window aggregate operator of spec: an
// event-time one, or with spec.TimeCol -1 a processing-time one (a
// *ProcWindowAgg).
func NewWindowAgg(uid string, spec window.Spec) (Operator, error) {
	if _, err := window.New(spec, memory.DefaultAllocator); err != nil {
		return nil, err
	}
	if spec.TimeCol < 0 {
		return &ProcWindowAgg{WindowAgg: WindowAgg{Spec: spec, UID: uid}}, nil
	}
	return &WindowAgg{Spec: spec, UID: uid}, nil
}
