package exec

import (
	"fmt"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/window"
)

// SessionAgg runs a window.Sessions as an operator: batches are folded into
// their keys' sessions, and a watermark fires the sessions that end before
// it. Its state lives in the subtask's managed memory; a checkpointing job
// also keeps a local state store that each checkpoint writes the changed
// keys' sessions to.
type SessionAgg struct {
	Spec window.Spec
	UID  string

	agg     *window.Sessions
	metrics *Metrics
	sub     *SubtaskMetrics
	maxPar  int
	lo, hi  int
	store   *state.Store
	sorted  *state.Sorted
}

// NewSessionAgg returns the session window aggregate operator of spec.
func NewSessionAgg(uid string, spec window.Spec) (*SessionAgg, error) {
	if _, err := window.NewSessions(spec, memory.DefaultAllocator); err != nil {
		return nil, err
	}
	return &SessionAgg{Spec: spec, UID: uid}, nil
}

// Open implements Opener.
func (w *SessionAgg) Open(ctx *TaskContext) error {
	spec := w.Spec
	spec.BatchSize = ctx.BatchSize
	agg, err := window.NewSessions(spec, ctx.Alloc)
	if err != nil {
		return err
	}
	w.agg, w.metrics, w.sub, w.maxPar = agg, ctx.Metrics, ctx.counters(), ctx.MaxParallelism
	if ctx.Memory != nil {
		agg.UseMemory(ctx.Memory)
	}
	agg.UseStore(w.UID, func(key []byte) uint16 { return uint16(KeyGroup(key, w.maxPar)) })
	if ctx.Checkpoint == nil {
		return nil
	}
	cp := ctx.Checkpoint
	w.lo, w.hi = KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	agg.Track()
	dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", w.UID, ctx.Subtask))
	if err := cp.FS.RemoveAll(dir); err != nil {
		return err
	}
	if w.store, err = state.Open(cp.FS, dir); err != nil {
		return err
	}
	rv, err := ctx.Restored(w.UID, agg.Fingerprint(), w.lo, w.hi)
	if err != nil || rv == nil {
		return err
	}
	return rv.Scan("", agg.Load)
}

// Process implements Operator.
func (w *SessionAgg) Process(b arrow.RecordBatch, _ Emitter) error {
	dropped, err := w.agg.Add(b)
	if dropped > 0 {
		w.metrics.LateRows.Add(dropped)
		w.sub.LateRows.Add(dropped)
	}
	return err
}

// OnWatermark implements WatermarkHandler.
func (w *SessionAgg) OnWatermark(wm int64, out Emitter) error {
	return w.agg.Advance(wm, out.Emit)
}

// Snapshot implements Snapshotter: it writes the keys whose sessions
// changed since the last checkpoint to the store and takes the store's
// synchronous snapshot.
func (w *SessionAgg) Snapshot(id int64) (OperatorSnapshot, error) {
	if w.sorted == nil {
		w.sorted = w.store.NewSorted()
	}
	w.agg.Flush(w.sorted)
	if err := w.sorted.Commit(); err != nil {
		// The next Flush writes every change again, into a new Sorted.
		w.sorted = nil
		return OperatorSnapshot{}, err
	}
	sn, err := w.store.Snapshot(id)
	if err != nil {
		return OperatorSnapshot{}, err
	}
	w.agg.Flushed()
	w.sub.StateSpilled.Store(w.store.DiskUsage())
	return OperatorSnapshot{UID: w.UID, Fingerprint: w.agg.Fingerprint(), KeyGroupLo: w.lo, KeyGroupHi: w.hi, State: sn}, nil
}

// Close implements Closer.
func (w *SessionAgg) Close() error {
	if w.agg != nil {
		w.agg.Release()
	}
	if w.store == nil {
		return nil
	}
	err := w.store.Close()
	w.store = nil
	return err
}
