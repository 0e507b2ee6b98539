package join

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

func openTemporal(t *testing.T, kind Kind) *TemporalJoin {
	t.Helper()
	j, err := NewTemporal(TemporalSpec{UID: "temporal-test", Kind: kind, Left: timed, Right: timed, LeftKeys: []int{1}, RightKeys: []int{1},
		LeftTime: 0, RightTime: 0, Out: append(append(types.Schema{}, timed...), timed...)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 2, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
		Now: func() int64 { return 0 }, Checkpoint: &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}}
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// entries counts the join's state entries of name over its key groups.
func (j *TemporalJoin) entries(t *testing.T, name string) int {
	n := 0
	for kg := j.lo; kg <= j.hi; kg++ {
		if err := j.writes.ScanPrefix(j.uid, uint16(kg), name, nil, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestTemporalStateIsFreed: versions older than the one valid at the
// watermark go, and so do joined left rows; a left row waits for the
// watermark to pass its time, whatever came after it.
func TestTemporalStateIsFreed(t *testing.T) {
	j := openTemporal(t, LeftOuter)
	out := &collect{}
	for ts := int64(0); ts < 1000; ts += 10 {
		// Versions of keys 1 and 2 every 10 ms, a left row of key 1 at
		// each; the watermark 25 ms behind.
		b := at(ts, 1, ts, 2)
		if err := j.ProcessInput(exec.Right, b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
		b = at(ts+5, 1)
		if err := j.ProcessInput(exec.Left, b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if err := j.OnWatermark(ts-25, out); err != nil {
			t.Fatal(err)
		}
		if v := j.entries(t, versionsName); v > 10 {
			t.Fatalf("at %d ms: %d versions kept", ts, v)
		}
		if p := j.entries(t, pendingName); p > 4 {
			t.Fatalf("at %d ms: %d left rows pending", ts, p)
		}
	}
	got := out.take()
	if len(got) != 96 || !slices.Contains(got, "+I[1970-01-01T00:00:00.095, 1, 1970-01-01T00:00:00.09, 1]") {
		t.Fatalf("%d rows: %v", len(got), got)
	}
	if err := j.OnWatermark(types.MaxWatermark, out); err != nil {
		t.Fatal(err)
	}
	if got := out.take(); len(got) != 4 || j.entries(t, pendingName) != 0 {
		t.Fatalf("the final watermark: %v, %d pending", got, j.entries(t, pendingName))
	}
	// Each key keeps its last version, and nothing else.
	if v, o := j.entries(t, versionsName), j.entries(t, obsoleteName); v != 2 || o != 0 {
		t.Fatalf("after the end: %d versions, %d index entries", v, o)
	}
}

// TestLookupWaitsForTheTable: left rows that come before the right
// table is complete wait in state and are joined with the whole table;
// later rows are joined at once; a LEFT join pads a row without a match.
func TestLookupWaitsForTheTable(t *testing.T) {
	spec := LookupSpec{UID: "lookup-test", Kind: LeftOuter, Left: timed, Right: timed, LeftKeys: []int{1}, RightKeys: []int{1},
		Out: append(append(types.Schema{}, timed...), timed...)}
	j, err := NewLookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 2, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
		Checkpoint: &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}}
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	out := &collect{}
	feed := func(side exec.Side, rows ...int64) {
		b := at(rows...)
		defer b.Release()
		if err := j.ProcessInput(side, b, out); err != nil {
			t.Fatal(err)
		}
	}
	feed(exec.Left, 1, 1, 2, 2, 3, 3)
	feed(exec.Right, 10, 1, 20, 2, 21, 2, 30, 3)
	if got := out.take(); len(got) != 0 {
		t.Fatalf("joined before the table was complete: %v", got)
	}
	if err := j.OnInputWatermark(exec.Right, types.MaxWatermark, out); err != nil {
		t.Fatal(err)
	}
	feed(exec.Left, 4, 1, 5, 9)
	got := out.take()
	slices.Sort(got)
	want := []string{
		"+I[1970-01-01T00:00:00.001, 1, 1970-01-01T00:00:00.01, 1]",
		"+I[1970-01-01T00:00:00.002, 2, 1970-01-01T00:00:00.02, 2]",
		"+I[1970-01-01T00:00:00.002, 2, 1970-01-01T00:00:00.021, 2]",
		"+I[1970-01-01T00:00:00.003, 3, 1970-01-01T00:00:00.03, 3]",
		"+I[1970-01-01T00:00:00.004, 1, 1970-01-01T00:00:00.01, 1]",
		"+I[1970-01-01T00:00:00.005, 9, null, null]",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n  %v\nwant\n  %v", got, want)
	}
}
