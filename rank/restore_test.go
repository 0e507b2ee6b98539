package rank

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// kvtSchema is the restore tests' input: (k BIGINT, v BIGINT, ts
// TIMESTAMP(3)), partitioned by k.
var kvtSchema = types.Schema{
	{Name: "k", Type: types.TBigInt},
	{Name: "v", Type: types.TBigInt},
	{Name: "ts", Type: types.TTimestamp},
}

// change is one input row and its kind.
type change struct {
	kind    exec.RowKind
	k, v, t int64
}

// randChanges makes n changes over 6 keys; with retractions, some take an
// earlier insertion back (its +I before its -D, as a join sends them).
func randChanges(rng *rand.Rand, n int, retractions bool) []change {
	var out, live []change
	for range n {
		if retractions && len(live) > 0 && rng.Intn(3) == 0 {
			i := rng.Intn(len(live))
			c := live[i]
			live = slices.Delete(live, i, i+1)
			c.kind = exec.Delete
			out = append(out, c)
			continue
		}
		c := change{kind: exec.Insert, k: int64(rng.Intn(6)), v: int64(rng.Intn(10)), t: int64(rng.Intn(50))}
		out, live = append(out, c), append(live, c)
	}
	return out
}

// upsertChanges makes n changes of rows under the unique key (k, ts),
// whose v only grows: a key's first row is +I, each later one -U of the
// old row and +U of the new, as a group aggregate's COUNT sends them.
func upsertChanges(rng *rand.Rand, n int) []change {
	var out []change
	cur := map[[2]int64]int64{}
	for len(out) < n {
		k, ts := int64(rng.Intn(6)), int64(rng.Intn(12))
		old, ok := cur[[2]int64{k, ts}]
		if !ok {
			v := int64(rng.Intn(5))
			cur[[2]int64{k, ts}] = v
			out = append(out, change{kind: exec.Insert, k: k, v: v, t: ts})
			continue
		}
		v := old + 1 + int64(rng.Intn(3))
		cur[[2]int64{k, ts}] = v
		out = append(out, change{kind: exec.UpdateBefore, k: k, v: old, t: ts}, change{kind: exec.UpdateAfter, k: k, v: v, t: ts})
	}
	return out
}

func changeBatch(cs []change) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, kvtSchema.Arrow())
	defer b.Release()
	kinds := make([]exec.RowKind, len(cs))
	for i, c := range cs {
		b.Field(0).(*array.Int64Builder).Append(c.k)
		b.Field(1).(*array.Int64Builder).Append(c.v)
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(c.t))
		kinds[i] = c.kind
	}
	return exec.WithKinds(b.NewRecordBatch(), kinds)
}

// applied collects emitted changes and applies them: the result as sorted
// rows, failing on a retraction of a row not in it.
type applied struct {
	t    *testing.T
	name string
	rows map[string]int
	n    int // changes seen
}

func (a *applied) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, col := range b.Columns() {
			vals = append(vals, col.ValueStr(r))
		}
		row := strings.Join(vals, ",")
		a.n++
		if exec.KindOf(b, r).Retracts() {
			if a.rows[row] == 0 {
				a.t.Fatalf("%s: retraction of %s, which is not in the result", a.name, row)
			}
			a.rows[row]--
			continue
		}
		a.rows[row]++
	}
	return nil
}

func (a *applied) result() []string {
	var out []string
	for row, n := range a.rows {
		for range n {
			out = append(out, row)
		}
	}
	slices.Sort(out)
	return out
}

// discard drops what an operator emits after its checkpoint, before it
// stops.
type discard struct{}

func (discard) Emit(b arrow.RecordBatch) error { b.Release(); return nil }

// restorable is what the test drives: a TopN or a Dedup.
type restorable interface {
	exec.Operator
	Open(*exec.TaskContext) error
	Snapshot(int64) (exec.OperatorSnapshot, error)
	Close() error
}

// TestRestoreRescales checkpoints Top-N and deduplication operators at a
// random point of random streams, stops them, restores the checkpoint at
// parallelism 2 (each subtask taking its key groups) and feeds the rest of
// the stream, each row to the subtask its key's group belongs to: the
// result is exactly the uninterrupted operator's, and a restore into an
// operator of another spec is refused.
func TestRestoreRescales(t *testing.T) {
	order := []SortKey{{Col: 1, Desc: true, NullsLast: true}}
	cases := []struct {
		name        string
		retractions bool
		make        func() (restorable, error)
		other       func() (restorable, error) // another spec, same uid
		upserts     bool                       // the stream is upsertChanges'
	}{
		{"topn-append-rownum", false,
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true})
			},
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 4, RowNum: true})
			}, false},
		{"topn-retract-range", true,
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 2, End: 3, Strategy: Retract})
			},
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order[:0], Start: 2, End: 3, Strategy: Retract})
			}, false},
		{"rank-append", false,
			func() (restorable, error) {
				return NewRanked(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true, Func: Rank})
			},
			func() (restorable, error) {
				return NewRanked(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true, Func: DenseRank})
			}, false},
		{"dense-rank-retract", true,
			func() (restorable, error) {
				return NewRanked(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 2, End: 3, RowNum: true, Strategy: Retract, Func: DenseRank})
			},
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 2, End: 3, RowNum: true, Strategy: Retract})
			}, false},
		{"topn-update-fast", false,
			func() (restorable, error) {
				return NewUpdateFast(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true, Strategy: UpdateFast, Key: []int{0, 2}})
			},
			func() (restorable, error) {
				return NewTopN(Spec{UID: "r", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true, Strategy: Retract})
			}, true},
		{"dedup-last-rowtime", false,
			func() (restorable, error) {
				return NewDedup(DedupSpec{UID: "r", In: kvtSchema, Partition: []int{0}, TimeCol: 2, KeepLast: true})
			},
			func() (restorable, error) {
				return NewDedup(DedupSpec{UID: "r", In: kvtSchema, Partition: []int{0}, TimeCol: 2})
			}, false},
		{"dedup-first-proctime", false,
			func() (restorable, error) {
				return NewDedup(DedupSpec{UID: "r", In: kvtSchema, Partition: []int{0}, TimeCol: -1})
			},
			func() (restorable, error) {
				return NewDedup(DedupSpec{UID: "r", In: kvtSchema, Partition: []int{0}, TimeCol: -1, KeepLast: true})
			}, false},
	}
	for seed := int64(1); seed <= 3; seed++ {
		for _, c := range cases {
			t.Run(fmt.Sprint(c.name, "-", seed), func(t *testing.T) {
				rng := rand.New(rand.NewSource(seed))
				stream := randChanges(rng, 300, c.retractions)
				if c.upserts {
					stream = upsertChanges(rng, 300)
				}
				cut := 50 + rng.Intn(200)
				fs := vfs.NewMem()
				storage, err := checkpoint.OpenStorage(fs, "cp")
				if err != nil {
					t.Fatal(err)
				}
				open := func(mk func() (restorable, error), cp *exec.Checkpointing, sub, par int) (restorable, error) {
					op, err := mk()
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { op.Close() })
					return op, op.Open(&exec.TaskContext{BatchSize: 5, MaxParallelism: exec.DefaultMaxParallelism, Subtask: sub, Parallelism: par, Checkpoint: cp})
				}
				feed := func(op restorable, cs []change, out exec.Emitter) {
					for lo := 0; lo < len(cs); lo += 7 {
						b := changeBatch(cs[lo:min(lo+7, len(cs))])
						if err := op.Process(b, out); err != nil {
							t.Fatal(err)
						}
						b.Release()
					}
				}
				// Uninterrupted.
				ref, err := open(c.make, &exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage}, 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				want := &applied{t: t, name: "uninterrupted", rows: map[string]int{}}
				feed(ref, stream, want)

				// Checkpointed at cut, then stopped after a few more rows
				// that the checkpoint does not hold.
				got := &applied{t: t, name: "restored", rows: map[string]int{}}
				op, err := open(c.make, &exec.Checkpointing{FS: fs, WorkDir: "w", Storage: storage}, 0, 1)
				if err != nil {
					t.Fatal(err)
				}
				feed(op, stream[:cut], got)
				sn, err := op.Snapshot(1)
				if err != nil {
					t.Fatal(err)
				}
				h, err := sn.State.Upload(storage)
				if err != nil {
					t.Fatal(err)
				}
				feed(op, stream[cut:cut+10], discard{})
				op.Close()
				meta := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
					UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
					Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
				}}}

				// Restored at parallelism 2: each row goes to the subtask
				// of its key's group, as the hash exchange sends it.
				var subs [2]restorable
				var parts [2][]change
				for s := range subs {
					if subs[s], err = open(c.make, &exec.Checkpointing{FS: fs, WorkDir: fmt.Sprint("r", s), Storage: storage, Restore: meta}, s, 2); err != nil {
						t.Fatal(err)
					}
				}
				var enc memseg.KeyEncoder
				b := changeBatch(stream[cut:])
				if err := enc.Reset(b, []int{0}); err != nil {
					t.Fatal(err)
				}
				for i, ch := range stream[cut:] {
					kg := exec.KeyGroup(enc.Append(nil, i), exec.DefaultMaxParallelism)
					s := exec.Subtask(kg, exec.DefaultMaxParallelism, 2)
					parts[s] = append(parts[s], ch)
				}
				b.Release()
				if len(parts[0]) == 0 || len(parts[1]) == 0 {
					t.Fatalf("rows of %d and %d for the two subtasks: no rescale", len(parts[0]), len(parts[1]))
				}
				for s := range subs {
					feed(subs[s], parts[s], got)
				}
				if g, w := got.result(), want.result(); !slices.Equal(g, w) || len(w) == 0 {
					t.Fatalf("restored at parallelism 2:\n  %s\nuninterrupted:\n  %s", strings.Join(g, "\n  "), strings.Join(w, "\n  "))
				}
				if _, err := open(c.other, &exec.Checkpointing{FS: fs, WorkDir: "o", Storage: storage, Restore: meta}, 0, 1); err == nil || !strings.Contains(err.Error(), "incompatible") {
					t.Fatalf("another spec restoring the state: %v", err)
				}
			})
		}
	}
}
