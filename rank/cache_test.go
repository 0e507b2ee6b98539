package rank

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// lines collects what an operator emits, in order.
type lines struct{ got []string }

func (l *lines) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		vals := []string{exec.KindOf(b, r).String()}
		for _, col := range b.Columns() {
			vals = append(vals, col.ValueStr(r))
		}
		l.got = append(l.got, strings.Join(vals, ","))
	}
	return nil
}

// TestCacheWritesWhatStoreWould feeds the same random streams to
// deduplications and Top-Ns without a cache and with a small and a large
// one (state.Cache), and checks that they emit the same changes in the
// same order and that their stores hold the same entries at every
// snapshot: checkpoints, and so restores at any parallelism
// (TestRestoreRescales), see no difference.
func TestCacheWritesWhatStoreWould(t *testing.T) {
	order := []SortKey{{Col: 1, Desc: true, NullsLast: true}}
	cases := []struct {
		retractions bool
		make        func() (restorable, *keyed, error)
	}{
		{false, dedup(DedupSpec{UID: "d", In: kvtSchema, Partition: []int{0}, TimeCol: 2, KeepLast: true})},
		{false, dedup(DedupSpec{UID: "d", In: kvtSchema, Partition: []int{0}, TimeCol: 2})},
		{false, dedup(DedupSpec{UID: "d", In: kvtSchema, Partition: []int{0, 1}, TimeCol: -1})},
		{false, dedup(DedupSpec{UID: "d", In: kvtSchema, Partition: []int{1}, TimeCol: -1, KeepLast: true})},
		{false, topn(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: order, Start: 1, End: 3, RowNum: true})},
		{true, topn(Spec{UID: "t", In: kvtSchema, Partition: []int{0}, Order: order, Start: 2, End: 3, Strategy: Retract})},
		{true, topn(Spec{UID: "t", In: kvtSchema, Partition: []int{1}, Order: order, Start: 1, End: 5, RowNum: true, Strategy: Retract})},
	}
	shares := []int64{0, 4 << 10, 1 << 20}
	for i, c := range cases {
		for seed := int64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewSource(seed))
			stream := randChanges(rng, 400, c.retractions)
			ops := make([]restorable, len(shares))
			states := make([]*keyed, len(shares))
			for k, share := range shares {
				op, st, err := c.make()
				if err != nil {
					t.Fatal(err)
				}
				ctx := &exec.TaskContext{BatchSize: 5, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
					Checkpoint: &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}}
				if share > 0 {
					if ctx.Memory, err = memseg.NewManager(share, 1<<10); err != nil {
						t.Fatal(err)
					}
					ctx.MemoryShare = share
				}
				if err := op.Open(ctx); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { op.Close() })
				ops[k], states[k] = op, st
			}
			for lo, n := 0, 0; lo < len(stream); lo, n = lo+7, n+1 {
				var outs [][]string
				for _, op := range ops {
					out := &lines{}
					b := changeBatch(stream[lo:min(lo+7, len(stream))])
					err := op.Process(b, out)
					b.Release()
					if err != nil {
						t.Fatal(err)
					}
					outs = append(outs, out.got)
				}
				for k := 1; k < len(outs); k++ {
					if !slices.Equal(outs[k], outs[0]) {
						t.Fatalf("case %d seed %d rows %d: cache of %d bytes emitted\n  %v\nwithout\n  %v", i, seed, lo, shares[k], outs[k], outs[0])
					}
				}
				if n%5 == 4 {
					want := storedEntries(t, ops[0], states[0], int64(n))
					for k := 1; k < len(ops); k++ {
						if got := storedEntries(t, ops[k], states[k], int64(n)); !slices.Equal(got, want) {
							t.Fatalf("case %d seed %d rows %d: cache of %d bytes stored\n  %v\nwithout\n  %v", i, seed, lo, shares[k], got, want)
						}
					}
				}
			}
		}
	}
}

func dedup(spec DedupSpec) func() (restorable, *keyed, error) {
	return func() (restorable, *keyed, error) {
		d, err := NewDedup(spec)
		if err != nil {
			return nil, nil, err
		}
		return d, &d.state, nil
	}
}

func topn(spec Spec) func() (restorable, *keyed, error) {
	return func() (restorable, *keyed, error) {
		t, err := NewTopN(spec)
		if err != nil {
			return nil, nil, err
		}
		return t, &t.state, nil
	}
}

// storedEntries snapshots op and returns its store's entries.
func storedEntries(t *testing.T, op restorable, st *keyed, id int64) []string {
	t.Helper()
	if _, err := op.Snapshot(id); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := st.store.Scan(st.uid, 0, 0xffff, "", func(kg uint16, name string, key, value []byte) error {
		got = append(got, fmt.Sprintf("%d/%s/%x=%x", kg, name, key, value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
