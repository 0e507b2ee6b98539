package join

import (
	"errors"
	"os"

	"github.com/strandsql/strand/exec"
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
	// cache holds a regular join's rows in managed memory in front of
	// writes (state.Cache); nil for the other joins.
	cache *state.Cache
	// ingesting opens the store for ingested SSTs (a window join's).
	ingesting bool
	// gauge measures the store's size into the subtask's metrics.
	gauge exec.StateGauge
}

// open opens the subtask's store and, on a restore, fills it with the
// subtask's key groups from every old subtask (exec.RestoreView), so a
// join rescales; a state name for which known is false is corrupt.
func (k *keyed) open(ctx *exec.TaskContext, known func(name string) bool) error {
	k.maxPar = ctx.MaxParallelism
	k.lo, k.hi = exec.KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	open := exec.OpenStore
	if k.ingesting {
		open = exec.OpenIngestingStore
	}
	var err error
	if k.store, k.tmp, err = open(ctx, k.uid); err != nil {
		return err
	}
	k.writes = k.store.NewIndexedBatch()
	k.gauge.Open(ctx, k.store)
	return exec.RestoreKeyed(ctx, k.uid, k.fingerprint, k.lo, k.hi, k.writes, known)
}

// kg is the key group of an encoded join key.
func (k *keyed) kg(jk []byte) uint16 { return uint16(exec.KeyGroup(jk, k.maxPar)) }

// commitSome commits the pending writes once they are large.
func (k *keyed) commitSome() error { return exec.CommitLarge(k.writes) }

// snapshot implements exec.Snapshotter: the store holds the state once
// the pending writes are committed.
func (k *keyed) snapshot(id int64) (exec.OperatorSnapshot, error) {
	if k.cache != nil {
		if err := k.cache.WriteBack(); err != nil {
			return exec.OperatorSnapshot{}, err
		}
	}
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
	if k.cache != nil {
		k.cache.Release()
		k.cache = nil
	}
	err := k.store.Close()
	k.store = nil
	if k.tmp != "" {
		err = errors.Join(err, os.RemoveAll(k.tmp))
	}
	return err
}
