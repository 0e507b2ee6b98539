package rank

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// commitBytes bounds the writes an operator outside windows holds in its
// batch before committing them, within one input batch.
const commitBytes = 4 << 20

// keyed is the state of a Top-N or deduplication outside windows, as the
// join's: one state.Store per subtask holding the subtask's key groups,
// written through an indexed batch that the operator reads back row by row
// and commits after each input batch. The key group of an entry is the
// one of its partition key, the key the hash exchange in front of the
// operator routes rows by, so a restore at another parallelism hands each
// subtask the entries of its own keys.
type keyed struct {
	uid, fingerprint string
	maxPar           int
	lo, hi           int
	store            *state.Store
	tmp              string // the private store's directory, for a job without checkpoints
	writes           *state.Batch
}

// open opens the store and, on a restore, fills it with the subtask's key
// groups of the checkpoint; names are the state names the operator keeps.
func (k *keyed) open(ctx *exec.TaskContext, uid, fingerprint string, names ...string) error {
	k.uid, k.fingerprint, k.maxPar = uid, fingerprint, ctx.MaxParallelism
	if k.maxPar <= 0 {
		k.maxPar = exec.DefaultMaxParallelism
	}
	k.lo, k.hi = exec.KeyGroups(ctx.Subtask, k.maxPar, max(ctx.Parallelism, 1))
	if cp := ctx.Checkpoint; cp != nil {
		dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", uid, ctx.Subtask))
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
		if k.tmp, err = os.MkdirTemp(parent, "rank-"); err != nil {
			return err
		}
		if k.store, err = state.Open(vfs.Default, k.tmp); err != nil {
			return err
		}
	}
	k.writes = k.store.NewIndexedBatch()
	rv, err := ctx.Restored(uid, fingerprint, k.lo, k.hi)
	if err != nil || rv == nil {
		return err
	}
	err = rv.Scan("", func(kg uint16, name string, key, value []byte) error {
		if !slices.Contains(names, name) {
			return fmt.Errorf("%w: %s state named %q", memseg.ErrCorrupt, uid, name)
		}
		k.writes.Set(uid, kg, name, key, value)
		return k.commitSome()
	})
	if err != nil {
		return err
	}
	return k.writes.Commit()
}

// group is the key group of a partition key.
func (k *keyed) group(part []byte) uint16 { return uint16(exec.KeyGroup(part, k.maxPar)) }

// commitSome commits the pending writes once they are large, so that a
// batch of many rows does not hold them all on the heap.
func (k *keyed) commitSome() error {
	if k.writes.Len() < commitBytes {
		return nil
	}
	return k.writes.Commit()
}

// snapshot commits the pending writes and snapshots the store.
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
