package groupagg

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// State names: a group's entry, and the DISTINCT values of an argument
// column (distinctName).
const groupName = "group"

func distinctName(col int) string { return fmt.Sprintf("distinct%d", col) }

// Agg is the group aggregate operator. See the package documentation.
type Agg struct {
	spec Spec

	maxPar, batchSize int
	lo, hi            int
	alloc             memory.Allocator
	now               func() int64

	store  *state.Store
	tmp    string // the private store's directory, for a job without checkpoints
	writes *state.Batch

	accs     []agg.Acc
	rets     []agg.Retracter // rets[i] is accs[i] when the input retracts
	distinct []distinctCol
	keyEnc   memseg.KeyEncoder
	keyTypes []memseg.Type

	cache
	seg segment

	clock exec.TTLClock
	sweep state.Sweeper
	gauge exec.StateGauge

	// A mini-batch's input, folded when it is flushed.
	bundle     []arrow.RecordBatch
	bundleRows int
	bundleAt   int64 // when the bundle's first batch came (ms)
}

// New checks spec and returns the operator; it is an OpSpec's
// constructor.
func New(spec Spec) (*Agg, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	a := &Agg{spec: spec}
	for _, c := range spec.Aggs {
		ac, _ := spec.newAcc(c) // check has made each
		a.accs = append(a.accs, ac)
		if spec.Retract {
			a.rets = append(a.rets, ac.(agg.Retracter))
		}
	}
	for i, c := range spec.Aggs {
		if !c.Distinct || c.Arg < 0 {
			continue
		}
		at := -1
		for j, d := range a.distinct {
			if d.col == c.Arg {
				at = j
			}
		}
		if at < 0 {
			at = len(a.distinct)
			a.distinct = append(a.distinct, distinctCol{col: c.Arg, name: distinctName(c.Arg)})
		}
		a.distinct[at].aggs = append(a.distinct[at].aggs, i)
	}
	for _, k := range spec.Keys {
		t, _ := memseg.TypeOf(spec.In[k].Type.Arrow())
		a.keyTypes = append(a.keyTypes, t)
	}
	return a, nil
}

// Open implements exec.Opener: it opens the state store and, on a
// restore, fills it with the subtask's key groups of the checkpoint.
func (a *Agg) Open(ctx *exec.TaskContext) error {
	a.maxPar, a.batchSize, a.alloc, a.now = ctx.MaxParallelism, ctx.BatchSize, ctx.Alloc, ctx.Now
	a.lo, a.hi = exec.KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	mem := ctx.Memory
	if mem == nil {
		var err error
		if mem, err = memseg.NewManager(memseg.DefaultBudget, memseg.DefaultSegmentSize); err != nil {
			return err
		}
	}
	a.cache.init(mem, a.accs)
	for _, d := range a.distinct {
		a.dist = append(a.dist, memseg.NewHashTable(mem, distAccSize(len(d.aggs))))
		a.distBytes += distAccSize(len(d.aggs)) + 64 // the entry's header and key, its bucket
	}
	if len(a.dist) > 0 {
		a.slotBytes += 4 + 1 // gen, full
	}
	a.seg.init(a)
	var err error
	if a.store, a.tmp, err = exec.OpenStore(ctx, a.spec.UID); err != nil {
		return err
	}
	a.writes = a.store.NewIndexedBatch()
	a.clock.StateTTL = a.spec.TTL
	a.clock.Open(ctx)
	a.sweep = state.Sweeper{UID: a.spec.UID, Lo: a.lo, Hi: a.hi, Names: []string{groupName}}
	for _, d := range a.distinct {
		a.sweep.Names = append(a.sweep.Names, d.name)
	}
	a.gauge.Open(ctx, a.store)
	return exec.RestoreKeyed(ctx, a.spec.UID, a.spec.Fingerprint(), a.lo, a.hi, a.writes, func(name string) bool {
		return name == groupName || strings.HasPrefix(name, "distinct")
	})
}

// Process implements exec.Operator. Without mini-batching every row's
// change is emitted, as Flink's GroupAggFunction does; rows of distinct
// groups are folded together, since their changes are independent.
func (a *Agg) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if a.spec.TTL.TTL.On() && a.spec.TTL.TimeCol < 0 {
		if err := a.sweepStore(a.clock.SweepTime()); err != nil {
			return err
		}
	}
	if a.spec.MiniBatch.On() {
		b.Retain()
		if len(a.bundle) == 0 {
			a.bundleAt = a.now()
		}
		a.bundle = append(a.bundle, b)
		a.bundleRows += int(b.NumRows())
		if a.bundleRows >= a.spec.MiniBatch.Size {
			return a.flushBundle(out)
		}
		return nil
	}
	if err := a.makeRoom(int(b.NumRows())); err != nil {
		return err
	}
	if err := a.seg.add(b, true, out); err != nil {
		return err
	}
	if err := a.seg.end(out); err != nil {
		return err
	}
	if err := a.seg.flush(out); err != nil {
		return err
	}
	a.gauge.Measure()
	return a.commitSome()
}

// flushBundle folds the mini-batch's rows into one change per group.
func (a *Agg) flushBundle(out exec.Emitter) error {
	if len(a.bundle) == 0 {
		return nil
	}
	defer func() {
		for _, b := range a.bundle {
			b.Release()
		}
		clear(a.bundle)
		a.bundle, a.bundleRows = a.bundle[:0], 0
	}()
	if err := a.makeRoom(a.bundleRows); err != nil {
		return err
	}
	for _, b := range a.bundle {
		if err := a.seg.add(b, false, out); err != nil {
			return err
		}
	}
	if err := a.seg.end(out); err != nil {
		return err
	}
	if err := a.seg.flush(out); err != nil {
		return err
	}
	return a.commitSome()
}

// OnProcessingTime implements exec.ProcessingTimeHandler: a mini-batch
// is flushed once it is allow-latency old.
func (a *Agg) OnProcessingTime(out exec.Emitter) error {
	if len(a.bundle) == 0 || a.now()-a.bundleAt < a.spec.MiniBatch.Latency.Milliseconds() {
		return nil
	}
	return a.flushBundle(out)
}

// PrepareBarrier implements exec.BarrierPreparer: a mini-batch is
// flushed before a checkpoint's barrier passes, as Flink's bundle
// operators do, so the checkpoint holds no input that is not yet state.
func (a *Agg) PrepareBarrier(out exec.Emitter) error { return a.flushBundle(out) }

// Finish implements exec.Finisher: the last mini-batch is flushed.
func (a *Agg) Finish(out exec.Emitter) error { return a.flushBundle(out) }

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the watermark sweeps a key group of the store's expired
// groups. Cached groups expire when next touched (expire), and are
// swept once written back.
func (a *Agg) OnWatermark(wm int64, _ exec.Emitter) error {
	if !a.clock.Watermark(wm) {
		return nil
	}
	return a.sweepStore(wm)
}

// sweepStore sweeps a key group of the store at now.
func (a *Agg) sweepStore(now int64) error {
	if _, err := a.sweep.Sweep(a.spec.TTL.TTL, a.writes, now); err != nil {
		return err
	}
	return a.commitSome()
}

// commitSome commits the pending writes once they are large.
func (a *Agg) commitSome() error { return exec.CommitLarge(a.writes) }

// Snapshot implements exec.Snapshotter: the cached groups are written to
// the store, which then holds the whole state.
func (a *Agg) Snapshot(id int64) (exec.OperatorSnapshot, error) {
	if err := a.writeBack(a, false); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	if err := a.writes.Commit(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	sn, err := a.store.Snapshot(id)
	if err != nil {
		return exec.OperatorSnapshot{}, err
	}
	return exec.OperatorSnapshot{UID: a.spec.UID, Fingerprint: a.spec.Fingerprint(), KeyGroupLo: a.lo, KeyGroupHi: a.hi, State: sn}, nil
}

// Close implements exec.Closer.
func (a *Agg) Close() error {
	for _, b := range a.bundle {
		b.Release()
	}
	a.bundle = nil
	a.seg.release()
	a.cache.release()
	if a.store == nil {
		return nil
	}
	err := a.store.Close()
	a.store = nil
	if a.tmp != "" {
		err = errors.Join(err, os.RemoveAll(a.tmp))
	}
	return err
}

// col is the column c of b, nil for COUNT(*)'s -1.
func col(b arrow.RecordBatch, c int) arrow.Array {
	if c < 0 {
		return nil
	}
	return b.Column(c)
}

// passes reports whether row r passes a FILTER column (nil: no FILTER).
func passes(f *array.Boolean, r int) bool {
	return f == nil || f.IsValid(r) && f.Value(r)
}
