package exec

import (
	"fmt"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// SessionAgg runs a window.Sessions as an operator: batches are folded into
// their keys' sessions, and a watermark fires the sessions that end before
// it. Its state lives in the subtask's managed memory and spills to a state
// store when that runs out: the checkpointed store, which each checkpoint
// writes the changed keys' sessions to, or in a job without checkpoints a
// private one in the run's scratch directory, removed on Close.
//
// A session is emitted once the watermark has passed its end, one
// millisecond after its rowtime (end - 1); the operator holds its output's
// watermark back by two (SessionHold), so that its rows come before the
// watermark of their rowtime, as a fixed window's do: a window Top-N or
// another window after it finds none of them late.
type SessionAgg struct {
	Spec window.Spec
	UID  string

	sessionRun
	maxPar  int
	lo, hi  int
	store   *state.Store
	tmp     string
	scratch *Scratch
	sorted  *state.Sorted
}

// SessionHold is how far a session operator holds its output's watermark
// back: a session fires at a watermark past its end, so at end + 1 or
// later, and its rows have rowtime end - 1. Behind by two, every row a
// later watermark fires has a rowtime past the watermark forwarded before
// it.
const SessionHold = 2

// HoldSessions is the watermark a session operator forwards once its
// input's reached wm (WatermarkHolder).
func HoldSessions(wm int64) int64 {
	if wm == types.MaxWatermark || wm < types.MinWatermark+SessionHold {
		return wm
	}
	return wm - SessionHold
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
	w.sessionRun = sessionRun{agg: agg, metrics: ctx.Metrics, sub: ctx.counters(), store: &w.store}
	w.gauge.sub = w.sub
	w.maxPar, w.scratch = ctx.MaxParallelism, ctx.Scratch
	if ctx.Memory != nil {
		agg.UseMemory(ctx.Memory)
	}
	if ctx.Checkpoint == nil {
		agg.UseStore(w.spillStore, w.UID, w.maxPar)
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
	agg.UseStore(func() (*state.Store, error) { return w.store, nil }, w.UID, w.maxPar)
	rv, err := ctx.Restored(w.UID, agg.Fingerprint(), w.lo, w.hi)
	if err != nil || rv == nil {
		return err
	}
	if err := rv.Scan("", agg.Load); err != nil {
		return err
	}
	defer w.countSpills()
	return agg.Restored()
}

// spillStore opens a private store for a job that does not checkpoint.
func (w *SessionAgg) spillStore() (*state.Store, error) {
	st, tmp, err := scratchStore(w.scratch, "spill-")
	w.store, w.tmp = st, tmp
	return st, err
}

// Process implements Operator.
func (w *SessionAgg) Process(b arrow.RecordBatch, _ Emitter) error { return w.add(b) }

// sessionRun is what a session operator does with its Sessions besides
// firing them: fold batches into them, counting the late rows and the
// spills in the job's and the subtask's metrics.
type sessionRun struct {
	agg     *window.Sessions
	metrics *Metrics
	sub     *SubtaskMetrics
	store   **state.Store // measured on a spill
	spills  int64         // the spills already counted
	gauge   StateGauge    // records the store's size in sub
}

// add folds b into the sessions.
func (r *sessionRun) add(b arrow.RecordBatch) error {
	dropped, err := r.agg.Add(b)
	if dropped > 0 {
		r.metrics.LateRows.Add(dropped)
		r.sub.LateRows.Add(dropped)
	}
	r.countSpills()
	return err
}

// countSpills adds the sessions' new spills to the metrics, and measures
// the store they went to.
func (r *sessionRun) countSpills() {
	if n := r.agg.Spills(); n > r.spills {
		r.metrics.Spills.Add(n - r.spills)
		r.sub.Spills.Add(n - r.spills)
		r.spills = n
		if st := *r.store; st != nil {
			r.gauge.Disk(st.DiskUsage())
		}
	}
}

// OnWatermark implements WatermarkHandler.
func (w *SessionAgg) OnWatermark(wm int64, out Emitter) error {
	defer w.countSpills()
	return w.agg.Advance(wm, out.Emit)
}

// Held implements WatermarkHolder.
func (w *SessionAgg) Held(wm int64) int64 { return HoldSessions(wm) }

// Snapshot implements Snapshotter: it writes the keys whose sessions
// changed since the last checkpoint to the store and takes the store's
// synchronous snapshot.
func (w *SessionAgg) Snapshot(id int64) (OperatorSnapshot, error) {
	sn, err := snapshotSessions(w.agg, w.store, &w.sorted, id)
	if err != nil {
		return OperatorSnapshot{}, err
	}
	w.gauge.Disk(w.store.DiskUsage())
	return OperatorSnapshot{UID: w.UID, Fingerprint: w.agg.Fingerprint(), KeyGroupLo: w.lo, KeyGroupHi: w.hi, State: sn}, nil
}

// snapshotSessions writes the keys of s whose sessions changed since the
// last checkpoint into store, as one ingested SST (*sorted, made on first
// use and kept for its buffers), and takes the store's synchronous
// snapshot, a delta one when it may (state.Store.SnapshotDelta). A Sorted
// whose snapshot failed is dropped: the next Flush writes every change
// again, into a new one.
func snapshotSessions(s *window.Sessions, store *state.Store, sorted **state.Sorted, id int64) (*state.Snapshot, error) {
	if *sorted == nil {
		*sorted = store.NewSorted()
	}
	s.Flush(*sorted)
	sn, err := store.SnapshotDelta(id, *sorted)
	if err != nil {
		*sorted = nil
		return nil, err
	}
	s.Flushed()
	return sn, nil
}

// Close implements Closer.
func (w *SessionAgg) Close() error {
	if w.agg != nil {
		w.agg.Release()
	}
	return closeStore(&w.store, &w.tmp)
}
