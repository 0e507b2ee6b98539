package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/join"
	"github.com/strandsql/strand/types"
)

// tkvSide is both inputs' schema of the temporal join restore test:
// (k BIGINT, ts TIMESTAMP(3), v STRING), joined on k at ts.
var tkvSide = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "ts", Type: types.TTimestamp}, {Name: "v", Type: types.TString}}

// tkvBatch makes a batch of changes (kind, k, ts in ms, v).
func tkvBatch(rows ...any) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, tkvSide[1].Type.Arrow().(*arrow.TimestampType))
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	defer kb.Release()
	defer tb.Release()
	defer vb.Release()
	var kinds []exec.RowKind
	for i := 0; i < len(rows); i += 4 {
		kinds = append(kinds, rows[i].(exec.RowKind))
		kb.Append(int64(rows[i+1].(int)))
		tb.Append(arrow.Timestamp(rows[i+2].(int)))
		vb.Append(rows[i+3].(string))
	}
	k, ts, v := kb.NewArray(), tb.NewArray(), vb.NewArray()
	defer k.Release()
	defer ts.Release()
	defer v.Release()
	return exec.WithKinds(array.NewRecordBatch(tkvSide.Arrow(), []arrow.Array{k, ts, v}, int64(len(kinds))), kinds)
}

// tStep is an input batch of a side, or, with b nil, a watermark.
type tStep struct {
	side exec.Side
	b    func() arrow.RecordBatch
	wm   int64
}

// TestTemporalJoinSnapshotRestore: an event-time temporal join restored
// from its checkpoint, holding left rows the watermark has not passed and
// several versions of a key, goes on exactly as the uninterrupted one;
// the state of a join of another kind is refused.
func TestTemporalJoinSnapshotRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	ins, del := exec.Insert, exec.Delete
	before := []tStep{
		{side: exec.Right, b: func() arrow.RecordBatch { return tkvBatch(ins, 1, 0, "r1a", ins, 2, 0, "r2a", ins, 1, 100, "r1b") }},
		{side: exec.Left, b: func() arrow.RecordBatch {
			return tkvBatch(ins, 1, 50, "l1", ins, 1, 150, "l2", ins, 2, 120, "l3", ins, 3, 10, "l4")
		}},
		{wm: 60}, // joins l1 and l4
		{side: exec.Right, b: func() arrow.RecordBatch { return tkvBatch(del, 2, 110, "r2a", ins, 1, 200, "r1c") }},
	}
	after := []tStep{
		{side: exec.Left, b: func() arrow.RecordBatch { return tkvBatch(ins, 1, 210, "l5", ins, 2, 300, "l6") }},
		{wm: 160}, // l2 (r1b), l3 (deleted at 110)
		{side: exec.Right, b: func() arrow.RecordBatch { return tkvBatch(ins, 2, 250, "r2b") }},
		{wm: types.MaxWatermark}, // l5 (r1c), l6 (r2b)
	}
	spec := func(kind join.Kind) join.TemporalSpec {
		out := append(append(types.Schema{}, tkvSide...), tkvSide...)
		return join.TemporalSpec{UID: "temporal-restore", Kind: kind, Left: tkvSide, Right: tkvSide, LeftKeys: []int{0}, RightKeys: []int{0},
			LeftTime: 1, RightTime: 1, Out: out}
	}
	open := func(kind join.Kind, cp *exec.Checkpointing) (*join.TemporalJoin, error) {
		j, err := join.NewTemporal(spec(kind))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j, j.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Parallelism: 1, Checkpoint: cp})
	}
	feed := func(j *join.TemporalJoin, steps []tStep) []string {
		out := &kvOut{}
		for _, s := range steps {
			if s.b == nil {
				if err := j.OnWatermark(s.wm, out); err != nil {
					t.Fatal(err)
				}
				continue
			}
			b := s.b()
			if err := j.ProcessInput(s.side, b, out); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		slices.Sort(out.lines)
		return out.lines
	}
	ref, err := open(join.LeftOuter, &exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	if got := feed(ref, before); len(got) != 2 {
		t.Fatalf("before the checkpoint: %s, want l1 and l4 joined", got)
	}
	want := feed(ref, after)
	for _, w := range []string{"l2", "l3, (null)", "l5", "l6"} {
		if !slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, w) }) {
			t.Fatalf("uninterrupted run: %s lacks %s", want, w)
		}
	}

	j, err := open(join.LeftOuter, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	feed(j, before)
	sn, err := j.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	feed(j, after[:2]) // after the barrier: not in the checkpoint
	j.Close()
	restore := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	j, err = open(join.LeftOuter, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage, Restore: restore})
	if err != nil {
		t.Fatal(err)
	}
	// The watermark a restored job starts from is the sources'; the join
	// has joined the rows before 60 already.
	if got := feed(j, append([]tStep{{wm: 60}}, after...)); !slices.Equal(got, want) {
		t.Fatalf("restored join emitted\n  %s\nuninterrupted\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if _, err := open(join.Inner, &exec.Checkpointing{FS: fs, WorkDir: "w2", Storage: storage, Restore: restore}); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("an inner temporal join restoring a left one's state: %v", err)
	}
}

// temporalCrashQuery is a LEFT event-time temporal join of a throttled
// generator (%[1]d rows at %[2]d rows per second, 10 ms of event time
// apart) with a versioned table of 300 keys (%[1]d versions, 15 ms apart):
// the pending left rows, the versions and the watermarks must all come
// back exactly after a crash.
const temporalCrashQuery = `
CREATE TABLE l (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '3', 'seed' = '7',
  'fields.k.min' = '1', 'fields.k.max' = '300', 'fields.ts.step' = '10 ms'
);
CREATE TABLE r (k BIGINT NOT NULL, v BIGINT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '2', 'seed' = '11',
  'fields.k.min' = '1', 'fields.k.max' = '300', 'fields.ts.step' = '15 ms'
);
CREATE TABLE out_t (k BIGINT, lts TIMESTAMP(3), v BIGINT, rts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t SELECT l.k, l.ts, r.v, r.ts FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts AS r ON l.k = r.k;
`

// TestTemporalJoinCrashRecovery kills runs of an event-time temporal join
// at random moments (and resumes one at another parallelism): the
// committed output equals an uninterrupted run's.
func TestTemporalJoinCrashRecovery(t *testing.T) {
	query := fmt.Sprintf(temporalCrashQuery, 6000, 5000)
	want := referenceRun(t, query)
	padded := 0
	for _, r := range want {
		if strings.HasSuffix(r, ",,") {
			padded++
		}
	}
	if len(want) < 1000 || padded == 0 || padded == len(want) {
		t.Fatalf("reference run wrote %d rows, %d padded", len(want), padded)
	}
	for _, c := range []struct{ p, final int }{{1, 1}, {2, 3}} {
		t.Run(fmt.Sprintf("p%d-to-p%d", c.p, c.final), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			landed, _ := crashRunAt(t, dir, c.p, c.final, 3, rand.New(rand.NewSource(int64(10*c.p+c.final))))
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("parallelism %d then %d: %d kills, %d rows", c.p, c.final, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// TestLookupJoinSnapshotRestore: a lookup join checkpointed while its
// table is still loading, with left rows waiting for it, goes on after a
// restore as the uninterrupted one: the waiting rows and the table's rows
// so far come back.
func TestLookupJoinSnapshotRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	ins := exec.Insert
	before := []tStep{
		{side: exec.Left, b: func() arrow.RecordBatch { return tkvBatch(ins, 1, 0, "l1", ins, 2, 0, "l2", ins, 3, 0, "l3") }},
		{side: exec.Right, b: func() arrow.RecordBatch { return tkvBatch(ins, 1, 0, "r1", ins, 2, 0, "r2") }},
	}
	after := []tStep{
		{side: exec.Right, b: func() arrow.RecordBatch { return tkvBatch(ins, 2, 0, "r2b", ins, 3, 0, "r3") }},
		{side: exec.Left, b: func() arrow.RecordBatch { return tkvBatch(ins, 1, 0, "l4") }},
	}
	spec := join.LookupSpec{UID: "lookup-restore", Kind: join.Inner, Left: tkvSide, Right: tkvSide, LeftKeys: []int{0}, RightKeys: []int{0},
		Out: append(append(types.Schema{}, tkvSide...), tkvSide...)}
	open := func(cp *exec.Checkpointing) *join.LookupJoin {
		j, err := join.NewLookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		if err := j.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Parallelism: 1, Checkpoint: cp}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	feed := func(j *join.LookupJoin, steps []tStep, end bool) []string {
		out := &kvOut{}
		for _, s := range steps {
			b := s.b()
			if err := j.ProcessInput(s.side, b, out); err != nil {
				t.Fatal(err)
			}
			b.Release()
			if end && s.side == exec.Right {
				// The table is complete after the right rows of after.
				if err := j.OnInputWatermark(exec.Right, types.MaxWatermark, out); err != nil {
					t.Fatal(err)
				}
			}
		}
		slices.Sort(out.lines)
		return out.lines
	}
	ref := open(&exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage})
	feed(ref, before, false)
	want := feed(ref, after, true)
	if len(want) != 5 {
		t.Fatalf("uninterrupted run: %s", want)
	}
	j := open(&exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage})
	feed(j, before, false)
	sn, err := j.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	j = open(&exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage, Restore: &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}})
	if got := feed(j, after, true); !slices.Equal(got, want) {
		t.Fatalf("restored join emitted\n  %s\nuninterrupted\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
