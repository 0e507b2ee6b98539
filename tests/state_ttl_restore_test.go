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
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// ktSide is both inputs' schema: (k BIGINT, t TIMESTAMP(3) rowtime).
var ktSide = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "t", Type: types.Type{Kind: types.Timestamp, Precision: 3, Attr: types.RowTime}}}

// ktBatch makes a batch of inserts (k, t in seconds).
func ktBatch(rows ...int64) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	defer kb.Release()
	defer tb.Release()
	for i := 0; i < len(rows); i += 2 {
		kb.Append(rows[i])
		tb.Append(arrow.Timestamp(rows[i+1] * 1000))
	}
	k, ts := kb.NewArray(), tb.NewArray()
	defer k.Release()
	defer ts.Release()
	return array.NewRecordBatch(ktSide.Arrow(), []arrow.Array{k, ts}, int64(len(rows)/2))
}

// TestJoinStateTTLRestore: a join's TTL'd state survives a checkpoint,
// and what expired is not returned after the restore; the TTL may change
// between the checkpoint and the restore (it is not in the fingerprint);
// and expired rows a sweep deleted are gone from the next checkpoint.
func TestJoinStateTTLRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	work := 0
	open := func(ttl int64, restore *checkpoint.Metadata) *join.Join {
		spec := join.Spec{UID: "join-ttl", Kind: join.Inner, Left: ktSide, Right: ktSide, LeftKeys: []int{0}, RightKeys: []int{0},
			Out: append(append(types.Schema{}, ktSide...), ktSide...)}
		for side := range spec.TTL {
			spec.TTL[side] = exec.StateTTL{TTL: state.TTL{Millis: ttl}, TimeCol: 1}
		}
		j, err := join.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		work++
		cp := &exec.Checkpointing{FS: fs, WorkDir: "w" + string(rune('0'+work)), Storage: storage, Restore: restore}
		if err := j.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Parallelism: 1, Checkpoint: cp}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	feed := func(j *join.Join, side exec.Side, rows ...int64) string {
		out := &kvOut{}
		b := ktBatch(rows...)
		defer b.Release()
		if err := j.ProcessInput(side, b, out); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out.lines)
		return strings.Join(out.lines, " ")
	}
	checkpointOf := func(j *join.Join, id int64) *checkpoint.Metadata {
		sn, err := j.Snapshot(id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := sn.State.Upload(storage)
		if err != nil {
			t.Fatal(err)
		}
		return &checkpoint.Metadata{ID: id, Operators: []checkpoint.OperatorState{{
			UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
			Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
		}}}
	}

	// Left rows at 0 s and 8 s under a 10 s TTL, checkpointed.
	j := open(10000, nil)
	feed(j, exec.Left, 1, 0, 2, 8)
	cp1 := checkpointOf(j, 1)
	j.Close()

	// Restored with the same TTL: at 15 s the row of 0 s has expired, the
	// one of 8 s has not.
	j = open(10000, cp1)
	if got, want := feed(j, exec.Right, 1, 15, 2, 15), "+I[2, 1970-01-01T00:00:08, 2, 1970-01-01T00:00:15]"; got != want {
		t.Errorf("restored under the same TTL: %q, want %q", got, want)
	}
	j.Close()

	// Restored without a TTL: nothing expires, both match.
	j = open(0, cp1)
	if got := feed(j, exec.Right, 1, 15, 2, 15); strings.Count(got, "+I") != 2 {
		t.Errorf("restored without a TTL: %q, want both rows matched", got)
	}
	j.Close()

	// Restored under a longer TTL: the row of 0 s lives on to 15 s.
	j = open(20000, cp1)
	if got := feed(j, exec.Right, 1, 15); !strings.HasPrefix(got, "+I[1, ") {
		t.Errorf("restored under a 20 s TTL: %q, want a match", got)
	}
	j.Close()

	// A sweep at watermark 15 s deletes the expired row; the next
	// checkpoint no longer holds it, even for a join without a TTL.
	j = open(10000, cp1)
	for wm := int64(15000); wm < 15000+2*exec.DefaultMaxParallelism; wm++ {
		if err := j.OnWatermark(wm, &kvOut{}); err != nil {
			t.Fatal(err)
		}
	}
	cp2 := checkpointOf(j, 2)
	j.Close()
	j = open(0, cp2)
	if got, want := feed(j, exec.Right, 1, 16, 2, 16), "+I[2, 1970-01-01T00:00:08, 2, 1970-01-01T00:00:16]"; got != want {
		t.Errorf("after a sweep and a checkpoint: %q, want %q", got, want)
	}
}
