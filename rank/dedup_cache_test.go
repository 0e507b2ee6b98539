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

// TestDedupCacheWritesWhatStoreWould feeds the same random streams to
// deduplications without a cache and with a small and a large one
// (state.Cache), and checks that they emit the same changes in the same
// order and that their stores hold the same entries at every snapshot:
// checkpoints, and so restores at any parallelism (TestRestoreRescales),
// see no difference.
func TestDedupCacheWritesWhatStoreWould(t *testing.T) {
	specs := []DedupSpec{
		{UID: "d", In: kvtSchema, Partition: []int{0}, TimeCol: 2, KeepLast: true},
		{UID: "d", In: kvtSchema, Partition: []int{0}, TimeCol: 2},
		{UID: "d", In: kvtSchema, Partition: []int{0, 1}, TimeCol: -1},
		{UID: "d", In: kvtSchema, Partition: []int{1}, TimeCol: -1, KeepLast: true},
	}
	shares := []int64{0, 4 << 10, 1 << 20}
	for i, spec := range specs {
		for seed := int64(1); seed <= 3; seed++ {
			rng := rand.New(rand.NewSource(seed))
			stream := randChanges(rng, 400, false)
			ops := make([]*Dedup, len(shares))
			for k, share := range shares {
				d, err := NewDedup(spec)
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
				if err := d.Open(ctx); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { d.Close() })
				ops[k] = d
			}
			for lo, n := 0, 0; lo < len(stream); lo, n = lo+7, n+1 {
				var outs [][]string
				for _, d := range ops {
					out := &lines{}
					b := changeBatch(stream[lo:min(lo+7, len(stream))])
					err := d.Process(b, out)
					b.Release()
					if err != nil {
						t.Fatal(err)
					}
					outs = append(outs, out.got)
				}
				for k := 1; k < len(outs); k++ {
					if !slices.Equal(outs[k], outs[0]) {
						t.Fatalf("spec %d seed %d rows %d: cache of %d bytes emitted\n  %v\nwithout\n  %v", i, seed, lo, shares[k], outs[k], outs[0])
					}
				}
				if n%5 == 4 {
					want := dedupStored(t, ops[0], int64(n))
					for k := 1; k < len(ops); k++ {
						if got := dedupStored(t, ops[k], int64(n)); !slices.Equal(got, want) {
							t.Fatalf("spec %d seed %d rows %d: cache of %d bytes stored\n  %v\nwithout\n  %v", i, seed, lo, shares[k], got, want)
						}
					}
				}
			}
		}
	}
}

// dedupStored snapshots d and returns its store's entries.
func dedupStored(t *testing.T, d *Dedup, id int64) []string {
	t.Helper()
	if _, err := d.Snapshot(id); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := d.state.store.Scan(d.spec.UID, 0, 0xffff, "", func(kg uint16, name string, key, value []byte) error {
		got = append(got, fmt.Sprintf("%d/%s/%x=%x", kg, name, key, value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
