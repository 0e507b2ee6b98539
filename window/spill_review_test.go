package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// Tests of spilling together with checkpoints and restores: a model of a
// job that checkpoints, crashes, restores (at another parallelism and with
// another budget) and replays, checked against an aggregate that never
// spills.

var mSchema = types.Schema{
	{Name: "ts", Type: types.TTimestamp},
	{Name: "k", Type: types.TBigInt},
	{Name: "v", Type: types.TBigInt},
	{Name: "s", Type: types.TString},
	{Name: "f", Type: types.TBoolean},
}

// mRow is a row of mSchema; k < 0 is a NULL key, v < 0 a NULL value.
type mRow struct {
	ts, k, v int64
	s        string
	f        bool
}

func mBatch(rows []mRow) arrow.RecordBatch {
	al := memory.DefaultAllocator
	ts := array.NewTimestampBuilder(al, &arrow.TimestampType{Unit: arrow.Millisecond})
	k, v := array.NewInt64Builder(al), array.NewInt64Builder(al)
	s, f := array.NewStringBuilder(al), array.NewBooleanBuilder(al)
	for _, r := range rows {
		ts.Append(arrow.Timestamp(r.ts))
		if r.k < 0 {
			k.AppendNull()
		} else {
			k.Append(r.k)
		}
		if r.v < 0 {
			v.AppendNull()
		} else {
			v.Append(r.v)
		}
		s.Append(r.s)
		f.Append(r.f)
	}
	cols := []arrow.Array{ts.NewArray(), k.NewArray(), v.NewArray(), s.NewArray(), f.NewArray()}
	return array.NewRecordBatch(mSchema.Arrow(), cols, int64(len(rows)))
}

// mSpec groups by k and computes every kind of state the spill writes:
// plain accumulators, a string MAX (heap bytes), DISTINCT aggregates with
// and without FILTER, over BIGINT and STRING values. Its DISTINCT
// aggregates keep its panes on HashTables (TestIntKeyedCheckpointRestoreModel
// covers IntTables); mSpecKeys groups by other keys.
func mSpec() Spec { return mSpecKeys(1) }

// mSpecKeys is mSpec grouped by columns keys: by k and s, its panes have
// HashTables.
func mSpecKeys(keys ...int) Spec {
	return Spec{Window: TumbleOf(200, 0), In: mSchema, TimeCol: 0, Keys: keys, BatchSize: 64, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Max, Arg: 3, Filter: -1, Out: types.TString},
		{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: 4, Distinct: true, Out: types.TBigInt},
		{Kind: agg.Min, Arg: 3, Filter: -1, Distinct: true, Out: types.TString},
	}}
}

// mRows makes n rows a few ms apart, disordered by up to mDelay ms, over
// keys keys (a few NULL), values that repeat within a group.
func mRows(r *rand.Rand, n, keys int) []mRow {
	rows := make([]mRow, n)
	for i := range rows {
		k := int64(r.IntN(keys))
		if r.IntN(50) == 0 {
			k = -1
		}
		v := int64(r.IntN(12))
		if r.IntN(20) == 0 {
			v = -1
		}
		rows[i] = mRow{ts: int64(i/4) + int64(r.IntN(mDelay)), k: k, v: v,
			s: fmt.Sprintf("s%02d", r.IntN(40)), f: r.IntN(3) > 0}
	}
	return rows
}

const (
	mDelay  = 20
	mKGs    = 128
	mBatchN = 50
)

// rowsOut renders fired batches as lines.
func rowsOut(out *[]string) func(arrow.RecordBatch) error {
	return func(b arrow.RecordBatch) error {
		defer b.Release()
		for i := 0; i < int(b.NumRows()); i++ {
			var cells []string
			for _, c := range b.Columns() {
				cells = append(cells, c.ValueStr(i))
			}
			*out = append(*out, strings.Join(cells, " "))
		}
		return nil
	}
}

// mReference fires rows through one aggregate with room to spare.
func mReference(t *testing.T, spec Spec, rows []mRow) []string {
	t.Helper()
	a, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	for lo := 0; lo < len(rows); lo += mBatchN {
		b := mBatch(rows[lo:min(lo+mBatchN, len(rows))])
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	var out []string
	if err := a.Advance(types.MaxWatermark, rowsOut(&out)); err != nil {
		t.Fatal(err)
	}
	if a.Spills() != 0 {
		t.Fatalf("the reference spilled %d times", a.Spills())
	}
	slices.Sort(out)
	return out
}

// mEntry is one entry of a state store, as a checkpoint holds it.
type mEntry struct {
	kg        uint16
	name      string
	key, data []byte
}

// mCheckpoint is a complete checkpoint of the model job: every subtask's
// store and the input position.
type mCheckpoint struct {
	id      int64
	pos     int // the next batch
	entries []mEntry
}

// mTask is one subtask of the model job's window aggregate.
type mTask struct {
	a      *Aggregate
	m      *memseg.Manager
	st     *state.Store
	lo, hi uint16
}

func (s *mTask) close(t *testing.T) {
	t.Helper()
	s.a.Release()
	if u := s.m.Used(); u != 0 {
		t.Errorf("%d bytes of managed memory still used after Release", u)
	}
	if err := s.st.Close(); err != nil {
		t.Error(err)
	}
}

// mJob runs the model job: p subtasks owning key groups as exec splits
// them, each with budget bytes.
type mJob struct {
	t     *testing.T
	keys  []int
	tasks []*mTask
	enc   memseg.KeyEncoder
	key   []byte
	adds  int
}

func newMJob(t *testing.T, spec Spec, p int, budget int64, restore *mCheckpoint) *mJob {
	t.Helper()
	j := &mJob{t: t, keys: spec.Keys}
	for i := range p {
		m, err := memseg.NewManager(budget, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(spec, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		a.UseMemory(m)
		a.Track()
		st, err := state.Open(vfs.NewMem(), "st")
		if err != nil {
			t.Fatal(err)
		}
		task := &mTask{a: a, m: m, st: st, lo: uint16((i*mKGs + p - 1) / p), hi: uint16(((i+1)*mKGs+p-1)/p - 1)}
		var epoch uint64
		if restore != nil {
			epoch = uint64(restore.id) + 1
		}
		a.UseStore(func() (*state.Store, error) { return st, nil }, "w", mKGs, epoch)
		a.StoreProgress(int(task.lo), int(task.hi)) // as exec does: hopping windows restore their progress
		if restore != nil {
			for _, e := range restore.entries {
				if e.kg < task.lo || e.kg > task.hi {
					continue
				}
				if err := a.Load(e.kg, e.name, e.key, e.data); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Restored(); err != nil {
				t.Fatal(err)
			}
		}
		j.tasks = append(j.tasks, task)
	}
	return j
}

// add routes a batch's rows to the subtasks owning their key groups, as a
// hash exchange does: every other call as a copy of each subtask's rows,
// else as the whole batch with each subtask's rows and their key hashes
// (AddRows).
func (j *mJob) add(rows []mRow) {
	b := mBatch(rows)
	defer b.Release()
	if err := j.enc.Reset(b, j.keys); err != nil {
		j.t.Fatal(err)
	}
	parts := make([][]mRow, len(j.tasks))
	sels := make([][]int32, len(j.tasks))
	hashes := make([][]uint64, len(j.tasks))
	for i, r := range rows {
		j.key = j.enc.Append(j.key[:0], i)
		h := memseg.Hash(j.key)
		kg := uint16(h % mKGs)
		for s, task := range j.tasks {
			if kg >= task.lo && kg <= task.hi {
				parts[s] = append(parts[s], r)
				sels[s] = append(sels[s], int32(i))
				hashes[s] = append(hashes[s], h)
			}
		}
	}
	j.adds++
	for s, part := range parts {
		if len(part) == 0 {
			continue
		}
		if j.adds%2 == 0 {
			if _, err := j.tasks[s].a.AddRows(b, sels[s], hashes[s]); err != nil {
				j.t.Fatal(err)
			}
			continue
		}
		pb := mBatch(part)
		if _, err := j.tasks[s].a.Add(pb); err != nil {
			j.t.Fatal(err)
		}
		pb.Release()
	}
}

func (j *mJob) advance(wm int64, out *[]string) {
	for _, task := range j.tasks {
		if err := task.a.Advance(wm, rowsOut(out)); err != nil {
			j.t.Fatal(err)
		}
	}
}

// checkpoint flushes every subtask to its store as exec's Snapshot does
// and returns the stores' contents; with complete false the checkpoint
// fails after the writes (Flushed is not called).
func (j *mJob) checkpoint(id int64, pos int, complete bool) *mCheckpoint {
	c := &mCheckpoint{id: id, pos: pos}
	for _, task := range j.tasks {
		sorted := task.st.NewSorted()
		task.a.Flush(sorted)
		if err := sorted.Commit(); err != nil {
			j.t.Fatal(err)
		}
		if !complete {
			continue
		}
		err := task.st.Scan("w", 0, mKGs-1, "", func(kg uint16, name string, key, value []byte) error {
			c.entries = append(c.entries, mEntry{kg, name, slices.Clone(key), slices.Clone(value)})
			return nil
		})
		if err != nil {
			j.t.Fatal(err)
		}
		task.a.Flushed()
	}
	return c
}

func (j *mJob) spills() (n int64) {
	for _, task := range j.tasks {
		n += task.a.Spills()
	}
	return n
}

func (j *mJob) close() {
	for _, task := range j.tasks {
		task.close(j.t)
	}
}

// runModel runs rows through the model job: checkpoints, failed
// checkpoints and crashes at random batches, each crash restoring the last
// checkpoint at parallelism ps[n] and budget budgets[n] for the n-th run.
// Output is committed at checkpoints, as a two-phase sink does. It
// returns the committed rows, sorted, and the spills of every run.
func runModel(t *testing.T, r *rand.Rand, spec Spec, rows []mRow, ps []int, budgets []int64) (committed []string, spills, restoreSpills int64) {
	t.Helper()
	committed, spills, restoreSpills, runs := driveModel(t, r, spec, rows, ps, budgets, 20, func(j *mJob, x int, id int64, pos int) (*mCheckpoint, bool) {
		switch {
		case x < 12:
			return j.checkpoint(id, pos, true), true
		case x < 15:
			j.checkpoint(id, pos, false)
			return nil, true
		}
		return nil, false
	})
	t.Logf("%d restores (of %d planned), %d spills, %d of them while restoring", runs-1, len(ps)-1, spills, restoreSpills)
	return committed, spills, restoreSpills
}

// checkpointer takes, at a batch with random x in [0, 100), checkpoint
// id of the input up to batch pos or none (took false); it returns the
// checkpoint if it is complete.
type checkpointer func(j *mJob, x int, id int64, pos int) (c *mCheckpoint, took bool)

// driveModel runs rows through the model job in batches: at each, ckpt
// may take a checkpoint; if it does not and x < crash, the job crashes
// and the next run (parallelism ps[n], budget budgets[n]) restores the
// last complete checkpoint, the input replaying from it. Output is
// committed at complete checkpoints, as a two-phase sink does. It returns
// the committed rows, sorted, the spills of every run and of restores
// alone, and the runs.
func driveModel(t *testing.T, r *rand.Rand, spec Spec, rows []mRow, ps []int, budgets []int64, crash int, ckpt checkpointer) (committed []string, spills, restoreSpills int64, runs int) {
	t.Helper()
	var pending []string
	var last *mCheckpoint
	nextID := int64(1)
	run := 0
	j := newMJob(t, spec, ps[0], budgets[0], nil)
	batches := (len(rows) + mBatchN - 1) / mBatchN
	maxTs := int64(-1 << 62)
	for pos := 0; pos < batches; pos++ {
		part := rows[pos*mBatchN : min((pos+1)*mBatchN, len(rows))]
		j.add(part)
		for _, row := range part {
			maxTs = max(maxTs, row.ts)
		}
		j.advance(maxTs-mDelay, &pending)
		x := r.IntN(100)
		if c, took := ckpt(j, x, nextID, pos+1); took {
			nextID++
			if c != nil {
				last = c
				committed, pending = append(committed, pending...), nil
			}
			continue
		}
		if x < crash && run+1 < len(ps) && last != nil {
			// Crash: what was not committed is lost, the input replays
			// from the checkpoint.
			spills += j.spills()
			j.close()
			run++
			j = newMJob(t, spec, ps[run], budgets[run], last)
			restoreSpills += j.spills()
			pending = nil
			pos = last.pos - 1
			maxTs = int64(-1 << 62)
			for _, row := range rows[:last.pos*mBatchN] {
				maxTs = max(maxTs, row.ts)
			}
		}
	}
	j.advance(types.MaxWatermark, &pending)
	committed = append(committed, pending...)
	spills += j.spills()
	j.close()
	slices.Sort(committed)
	return committed, spills, restoreSpills, run + 1
}

func diffLines(t *testing.T, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	for _, l := range got {
		count[l]--
	}
	var missing, extra []string
	for l, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, l)
		}
		for ; n < 0; n++ {
			extra = append(extra, l)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	t.Errorf("%d rows, want %d: %d missing, %d extra\nmissing: %q\nextra:   %q", len(got), len(want),
		len(missing), len(extra), missing[:min(4, len(missing))], extra[:min(4, len(extra))])
}

// TestSpillCheckpointRestoreModel: a job spilling all the time,
// checkpointed, killed and restored (at other parallelisms, some with
// budgets so small that the restore itself spills mid-part, some so large
// that spilled windows come back next to in-memory ones) commits exactly
// what an aggregate that never spills fires.
func TestSpillCheckpointRestoreModel(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(1, 1)), 6000, 300)
	cases := []struct {
		name    string
		ps      []int
		budgets []int64
	}{
		{"p1", []int{1, 1, 1, 1, 1}, []int64{32 << 10, 32 << 10, 32 << 10, 32 << 10, 32 << 10}},
		{"p3", []int{3, 3, 3, 3}, []int64{16 << 10, 16 << 10, 16 << 10, 16 << 10}},
		{"rescale", []int{3, 2, 1, 4, 2}, []int64{16 << 10, 24 << 10, 32 << 10, 12 << 10, 16 << 10}},
		{"shrink", []int{1, 1, 2, 1}, []int64{1 << 20, 16 << 10, 12 << 10, 1 << 20}},
	}
	// Grouped by k, then by k and s; the latter once per case.
	for _, keys := range [][]int{{1}, {1, 3}} {
		spec := mSpecKeys(keys...)
		want := mReference(t, spec, rows)
		seeds := uint64(scaled(3, 1))
		if len(keys) > 1 {
			seeds = 1
		}
		for _, c := range cases {
			for seed := range seeds {
				t.Run(fmt.Sprintf("keys%v/%s/%d", keys, c.name, seed), func(t *testing.T) {
					got, spills, restoreSpills := runModel(t, rand.New(rand.NewPCG(seed, 99)), spec, rows, c.ps, c.budgets)
					if spills == 0 {
						t.Errorf("nothing spilled")
					}
					if c.name == "shrink" && restoreSpills == 0 {
						t.Errorf("no restore spilled")
					}
					diffLines(t, got, want)
				})
			}
		}
	}
}

// spilledState returns the checkpointed entries of an aggregate of mSpec
// that has spilled every window at least once, "p" and "s" entries both.
func spilledState(t *testing.T) []mEntry {
	t.Helper()
	rows := mRows(rand.New(rand.NewPCG(3, 3)), 400, 30)
	j := newMJob(t, mSpec(), 1, 16<<10, nil)
	defer j.close()
	j.add(rows)
	if j.spills() == 0 {
		t.Fatal("no spill")
	}
	j.add(rows[:40]) // in memory after the spill: "p" entries too
	return j.checkpoint(1, 0, true).entries
}

// loadAndFire restores entries into a new aggregate and fires it,
// turning a panic into a test error.
func loadAndFire(t *testing.T, entries []mEntry, what string) (err error) {
	t.Helper()
	a, aerr := New(mSpec(), memory.DefaultAllocator)
	if aerr != nil {
		t.Fatal(aerr)
	}
	m, merr := memseg.NewManager(8<<10, 1<<10)
	if merr != nil {
		t.Fatal(merr)
	}
	a.UseMemory(m)
	a.Track()
	st, serr := state.Open(vfs.NewMem(), "st")
	if serr != nil {
		t.Fatal(serr)
	}
	a.UseStore(func() (*state.Store, error) { return st, nil }, "w", mKGs, 2)
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", what, r)
		}
		a.Release()
		if m.Used() != 0 {
			t.Errorf("%s: %d bytes used after Release", what, m.Used())
		}
		st.Close()
	}()
	for _, e := range entries {
		if err := a.Load(e.kg, e.name, e.key, e.data); err != nil {
			return err
		}
	}
	if err := a.Restored(); err != nil {
		return err
	}
	var out []string
	return a.Advance(types.MaxWatermark, rowsOut(&out))
}

// TestCorruptSpilledEntries restores checkpointed state with one entry
// damaged in every way: truncated, extended, bytes changed. A restore or a
// firing may fail, but never panics; structural damage (a cut key or
// value) always fails.
func TestCorruptSpilledEntries(t *testing.T) {
	entries := spilledState(t)
	if err := loadAndFire(t, entries, "intact"); err != nil {
		t.Fatalf("intact state: %v", err)
	}
	var ns, np int
	for _, e := range entries {
		switch e.name {
		case spillState:
			ns++
		case paneState:
			np++
		}
	}
	if ns == 0 || np == 0 {
		t.Fatalf("%d spilled entries, %d window parts: want both", ns, np)
	}
	picked := map[string]int{}
	defer func() {
		if picked["accs"] == 0 || picked["distinct"] == 0 {
			t.Errorf("damaged %d accumulator entries, %d DISTINCT value entries: want both", picked["accs"], picked["distinct"])
		}
	}()
	r := rand.New(rand.NewPCG(4, 4))
	with := func(i int, e mEntry) []mEntry {
		out := slices.Clone(entries)
		out[i] = e
		return out
	}
	for i, e := range entries {
		if e.name == paneState {
			// A window part: cut, it fails to decode.
			for n := 0; n < len(e.data); n += 1 + len(e.data)/20 {
				c := e
				c.data = e.data[:n]
				what := fmt.Sprintf("window part %d, value cut to %d of %d bytes", i, n, len(e.data))
				if err := loadAndFire(t, with(i, c), what); err == nil {
					t.Errorf("%s: no error", what)
				}
			}
			continue
		}
		kind := "accs"
		if e.key[len(e.key)-1-8] != tagAccs || len(e.data) == 0 {
			kind = "distinct"
		}
		// A sample of each kind: every load copies the whole state.
		if picked[kind] >= scaled(8, 3) || r.IntN(40) != 0 {
			continue
		}
		picked[kind]++
		// Cut keys and values: the key's group key or tag goes, or the
		// value's accumulators end early.
		for n := 9; n < len(e.key); n++ {
			c := e
			c.key = e.key[:n]
			if kind == "accs" && n >= len(e.key)-8 {
				continue // only the sequence number is cut: harmless
			}
			what := fmt.Sprintf("%s entry %d, key cut to %d of %d bytes", kind, i, n, len(e.key))
			if err := loadAndFire(t, with(i, c), what); err == nil {
				t.Errorf("%s: no error", what)
			}
		}
		for n := 0; n < len(e.data); n++ {
			c := e
			c.data = e.data[:n]
			what := fmt.Sprintf("%s entry %d, value cut to %d of %d bytes", kind, i, n, len(e.data))
			if err := loadAndFire(t, with(i, c), what); err == nil {
				t.Errorf("%s: no error", what)
			}
		}
		if kind == "accs" {
			c := e
			c.data = append(slices.Clone(e.data), 0x01)
			what := fmt.Sprintf("%s entry %d, a byte after the value", kind, i)
			if err := loadAndFire(t, with(i, c), what); err == nil {
				t.Errorf("%s: no error", what)
			}
		}
		// Changed bytes: errors or wrong results, never a panic.
		for range 10 {
			c := e
			c.key, c.data = slices.Clone(e.key), slices.Clone(e.data)
			if len(c.data) > 0 && r.IntN(2) == 0 {
				c.data[r.IntN(len(c.data))] = byte(r.IntN(256))
			} else {
				c.key[8+r.IntN(len(c.key)-8)] = byte(r.IntN(256))
			}
			loadAndFire(t, with(i, c), fmt.Sprintf("%s entry %d, a byte changed", kind, i))
		}
	}
}

// TestManyAggregatesDistinct: a query with more than 256 aggregates, whose
// DISTINCT aggregates past the 256th have their values spilled and
// checkpointed like the first ones, not mistaken for another aggregate's.
func TestManyAggregatesDistinct(t *testing.T) {
	spec := mSpec()
	spec.Aggs = spec.Aggs[:0]
	spec.Aggs = append(spec.Aggs, agg.Call{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt})
	for len(spec.Aggs) < 256 {
		spec.Aggs = append(spec.Aggs, agg.Call{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt})
	}
	spec.Aggs = append(spec.Aggs,
		agg.Call{Kind: agg.Count, Arg: 3, Filter: -1, Distinct: true, Out: types.TBigInt},
		agg.Call{Kind: agg.Max, Arg: 2, Filter: 4, Distinct: true, Out: types.TBigInt})
	rows := mRows(rand.New(rand.NewPCG(6, 6)), 3000, 100)
	want := mReference(t, spec, rows)
	for _, c := range []struct {
		name    string
		ps      []int
		budgets []int64
	}{
		{"memory", []int{1, 1, 1}, []int64{8 << 20, 8 << 20, 8 << 20}},
		{"spill", []int{1, 2, 1}, []int64{160 << 10, 120 << 10, 160 << 10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, spills, _ := runModel(t, rand.New(rand.NewPCG(1, 2)), spec, rows, c.ps, c.budgets)
			if c.name == "spill" && spills == 0 {
				t.Errorf("nothing spilled")
			}
			diffLines(t, got, want)
		})
	}
}

// TestRestoreOnlySpilled restores a checkpoint taken right after every
// window spilled: the windows come back with spilled parts only, no window
// part in memory, and fire all their groups, also after more input.
func TestRestoreOnlySpilled(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(8, 8)), 3000, 200)
	want := mReference(t, mSpec(), rows)
	j := newMJob(t, mSpec(), 2, 32<<10, nil)
	j.add(rows[:2000])
	for _, task := range j.tasks {
		if err := task.a.spillAll(); err != nil {
			t.Fatal(err)
		}
	}
	c := j.checkpoint(1, 0, true)
	j.close()
	for _, e := range c.entries {
		if e.name != spillState {
			t.Fatalf("a %q entry in the checkpoint", e.name)
		}
	}
	j = newMJob(t, mSpec(), 3, 32<<10, c)
	for _, task := range j.tasks {
		if task.a.Pending() == 0 {
			t.Errorf("subtask of key groups %d-%d restored no window", task.lo, task.hi)
		}
	}
	j.add(rows[2000:])
	var got []string
	j.advance(types.MaxWatermark, &got)
	j.close()
	slices.Sort(got)
	diffLines(t, got, want)
}
