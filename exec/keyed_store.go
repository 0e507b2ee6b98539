package exec

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// CommitBytes bounds the writes a keyed operator outside windows (a join,
// a Top-N, a group aggregate) holds in its indexed batch before it
// commits them, within one input batch, so that a batch of many rows does
// not hold them all on the heap.
const CommitBytes = state.CommitBytes

// CommitLarge commits w once it holds CommitBytes or more.
func CommitLarge(w *state.Batch) error { return state.CommitLarge(w) }

// OpenStore opens the state store of the operator uid's subtask: in the
// checkpoint's work directory, emptied first (a restore fills it from the
// checkpoint), or, in a job without checkpoints, in a private directory
// under the task's scratch space, returned as tmp for the operator to
// remove when it closes.
func OpenStore(ctx *TaskContext, uid string) (st *state.Store, tmp string, err error) {
	return openStore(ctx, uid, state.Open)
}

// OpenIngestingStore is OpenStore for an operator that writes its state
// mostly as ingested SSTs (state.OpenIngesting): a window join's spilled
// windows, read once when they fire and then deleted.
func OpenIngestingStore(ctx *TaskContext, uid string) (st *state.Store, tmp string, err error) {
	return openStore(ctx, uid, state.OpenIngesting)
}

func openStore(ctx *TaskContext, uid string, open func(vfs.FS, string) (*state.Store, error)) (st *state.Store, tmp string, err error) {
	if cp := ctx.Checkpoint; cp != nil {
		dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", uid, ctx.Subtask))
		if err := cp.FS.RemoveAll(dir); err != nil {
			return nil, "", err
		}
		st, err := open(cp.FS, dir)
		return st, "", err
	}
	parent, err := ctx.Scratch.Dir()
	if err != nil {
		return nil, "", err
	}
	if tmp, err = os.MkdirTemp(parent, "state-"); err != nil {
		return nil, "", err
	}
	if st, err = open(vfs.Default, tmp); err != nil {
		return nil, "", err
	}
	return st, tmp, nil
}

// RestoreKeyed writes into w the entries of key groups lo..hi of the
// operator uid's restored state, from every old subtask (RestoreView), so
// that the operator rescales, and commits them; a state name for which
// known is false is corrupt. Without a restore it does nothing.
func RestoreKeyed(ctx *TaskContext, uid, fingerprint string, lo, hi int, w *state.Batch, known func(name string) bool) error {
	rv, err := ctx.Restored(uid, fingerprint, lo, hi)
	if err != nil || rv == nil {
		return err
	}
	err = rv.Scan("", func(kg uint16, name string, key, value []byte) error {
		if !known(name) {
			return fmt.Errorf("%w: state of %s named %q", memseg.ErrCorrupt, uid, name)
		}
		w.Set(uid, kg, name, key, value)
		return CommitLarge(w)
	})
	if err != nil {
		return err
	}
	return w.Commit()
}
