package exec

import (
	"fmt"
	"path/filepath"

	"github.com/strandsql/strand/state"
)

// openState gives the window aggregate a local state store and, on a
// restore, loads the checkpointed state of its key-group range: from the
// old subtasks whose ranges overlap it, whatever the old parallelism was.
func (w *WindowAgg) openState(ctx *TaskContext) error {
	cp := ctx.Checkpoint
	w.lo, w.hi = KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	w.agg.Track()
	w.agg.StoreProgress(w.lo, w.hi)
	dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", w.UID, ctx.Subtask))
	if err := cp.FS.RemoveAll(dir); err != nil {
		return err
	}
	store, err := state.OpenIngesting(cp.FS, dir)
	if err != nil {
		return err
	}
	w.store = store
	rv, err := ctx.Restored(w.UID, w.Spec.Fingerprint(), w.lo, w.hi)
	if err != nil {
		return err
	}
	if rv == nil {
		w.agg.UseStore(w.openStore, w.UID, w.maxPar, 0)
		return nil
	}
	// Spills of this run must not overwrite those of the runs whose
	// checkpoints it restores, which all came before this checkpoint.
	w.agg.UseStore(w.openStore, w.UID, w.maxPar, uint64(rv.ID())+1)
	if err := rv.Scan("", w.agg.Load); err != nil {
		return err
	}
	defer w.countSpills()
	return w.agg.Restored()
}

func (w *WindowAgg) openStore() (*state.Store, error) { return w.store, nil }

// Snapshot implements Snapshotter: it writes what changed since the last
// checkpoint to the store and takes the store's synchronous snapshot, a
// delta one when it may (state.Store.SnapshotDelta).
func (w *WindowAgg) Snapshot(id int64) (OperatorSnapshot, error) {
	// Written as one ingested SST: an entry per window and key group with
	// changes, large ones at the first checkpoint (every group), which a
	// Batch would copy through the memtable and a flush.
	if w.sorted == nil {
		w.sorted = w.store.NewSorted() // kept: its buffers are reused at every checkpoint
	}
	w.agg.Flush(w.sorted)
	sn, err := w.store.SnapshotDelta(id, w.sorted)
	if err != nil {
		// A fresh Sorted after a failure, so that no write of this one
		// can be applied after the next checkpoint's (parts of windows
		// that have spilled or fired since would come back), whatever
		// it left behind. The next Flush writes every change again.
		w.sorted = nil
		return OperatorSnapshot{}, err
	}
	w.agg.Flushed()
	w.measure()
	return OperatorSnapshot{UID: w.UID, Fingerprint: w.Spec.Fingerprint(), KeyGroupLo: w.lo, KeyGroupHi: w.hi, State: sn}, nil
}

// Close implements Closer.
func (w *WindowAgg) Close() error {
	if w.agg != nil {
		w.agg.Release()
	}
	return closeStore(&w.store, &w.tmp)
}
