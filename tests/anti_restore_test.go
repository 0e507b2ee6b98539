package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/join"
)

// TestNullAwareAntiRestore: a NOT IN join restored from its checkpoint
// goes on exactly as the uninterrupted one: the right side's counts (its
// rows, its NULL keys) come back with its rows.
func TestNullAwareAntiRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	spec := kvSpec(join.Anti)
	spec.NullAware, spec.Out = true, kvSide
	before := []kvStep{
		{exec.Left, func() arrow.RecordBatch { return kvBatch(false, 1, "a", 2, "b") }},
		{exec.Right, func() arrow.RecordBatch { return kvBatch(false, 1, "x") }},
	}
	after := []kvStep{
		{exec.Right, func() arrow.RecordBatch { return kvBatch(true, 1, "x") }}, // the right side is empty again: a and b show
		{exec.Right, func() arrow.RecordBatch { return kvBatch(false, 2, "y") }},
		{exec.Left, func() arrow.RecordBatch { return kvBatch(false, 3, "c") }},
	}
	open := func(cp *exec.Checkpointing) *join.Join {
		j, err := join.New(spec)
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
	ref := open(&exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage})
	feed(ref, before)
	want := feed(ref, after)

	j := open(&exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage})
	feed(j, before)
	sn, err := j.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	restore := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	j = open(&exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage, Restore: restore})
	if got := feed(j, after); !slices.Equal(got, want) || len(want) < 3 {
		t.Fatalf("restored join emitted\n  %s\nuninterrupted\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
