package window

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

// TestIntKeyedCheckpointRestoreModel is TestSpillCheckpointRestoreModel for
// panes with IntTables: mSpec's DISTINCT aggregates give every pane a
// HashTable, so there the groups IntTable.Fill makes in bulk, the NULL
// group and the spares of fired slices never meet checkpoints, restores
// and rescaling, which file each group under the key group recorded when
// it was made.
func TestIntKeyedCheckpointRestoreModel(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(7, 7)), 6000, 300)
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Max, Arg: 3, Filter: -1, Out: types.TString},
	}
	windows := []Assigner{TumbleOf(200, 0), {Kind: Hop, Size: 200, Slide: 50}}
	cases := []struct {
		name    string
		ps      []int
		budgets []int64
	}{
		{"p1", []int{1, 1, 1}, []int64{1 << 20, 1 << 20, 1 << 20}},
		{"rescale", []int{3, 2, 1, 4, 2}, []int64{16 << 10, 24 << 10, 1 << 20, 12 << 10, 16 << 10}},
	}
	for _, w := range windows {
		spec := Spec{Window: w, In: mSchema, TimeCol: 0, Keys: []int{1}, BatchSize: 64, Aggs: aggs}
		want := mReference(t, spec, rows)
		for _, c := range cases {
			for seed := range uint64(2) {
				t.Run(fmt.Sprintf("%v/%s/%d", w.Kind, c.name, seed), func(t *testing.T) {
					got, _, _ := runModel(t, rand.New(rand.NewPCG(seed, 98)), spec, rows, c.ps, c.budgets)
					diffLines(t, got, want)
				})
			}
		}
	}
}

// TestKeyGroupsAcrossFirings checks the recorded key groups (as
// TestRecordedKeyGroups does) while windows fire between batches: fired
// slices' memory comes back as spares for new ones, and each Flush
// writes every changed group into its key group.
func TestKeyGroupsAcrossFirings(t *testing.T) {
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "s", Type: types.TString}, {Name: "v", Type: types.TBigInt}}
	count := agg.Call{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}
	for _, keys := range [][]int{{1}, {2}} {
		for _, budget := range []int64{0, 24 << 10} {
			t.Run(fmt.Sprintf("keys%v/budget=%d", keys, budget), func(t *testing.T) {
				r := rand.New(rand.NewPCG(31, 32))
				spec := Spec{Window: Assigner{Kind: Hop, Size: 4, Slide: 2}, In: schema, TimeCol: 0, Keys: keys, Aggs: []agg.Call{count}}
				a, st := keyGroupAggregate(t, spec, 7, budget)
				defer st.Close()
				defer a.Release()
				reused := 0
				for i := range 60 {
					spares := len(a.spares)
					b := keyGroupBatch(schema, r, i, i%2 == 0)
					addKeyGroupBatch(t, a, b, i%3 == 0)
					b.Release()
					if len(a.spares) < spares {
						reused++
					}
					checkKeyGroups(t, a, 7)
					if err := a.Advance(int64(i)-2, func(b arrow.RecordBatch) error { b.Release(); return nil }); err != nil {
						t.Fatal(err)
					}
					if i%5 == 0 {
						sorted := st.NewSorted()
						a.Flush(sorted)
						if err := sorted.Commit(); err != nil {
							t.Fatal(err)
						}
						a.Flushed()
						for s, p := range a.panes {
							if p.joined != len(p.kgs) {
								t.Fatalf("window %d: %d of %d groups joined", s, p.joined, len(p.kgs))
							}
						}
					}
				}
				if keys[0] == 1 && budget == 0 && reused == 0 {
					t.Fatal("no spare reused")
				}
				err := st.Scan("w", 0, 6, "", func(kg uint16, name string, key, value []byte) error {
					if name != progressState {
						checkStoredKeyGroup(t, a, 7, kg, name, key, value)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
