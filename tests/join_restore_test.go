package tests

import (
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

// kvSide is both inputs' schema: (k BIGINT, v STRING), joined on k.
var kvSide = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TString}}

func kvSpec(kind join.Kind) join.Spec {
	return join.Spec{UID: "join-restore", Kind: kind, Left: kvSide, Right: kvSide, LeftKeys: []int{0}, RightKeys: []int{0},
		Out: append(append(types.Schema{}, kvSide...), kvSide...)}
}

// kvBatch makes a batch of inserts (k, v), or of deletes with del set.
func kvBatch(del bool, rows ...any) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	defer kb.Release()
	defer vb.Release()
	var kinds []exec.RowKind
	for i := 0; i < len(rows); i += 2 {
		kb.Append(int64(rows[i].(int)))
		vb.Append(rows[i+1].(string))
		k := exec.Insert
		if del {
			k = exec.Delete
		}
		kinds = append(kinds, k)
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	return exec.WithKinds(array.NewRecordBatch(kvSide.Arrow(), []arrow.Array{k, v}, int64(len(kinds))), kinds)
}

type kvOut struct{ lines []string }

func (c *kvOut) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, col := range b.Columns() {
			vals = append(vals, col.ValueStr(r))
		}
		c.lines = append(c.lines, exec.KindOf(b, r).String()+"["+strings.Join(vals, ", ")+"]")
	}
	return nil
}

type kvStep struct {
	side exec.Side
	b    func() arrow.RecordBatch
}

// TestJoinSnapshotRestore: a join restored from its checkpoint goes on
// exactly as the uninterrupted one, and the state of another join kind is
// refused (its match counts count something else).
func TestJoinSnapshotRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	before := []kvStep{
		{exec.Left, func() arrow.RecordBatch { return kvBatch(false, 1, "a", 2, "b") }},
		{exec.Right, func() arrow.RecordBatch { return kvBatch(false, 2, "y", 3, "z") }},
	}
	after := []kvStep{
		{exec.Right, func() arrow.RecordBatch { return kvBatch(false, 1, "x") }},
		{exec.Left, func() arrow.RecordBatch { return kvBatch(true, 2, "b") }},
		{exec.Left, func() arrow.RecordBatch { return kvBatch(false, 3, "c") }},
	}
	open := func(kind join.Kind, cp *exec.Checkpointing) (*join.Join, error) {
		j, err := join.New(kvSpec(kind))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		return j, j.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Parallelism: 1, Checkpoint: cp})
	}
	feed := func(j *join.Join, steps []kvStep) []string {
		out := &kvOut{}
		for _, s := range steps {
			b := s.b()
			if err := j.ProcessInput(s.side, b, out); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		return out.lines
	}
	ref, err := open(join.FullOuter, &exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage})
	if err != nil {
		t.Fatal(err)
	}
	feed(ref, before)
	want := feed(ref, after)

	j, err := open(join.FullOuter, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage})
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
	feed(j, after[:1]) // after the barrier: not in the checkpoint
	j.Close()
	restore := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	j, err = open(join.FullOuter, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage, Restore: restore})
	if err != nil {
		t.Fatal(err)
	}
	if got := feed(j, after); !slices.Equal(got, want) || len(want) < 4 {
		t.Fatalf("restored join emitted\n  %s\nuninterrupted\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if _, err := open(join.LeftOuter, &exec.Checkpointing{FS: fs, WorkDir: "w2", Storage: storage, Restore: restore}); err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("a left join restoring a full join's state: %v", err)
	}
}
