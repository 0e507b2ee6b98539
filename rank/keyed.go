package rank

import (
	"errors"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
)

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
	// gauge measures the store's size into the subtask's metrics.
	gauge exec.StateGauge
}

// open opens the store and, on a restore, fills it with the subtask's key
// groups of the checkpoint; names are the state names the operator keeps.
func (k *keyed) open(ctx *exec.TaskContext, uid, fingerprint string, names ...string) error {
	k.uid, k.fingerprint, k.maxPar = uid, fingerprint, ctx.MaxParallelism
	if k.maxPar <= 0 {
		k.maxPar = exec.DefaultMaxParallelism
	}
	k.lo, k.hi = exec.KeyGroups(ctx.Subtask, k.maxPar, max(ctx.Parallelism, 1))
	var err error
	if k.store, k.tmp, err = exec.OpenStore(ctx, uid); err != nil {
		return err
	}
	k.writes = k.store.NewIndexedBatch()
	k.gauge.Open(ctx, k.store)
	return exec.RestoreKeyed(ctx, uid, fingerprint, k.lo, k.hi, k.writes, func(name string) bool { return slices.Contains(names, name) })
}

// group is the key group of a partition key.
func (k *keyed) group(part []byte) uint16 { return uint16(exec.KeyGroup(part, k.maxPar)) }

// commitSome commits the pending writes once they are large.
func (k *keyed) commitSome() error { return exec.CommitLarge(k.writes) }

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

// expiring is the state TTL of a keyed operator of this package (a
// deduplication, a ChangelogNormalize): its clock, the sweeper of its
// state names, and the count of its entries (in keyed's gauge).
type expiring struct {
	clock exec.TTLClock
	sweep state.Sweeper
}

// openTTL starts the TTL of k's state names and counts their restored
// entries.
func (e *expiring) openTTL(ctx *exec.TaskContext, k *keyed, t exec.StateTTL, names ...string) error {
	e.clock.StateTTL = t
	e.clock.Open(ctx)
	e.sweep = state.Sweeper{UID: k.uid, Lo: k.lo, Hi: k.hi, Names: names}
	return k.gauge.CountKeys(k.writes, k.uid, k.lo, k.hi, names...)
}

// bindTTL takes a batch's times, and by processing time sweeps.
func (e *expiring) bindTTL(k *keyed, b arrow.RecordBatch) error {
	if err := e.clock.Bind(b); err != nil {
		return err
	}
	e.sweep.Wrote(int(b.NumRows()))
	if e.clock.TTL.On() && e.clock.TimeCol < 0 {
		return e.sweepAt(k, e.clock.SweepTime())
	}
	return nil
}

// watermarkTTL sweeps, by event time, when the watermark advances.
func (e *expiring) watermarkTTL(k *keyed, wm int64) error {
	if !e.clock.Watermark(wm) {
		return nil
	}
	if err := e.sweepAt(k, wm); err != nil {
		return err
	}
	return k.writes.Commit()
}

func (e *expiring) sweepAt(k *keyed, now int64) error {
	n, err := e.sweep.Sweep(e.clock.TTL, k.writes, now)
	k.gauge.Keys(-int64(n))
	return err
}

// read is a stored entry of row r: its value after the stamp, when it was
// last written (r's time if it was not) and whether it is live at r's
// time; found false reads as absent.
func (e *expiring) read(v []byte, found bool, r int) (rest []byte, at int64, live bool, err error) {
	now := e.clock.At(r)
	if !found {
		return nil, now, false, nil
	}
	return e.clock.TTL.Read(v, now)
}

// stamp appends the stamp of an entry row r writes, last written at at.
func (e *expiring) stamp(dst []byte, at int64, r int) []byte {
	return e.clock.TTL.Stamp(dst, max(at, e.clock.At(r)))
}
