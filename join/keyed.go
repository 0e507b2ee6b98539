package join

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// keyed is the keyed state of a join subtask, regular or interval: its
// store, the writes pending in an indexed batch (read back row by row,
// committed after each input batch), and the key groups it owns.
type keyed struct {
	uid, fingerprint string
	maxPar           int
	lo, hi           int // the key groups owned, inclusive
	store            *state.Store
	tmp              string // the private store's directory, for a job without checkpoints
	writes           *state.Batch
}

// open opens the subtask's store and, on a restore, fills it with the
// subtask's key groups from every old subtask (exec.RestoreView), so a
// join rescales; a state name for which known is false is corrupt.
func (k *keyed) open(ctx *exec.TaskContext, known func(name string) bool) error {
	k.maxPar = ctx.MaxParallelism
	k.lo, k.hi = exec.KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	if cp := ctx.Checkpoint; cp != nil {
		dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", k.uid, ctx.Subtask))
		if err := cp.FS.RemoveAll(dir); err != nil {
			return err
		}
		st, err := state.Open(cp.FS, dir)
		if err != nil {
			return err
		}
		k.store = st
	} else {
		parent, err := ctx.Scratch.Dir()
		if err != nil {
			return err
		}
		if k.tmp, err = os.MkdirTemp(parent, "join-"); err != nil {
			return err
		}
		if k.store, err = state.Open(vfs.Default, k.tmp); err != nil {
			return err
		}
	}
	k.writes = k.store.NewIndexedBatch()
	rv, err := ctx.Restored(k.uid, k.fingerprint, k.lo, k.hi)
	if err != nil || rv == nil {
		return err
	}
	err = rv.Scan("", func(kg uint16, name string, key, value []byte) error {
		if !known(name) {
			return fmt.Errorf("%w: join state named %q", memseg.ErrCorrupt, name)
		}
		k.writes.Set(k.uid, kg, name, key, value)
		return k.commitSome()
	})
	if err != nil {
		return err
	}
	return k.writes.Commit()
}

// kg is the key group of an encoded join key.
func (k *keyed) kg(jk []byte) uint16 { return uint16(exec.KeyGroup(jk, k.maxPar)) }

// commitSome commits the pending writes once they are large, so that a
// batch of many rows does not hold them all on the heap.
func (k *keyed) commitSome() error {
	if k.writes.Len() < commitBytes {
		return nil
	}
	return k.writes.Commit()
}

// snapshot implements exec.Snapshotter: the store holds the state once
// the pending writes are committed.
func (k *keyed) snapshot(id int64) (exec.OperatorSnapshot, error) {
	if err := k.writes.Commit(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	sn, err := k.store.Snapshot(id)
	if err != nil {
		return exec.OperatorSnapshot{}, err
	}
	return exec.OperatorSnapshot{UID: k.uid, Fingerprint: k.fingerprint, KeyGroupLo: k.lo, KeyGroupHi: k.hi, State: sn}, nil
}

// close closes the store and removes a private one.
func (k *keyed) close() error {
	if k.store == nil {
		return nil
	}
	err := k.store.Close()
	k.store = nil
	if k.tmp != "" {
		err = errors.Join(err, os.RemoveAll(k.tmp))
	}
	return err
}
