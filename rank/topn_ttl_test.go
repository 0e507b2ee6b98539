package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
)

// ttlOp is an operator the TTL tests drive.
type ttlOp interface {
	exec.Operator
	Open(*exec.TaskContext) error
	OnWatermark(int64, exec.Emitter) error
	Close() error
}

// runTTL feeds batches of changes to op, each after a watermark one
// before its first row's time, and returns what it emits.
func runTTL(t *testing.T, op ttlOp, batches [][]change) []string {
	wms := make([]int64, len(batches))
	for i, cs := range batches {
		wms[i] = cs[0].t - 1
	}
	return runTTLAt(t, op, batches, wms)
}

// runTTLAt feeds batches of changes to op, each after its watermark, and
// returns what it emits.
func runTTLAt(t *testing.T, op ttlOp, batches [][]change, wms []int64) []string {
	t.Helper()
	if err := op.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: 128, Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	out := &kinds{}
	for i, cs := range batches {
		if err := op.OnWatermark(wms[i], out); err != nil {
			t.Fatal(err)
		}
		b := changeBatch(cs)
		if err := op.Process(b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	return out.lines
}

func wantLines(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("emitted\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

var ttl10 = exec.StateTTL{TTL: state.TTL{Millis: 10}, TimeCol: 2}

// TestTopNTTL: a Top-N's partition expires whole, ttl after its last
// write, by the rows' event time: its next row enters as +I, nothing
// emitted before is retracted, and a row that writes nothing (ranked
// beyond End) does not keep it live.
func TestTopNTTL(t *testing.T) {
	desc := []SortKey{{Col: 1, Desc: true}}
	const ts = "1970-01-01T00:00:00"
	for _, c := range []struct {
		name string
		op   func() (ttlOp, error)
		want []string
	}{
		{"append", func() (ttlOp, error) {
			return NewTopN(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, TTL: ttl10})
		}, []string{"+I[1,5," + ts + ",1]", "+I[1,1," + ts + ".012,1]", "-U[1,1," + ts + ".012,1]", "+U[1,2," + ts + ".015,1]"}},
		{"rank", func() (ttlOp, error) {
			return NewRanked(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, Func: Rank, TTL: ttl10})
		}, []string{"+I[1,5," + ts + ",1]", "+I[1,1," + ts + ".012,1]", "+I[1,2," + ts + ".015,1]", "-D[1,1," + ts + ".012,1]"}},
		{"update-fast", func() (ttlOp, error) {
			return NewUpdateFast(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, Strategy: UpdateFast, Key: []int{0, 2}, TTL: ttl10})
		}, []string{"+I[1,5," + ts + ",1]", "+I[1,1," + ts + ".012,1]", "-U[1,1," + ts + ".012,1]", "+U[1,2," + ts + ".015,1]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			op, err := c.op()
			if err != nil {
				t.Fatal(err)
			}
			got := runTTL(t, op, [][]change{
				{{exec.Insert, 1, 5, 0}},
				{{exec.Insert, 1, 3, 8}},  // beyond End for insert-only input: writes nothing
				{{exec.Insert, 1, 1, 12}}, // expired at 10: +I
				{{exec.Insert, 1, 2, 15}},
			})
			wantLines(t, got, c.want)
		})
	}
}

// TestTopNTTLRetract: with Retract, a retraction of a row of a partition
// that a sweep at the watermark deleted is dropped, and the partition
// starts again. (A retraction carries its row's own time, at which the
// partition was live: only a sweep forgets it.)
func TestTopNTTLRetract(t *testing.T) {
	op, err := NewTopN(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: []SortKey{{Col: 1}}, Start: 1, End: 2, Strategy: Retract, TTL: ttl10})
	if err != nil {
		t.Fatal(err)
	}
	got := runTTLAt(t, op, [][]change{
		{{exec.Insert, 1, 5, 0}, {exec.Insert, 2, 7, 0}},
		{{exec.Insert, 2, 8, 9}},                         // keeps partition 2 live to 19
		{{exec.Delete, 1, 5, 0}, {exec.Delete, 2, 7, 0}}, // after the sweep at 15: partition 1 is gone
		{{exec.Insert, 1, 6, 16}},
	}, []int64{-1, 8, 15, 15})
	wantLines(t, got, []string{"+I[1,5,1970-01-01T00:00:00]", "+I[2,7,1970-01-01T00:00:00]",
		"+I[2,8,1970-01-01T00:00:00.009]", "-D[2,7,1970-01-01T00:00:00]", "+I[1,6,1970-01-01T00:00:00.016]"})
}

// TestTopNTTLRestore: a Top-N's savepoint taken without a TTL restores
// under one (its partitions live until a sweep stamps them), and one
// taken with a TTL restores without one (the stamps are dropped: nothing
// expires), for each of TopN, Ranked and UpdateFast.
func TestTopNTTLRestore(t *testing.T) {
	desc := []SortKey{{Col: 1, Desc: true}}
	mk := map[string]func(exec.StateTTL) (ttlOp, error){
		"topn": func(ttl exec.StateTTL) (ttlOp, error) {
			return NewTopN(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, TTL: ttl})
		},
		"rank": func(ttl exec.StateTTL) (ttlOp, error) {
			return NewRanked(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, Func: Rank, TTL: ttl})
		},
		"update-fast": func(ttl exec.StateTTL) (ttlOp, error) {
			return NewUpdateFast(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: desc, Start: 1, End: 1, RowNum: true, Strategy: UpdateFast, Key: []int{0, 2}, TTL: ttl})
		},
	}
	const ts = "1970-01-01T00:00:00"
	for name, mk := range mk {
		t.Run(name, func(t *testing.T) {
			fs := vfs.NewMem()
			storage, err := checkpoint.OpenStorage(fs, "cp")
			if err != nil {
				t.Fatal(err)
			}
			var meta *checkpoint.Metadata
			// run opens an operator with ttl from the last snapshot, feeds
			// it rows, each after a watermark, and snapshots it.
			run := func(ttl exec.StateTTL, dir string, rows []change, wms []int64) []string {
				op, err := mk(ttl)
				if err != nil {
					t.Fatal(err)
				}
				defer op.Close()
				if err := op.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: 1, Parallelism: 1,
					Checkpoint: &exec.Checkpointing{FS: fs, WorkDir: dir, Storage: storage, Restore: meta}}); err != nil {
					t.Fatal(err)
				}
				out := &kinds{}
				for i, c := range rows {
					if err := op.OnWatermark(wms[i], out); err != nil {
						t.Fatal(err)
					}
					b := changeBatch([]change{c})
					if err := op.Process(b, out); err != nil {
						t.Fatal(err)
					}
					b.Release()
				}
				sn, err := op.(restorable).Snapshot(int64(len(dir)))
				if err != nil {
					t.Fatal(err)
				}
				h, err := sn.State.Upload(storage)
				if err != nil {
					t.Fatal(err)
				}
				meta = &checkpoint.Metadata{ID: int64(len(dir)), Operators: []checkpoint.OperatorState{{
					UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: 1,
					Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
				}}}
				return out.lines
			}
			off := exec.StateTTL{TimeCol: 2}
			wantLines(t, run(off, "a", []change{{exec.Insert, 1, 5, 0}}, []int64{-1}), []string{"+I[1,5," + ts + ",1]"})
			// Under a TTL of 10: unstamped, the partition lives at 50; the
			// sweep at 60 stamps it, so at 75 it has expired.
			wantLines(t, run(ttl10, "bb", []change{{exec.Insert, 1, 3, 50}, {exec.Insert, 1, 2, 75}}, []int64{49, 60}),
				[]string{"+I[1,2," + ts + ".075,1]"})
			// Without a TTL again: written at 75, never expires.
			want := []string{"-U[1,2," + ts + ".075,1]", "+U[1,4," + ts + ".6,1]"}
			if name == "rank" { // the rank stays: the rows differ
				want = []string{"+I[1,4," + ts + ".6,1]", "-D[1,2," + ts + ".075,1]"}
			}
			wantLines(t, run(off, "ccc", []change{{exec.Insert, 1, 1, 500}, {exec.Insert, 1, 4, 600}}, []int64{499, 599}), want)
			// Under the TTL again: the stamp of 75 was dropped, so the
			// partition lives at 605 (3 ranks second), until the sweep
			// at 650 stamps it: at 700 it has expired.
			wantLines(t, run(ttl10, "dddd", []change{{exec.Insert, 1, 3, 605}, {exec.Insert, 1, 1, 700}}, []int64{604, 650}),
				[]string{"+I[1,1," + ts + ".7,1]"})
		})
	}
}
