package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// Review tests of Flush's rewrites, committed as replacing commits
// (state.Sorted.Replace): the model job of spill_review_test.go, whose
// checkpoints fail in both ways exec's can: after the store took the
// Sorted (the snapshot failed) and before (the Sorted's SST could not be
// written: none of its writes is in the store), with and without spills,
// tumbling and hopping windows.

// rwFail is how a checkpoint of rwRun ends.
type rwFail int

const (
	rwComplete rwFail = iota
	rwAfter           // the store took the writes, Flushed is not called
	rwBefore          // the writes are lost, Flushed is not called
)

// rwCheckpoint is mJob.checkpoint with a failure mode.
// rwCounts counts the Flushes that rewrote, and those of them whose
// checkpoint failed.
type rwCounts struct{ rewrites, failed int }

func rwCheckpoint(j *mJob, id int64, pos int, how rwFail, n *rwCounts) *mCheckpoint {
	c := &mCheckpoint{id: id, pos: pos}
	for _, task := range j.tasks {
		sorted := task.st.NewSorted()
		task.a.Flush(sorted)
		if task.a.flush.rewrite {
			n.rewrites++
			if how != rwComplete {
				n.failed++
			}
		}
		if how == rwBefore {
			continue // a fresh Sorted next time, as exec's Snapshot makes
		}
		if err := sorted.Commit(); err != nil {
			j.t.Fatal(err)
		}
		if how == rwAfter {
			continue
		}
		c.entries = append(c.entries, scanTask(j.t, task)...)
		task.a.Flushed()
	}
	return c
}

func scanTask(t *testing.T, task *mTask) []mEntry {
	t.Helper()
	var out []mEntry
	err := task.st.Scan("w", 0, mKGs-1, "", func(kg uint16, name string, key, value []byte) error {
		out = append(out, mEntry{kg, name, slices.Clone(key), slices.Clone(value)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rwRun is runModel with checkpoints every few batches, many of them
// failing one way or the other, and crashes restoring the last complete
// one.
func rwRun(t *testing.T, r *rand.Rand, spec Spec, rows []mRow, ps []int, budgets []int64) (committed []string, n rwCounts, spills int64) {
	t.Helper()
	committed, spills, _, _ = driveModel(t, r, spec, rows, ps, budgets, 54, func(j *mJob, x int, id int64, pos int) (*mCheckpoint, bool) {
		switch {
		case x < 30:
			c := rwCheckpoint(j, id, pos, rwComplete, &n)
			rwVerify(t, spec, rows, c)
			return c, true
		case x < 40:
			rwCheckpoint(j, id, pos, rwAfter, &n)
			return nil, true
		case x < 50:
			rwCheckpoint(j, id, pos, rwBefore, &n)
			return nil, true
		}
		return nil, false
	})
	t.Logf("%d rewrites (%d failed), %d spills", n.rewrites, n.failed, spills)
	return committed, n, spills
}

// TestReviewRewriteFailedCheckpoints: checkpoints that rewrite the state
// and fail before or after the store took their writes, then restores,
// commit exactly what an aggregate that never checkpoints fires.
func TestReviewRewriteFailedCheckpoints(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(3, 3)), 6000, 300)
	hop := mSpec()
	hop.Window = Assigner{Kind: Hop, Size: 200, Slide: 50}
	// Keyed by BIGINT with no DISTINCT: IntTables, whose fired windows'
	// memory the next ones reuse (spare.go).
	ints := Spec{Window: Assigner{Kind: Hop, Size: 200, Slide: 50}, In: mSchema, TimeCol: 0, Keys: []int{1}, BatchSize: 64, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Max, Arg: 3, Filter: -1, Out: types.TString},
	}}
	cumulate := ints
	cumulate.Window = Assigner{Kind: Cumulate, Size: 200, Slide: 50}
	for _, c := range []struct {
		name    string
		spec    Spec
		ps      []int
		budgets []int64
	}{
		{"tumble/memory", mSpec(), []int{1, 2, 1, 3}, []int64{1 << 30, 1 << 30, 1 << 30, 1 << 30}},
		{"tumble/spill", mSpec(), []int{1, 2, 1, 3}, []int64{96 << 10, 64 << 10, 1 << 30, 48 << 10}},
		{"hop/memory", hop, []int{2, 1, 3}, []int64{1 << 30, 1 << 30, 1 << 30}},
		{"hop/spill", hop, []int{2, 1, 3}, []int64{64 << 10, 1 << 30, 48 << 10}},
		{"ints/memory", ints, []int{2, 1, 3}, []int64{1 << 30, 1 << 30, 1 << 30}},
		{"ints/spill", ints, []int{2, 1, 3}, []int64{24 << 10, 1 << 30, 16 << 10}},
		{"cumulate/memory", cumulate, []int{1, 3, 2}, []int64{1 << 30, 1 << 30, 1 << 30}},
		{"cumulate/spill", cumulate, []int{1, 3, 2}, []int64{24 << 10, 1 << 30, 16 << 10}},
	} {
		want := mReference(t, c.spec, rows)
		failed := 0
		// More seeds, up to 16, until one fails a rewrite's checkpoint.
		for seed := uint64(0); seed < uint64(scaled(4, 1)) || failed == 0 && seed < 16 && !t.Failed(); seed++ {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				got, n, spills := rwRun(t, rand.New(rand.NewPCG(seed, 5)), c.spec, rows, c.ps, c.budgets)
				if n.rewrites == 0 || (spills == 0) != (c.budgets[0] > 1<<20) {
					t.Errorf("%d rewrites, %d spills", n.rewrites, spills)
				}
				failed += n.failed
				diffLines(t, got, want)
			})
		}
		if failed == 0 && !t.Failed() {
			t.Errorf("%s: no rewrite's checkpoint failed", c.name)
		}
	}
}

// rwVerify checks that checkpoint c holds the state after batches
// 0..c.pos-1: an aggregate restored from it fires, at the end of time,
// what one fed those batches (with the same watermarks) fires.
func rwVerify(t *testing.T, spec Spec, rows []mRow, c *mCheckpoint) {
	t.Helper()
	ref := newMJob(t, spec, 1, 1<<30, nil)
	maxTs := int64(-1 << 62)
	var drop []string
	for pos := range c.pos {
		part := rows[pos*mBatchN : min((pos+1)*mBatchN, len(rows))]
		ref.add(part)
		for _, row := range part {
			maxTs = max(maxTs, row.ts)
		}
		ref.advance(maxTs-mDelay, &drop)
	}
	var want, got []string
	ref.advance(types.MaxWatermark, &want)
	ref.close()
	res := newMJob(t, spec, 2, 1<<30, c)
	res.advance(types.MaxWatermark, &got)
	res.close()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Logf("checkpoint %d (after batch %d) restores wrong state:", c.id, c.pos)
		diffLines(t, got, want)
		t.FailNow()
	}
}

// TestReviewRewriteSpilledDiskBounded: a spilling window's store does
// not grow with the job's age. Its rewrites delete the older entries of
// the groups in memory and leave the files to Pebble's compactions (a
// replacing commit would copy the spilled groups at every rewrite), and
// expire's range deletes (Batch.DeletePrefix of a fired slice's "s"
// entries) leave no file behind: the most the store takes on disk in the
// last quarter of the run is about the most it took in the first.
func TestReviewRewriteSpilledDiskBounded(t *testing.T) {
	m, err := memseg.NewManager(48<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(mSpec(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	a.UseMemory(m)
	a.Track()
	st, err := state.OpenIngesting(vfs.NewMem(), "st")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a.UseStore(func() (*state.Store, error) { return st, nil }, "w", mKGs, 0)
	rows := mRows(rand.New(rand.NewPCG(1, 1)), 300_000, 300)
	var out []string
	maxTs := int64(-1 << 62)
	w := st.NewSorted()
	rewrites := 0
	batches := (len(rows) + mBatchN - 1) / mBatchN
	var first, last int64 // the most disk in the first and last quarter
	for pos := 0; pos < batches; pos++ {
		part := rows[pos*mBatchN : min((pos+1)*mBatchN, len(rows))]
		b := mBatch(part)
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		for _, r := range part {
			maxTs = max(maxTs, r.ts)
		}
		if err := a.Advance(maxTs-mDelay, rowsOut(&out)); err != nil {
			t.Fatal(err)
		}
		out = out[:0]
		a.Flush(w)
		if a.flush.rewrite {
			rewrites++
		}
		sn, err := st.SnapshotDelta(int64(pos+1), w)
		if err != nil {
			t.Fatal(err)
		}
		if err := sn.Discard(); err != nil {
			t.Fatal(err)
		}
		a.Flushed()
		switch disk := st.DiskUsage(); {
		case pos < batches/4:
			first = max(first, disk)
		case pos >= batches-batches/4:
			last = max(last, disk)
		}
	}
	if rewrites == 0 || a.Spills() == 0 {
		t.Fatalf("%d rewrites, %d spills", rewrites, a.Spills())
	}
	if last > first*3/2 {
		t.Fatalf("over %d checkpoints (%d rewrites, %d spills) the store grew: at most %d bytes on disk in the first quarter, %d in the last",
			batches, rewrites, a.Spills(), first, last)
	}
}

// ingestFS counts the bytes written to the SSTs a store ingests (named
// ingest-<n>.sst): what its Sorted commits write.
type ingestFS struct {
	vfs.FS
	n *atomic.Int64
}

func (c ingestFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := c.FS.Create(name, cat)
	if err != nil || !strings.Contains(name, "ingest-") {
		return f, err
	}
	return countedFile{f, c.n}, nil
}

type countedFile struct {
	vfs.File
	n *atomic.Int64
}

func (f countedFile) Write(p []byte) (int, error) {
	f.n.Add(int64(len(p)))
	return f.File.Write(p)
}

// TestReviewRewriteSpilledWritesChanges: a window that spilled most of
// its groups and keeps a few hot ones in memory, changing at every
// checkpoint. rewriteDue weighs the versions of the groups in memory
// alone (parts' held against their members), so their changes call for a
// rewrite every other checkpoint; but the replacing commit (name "p", the
// aggregate spilled) copies every entry of the store, the spilled "s"
// entries too, into its SST, and the snapshot after it is full: every
// other checkpoint writes, and uploads, the whole spilled state.
func TestReviewRewriteSpilledWritesChanges(t *testing.T) {
	spec := mSpec()
	spec.Window = TumbleOf(1<<40, 0) // one window for the whole test
	m, err := memseg.NewManager(256<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	a.UseMemory(m)
	a.Track()
	var written atomic.Int64
	st, err := state.OpenIngesting(ingestFS{vfs.NewMem(), &written}, "st")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a.UseStore(func() (*state.Store, error) { return st, nil }, "w", mKGs, 0)
	w := st.NewSorted()
	rewrites := 0
	checkpoint := func(id int64) {
		t.Helper()
		a.Flush(w)
		if a.flush.rewrite {
			rewrites++
		}
		sn, err := st.SnapshotDelta(id, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := sn.Discard(); err != nil {
			t.Fatal(err)
		}
		a.Flushed()
	}
	var rows []mRow
	for k := range 30_000 { // cold groups: they spill
		rows = append(rows, mRow{ts: 1, k: int64(k), v: int64(k % 5), s: "x"})
	}
	for lo := 0; lo < len(rows); lo += 1000 {
		addRows(t, a, rows[lo:min(lo+1000, len(rows))])
	}
	checkpoint(1)
	if a.Spills() == 0 {
		t.Fatal("nothing spilled")
	}
	stored := st.DiskUsage()
	written.Store(0)
	const checkpoints = 60
	for id := int64(2); id < checkpoints; id++ {
		rows = rows[:0]
		for k := range 300 { // hot groups, all changed
			rows = append(rows, mRow{ts: 2, k: int64(100_000 + k), v: id % 7, s: "y"})
		}
		addRows(t, a, rows)
		checkpoint(id)
	}
	if n := written.Load(); n > 4*stored {
		t.Fatalf("%d checkpoints of 300 changed groups wrote %d bytes of SSTs in %d rewrites, the store holding %d bytes: %.1f times the whole state",
			checkpoints-2, n, rewrites, stored, float64(n)/float64(stored))
	}
}
