package tests

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/groupagg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// kvtSchema is (k BIGINT, v BIGINT, t TIMESTAMP(3) rowtime).
var kvtSchema = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt},
	{Name: "t", Type: types.Type{Kind: types.Timestamp, Precision: 3, Attr: types.RowTime}}}

// kvtBatch makes a batch of inserts (k, v, t in seconds).
func kvtBatch(rows ...int64) arrow.RecordBatch {
	kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	defer kb.Release()
	defer vb.Release()
	defer tb.Release()
	for i := 0; i < len(rows); i += 3 {
		kb.Append(rows[i])
		vb.Append(rows[i+1])
		tb.Append(arrow.Timestamp(rows[i+2] * 1000))
	}
	k, v, ts := kb.NewArray(), vb.NewArray(), tb.NewArray()
	defer k.Release()
	defer v.Release()
	defer ts.Release()
	return array.NewRecordBatch(kvtSchema.Arrow(), []arrow.Array{k, v, ts}, int64(len(rows)/3))
}

// TestGroupAggDistinctTTLRestore: a group aggregate's DISTINCT values
// keep their TTL stamps through a checkpoint, under the same TTL, another
// or none; swept values are gone from the next checkpoint; and state of
// the layout before the stamps (another fingerprint) is refused.
func TestGroupAggDistinctTTLRestore(t *testing.T) {
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	big := types.TBigInt.WithNotNull(true)
	work := 0
	open := func(ttl int64, restore *checkpoint.Metadata) (*groupagg.Agg, error) {
		spec := groupagg.Spec{UID: "g-ttl", In: kvtSchema, Keys: []int{0}, Aggs: []agg.Call{
			{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: big},
			{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: big},
		}, TTL: exec.StateTTL{TTL: state.TTL{Millis: ttl * 1000}, TimeCol: 2}}
		a, err := groupagg.New(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		work++
		cp := &exec.Checkpointing{FS: fs, WorkDir: "w" + string(rune('a'+work)), Storage: storage, Restore: restore}
		return a, a.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
			Parallelism: 1, Checkpoint: cp})
	}
	must := func(a *groupagg.Agg, err error) *groupagg.Agg {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	feed := func(a *groupagg.Agg, rows ...int64) string {
		t.Helper()
		out := &kvOut{}
		b := kvtBatch(rows...)
		defer b.Release()
		if err := a.Process(b, out); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out.lines, " ")
	}
	checkpointOf := func(a *groupagg.Agg, id int64) *checkpoint.Metadata {
		sn, err := a.Snapshot(id)
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

	// Group 1's values 1 (at 0 s) and 2 (at 8 s) under a 10 s TTL.
	a := must(open(10, nil))
	feed(a, 1, 1, 0, 1, 2, 8)
	cp1 := checkpointOf(a, 1)
	a.Close()

	// Same TTL: at 15 s value 1 has expired and counts again, 2 has not.
	a = must(open(10, cp1))
	if got, want := feed(a, 1, 1, 15, 1, 2, 15), "-U[1, 2, 2] +U[1, 3, 3] -U[1, 3, 3] +U[1, 4, 3]"; got != want {
		t.Errorf("restored under the same TTL: %q, want %q", got, want)
	}
	a.Close()

	// No TTL: nothing expires.
	a = must(open(0, cp1))
	if got, want := feed(a, 1, 1, 15), "-U[1, 2, 2] +U[1, 3, 2]"; got != want {
		t.Errorf("restored without a TTL: %q, want %q", got, want)
	}
	a.Close()

	// A 20 s TTL: value 1 lives on to 15 s.
	a = must(open(20, cp1))
	if got, want := feed(a, 1, 1, 15), "-U[1, 2, 2] +U[1, 3, 2]"; got != want {
		t.Errorf("restored under a 20 s TTL: %q, want %q", got, want)
	}
	a.Close()

	// The group (written at 8 s) has expired at 18 s, its values too.
	a = must(open(10, cp1))
	if got, want := feed(a, 1, 2, 18), "+I[1, 1, 1]"; got != want {
		t.Errorf("an expired group: %q, want %q", got, want)
	}
	a.Close()

	// A sweep at 12 s deletes value 1 of group 1 (counted at 0 s), not
	// value 2 (8 s) or the group: restored without a TTL, 1 counts again
	// and 2 does not.
	a = must(open(10, cp1))
	for wm := int64(12000); wm < 12000+2*exec.DefaultMaxParallelism; wm++ {
		if err := a.OnWatermark(wm, &kvOut{}); err != nil {
			t.Fatal(err)
		}
	}
	cp2 := checkpointOf(a, 2)
	a.Close()
	a = must(open(0, cp2))
	if got, want := feed(a, 1, 1, 13, 1, 2, 13), "-U[1, 2, 2] +U[1, 3, 3] -U[1, 3, 3] +U[1, 4, 3]"; got != want {
		t.Errorf("after a sweep: %q, want %q", got, want)
	}
	a.Close()

	// A checkpoint whose fingerprint is of another layout (as the
	// unstamped DISTINCT entries before groupagg/3) is refused.
	old := *cp1
	old.Operators = []checkpoint.OperatorState{cp1.Operators[0]}
	old.Operators[0].Fingerprint = "0000000000000000"
	if _, err := open(10, &old); !errors.Is(err, exec.ErrIncompatible) {
		t.Fatalf("restore of another layout: %v, want ErrIncompatible", err)
	}
}
