package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/groupagg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

func kvAggSpec(retract bool) groupagg.Spec {
	big := types.TBigInt.WithNotNull(true)
	return groupagg.Spec{UID: "groupagg-restore", In: kvSide, Keys: []int{0}, Retract: retract, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: big},
		{Kind: agg.Max, Arg: 1, Filter: -1, Out: types.TString},
		{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: big},
	}}
}

// TestGroupAggSnapshotRestore: a group aggregate restored from its
// checkpoint, at parallelism 1 and rescaled to 2 subtasks, goes on
// exactly as the uninterrupted one (its cached groups, its DISTINCT
// counts and its retracting MAX's values are all in the checkpoint), and
// the state of an aggregate that does not retract is refused.
func TestGroupAggSnapshotRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	before := []func() arrow.RecordBatch{
		func() arrow.RecordBatch { return kvBatch(false, 1, "a", 2, "b", 1, "c", 3, "z") },
		func() arrow.RecordBatch { return kvBatch(false, 2, "b", 1, "a") },
	}
	after := []func() arrow.RecordBatch{
		func() arrow.RecordBatch { return kvBatch(true, 1, "c", 2, "b") },
		func() arrow.RecordBatch { return kvBatch(false, 3, "y", 4, "q") },
		func() arrow.RecordBatch { return kvBatch(true, 3, "z", 3, "y", 2, "b") },
	}
	open := func(retract bool, subtask, par int, cp *exec.Checkpointing) (*groupagg.Agg, error) {
		a, err := groupagg.New(kvAggSpec(retract))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return a, a.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Subtask: subtask, Parallelism: par, Checkpoint: cp, Now: func() int64 { return 0 }})
	}
	feed := func(as []*groupagg.Agg, steps []func() arrow.RecordBatch) []string {
		out := &kvOut{}
		for _, s := range steps {
			for sub, a := range as {
				// Each subtask gets the rows of its key groups, as behind
				// the hash exchange.
				b := s()
				sel := ownRows(t, b, sub, len(as))
				part := exec.WithKinds(expr.Take(memory.DefaultAllocator, b, sel), exec.TakeKinds(b, sel))
				b.Release()
				if part.NumRows() > 0 {
					if err := a.Process(part, out); err != nil {
						t.Fatal(err)
					}
				}
				part.Release()
			}
		}
		slices.Sort(out.lines)
		return out.lines
	}
	ref, err := open(true, 0, 1, &exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	feed([]*groupagg.Agg{ref}, before)
	want := feed([]*groupagg.Agg{ref}, after)

	a, err := open(true, 0, 1, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	feed([]*groupagg.Agg{a}, before)
	sn, err := a.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	feed([]*groupagg.Agg{a}, after[:1]) // after the barrier: not in the checkpoint
	a.Close()
	restore := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	for _, par := range []int{1, 2} {
		var as []*groupagg.Agg
		for sub := range par {
			a, err := open(true, sub, par, &exec.Checkpointing{FS: fs, WorkDir: "r" + string(rune('0'+par)), Storage: storage, Restore: restore})
			if err != nil {
				t.Fatal(err)
			}
			as = append(as, a)
		}
		if got := feed(as, after); !slices.Equal(got, want) || len(want) < 6 {
			t.Fatalf("restored at parallelism %d emitted\n  %s\nuninterrupted\n  %s", par, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	if _, err := open(false, 0, 1, &exec.Checkpointing{FS: fs, WorkDir: "w2", Storage: storage, Restore: restore}); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("an append-only aggregate restoring a retracting one's state: %v", err)
	}
}

// ownRows are the rows of b whose key (column 0) subtask sub of par owns.
func ownRows(t *testing.T, b arrow.RecordBatch, sub, par int) []int32 {
	var enc memseg.KeyEncoder
	if err := enc.Reset(b, []int{0}); err != nil {
		t.Fatal(err)
	}
	var sel []int32
	for r := range int(b.NumRows()) {
		kg := exec.KeyGroup(enc.Append(nil, r), exec.DefaultMaxParallelism)
		if exec.Subtask(kg, exec.DefaultMaxParallelism, par) == sub {
			sel = append(sel, int32(r))
		}
	}
	return sel
}
