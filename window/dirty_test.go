package window

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// TestDirtyModel checks that after every Flush each open pane's dirtyList
// is exactly the groups folded since the last Flushed (a model kept by key),
// in group order, without duplicates, across failed checkpoints (Flush
// without Flushed), windows firing and spares reused (IntTable keys),
// HashTable keys (DISTINCT), tumbling and hopping windows, with several
// hundred groups per pane so that dirty has several words.
func TestDirtyModel(t *testing.T) {
	countStar := agg.Call{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}
	distinct := agg.Call{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt}
	cases := []struct {
		name  string
		w     Assigner
		slice int64
		aggs  []agg.Call
	}{
		{"ints/tumble", TumbleOf(1000, 0), 1000, []agg.Call{countStar}},
		{"ints/hop", Assigner{Kind: Hop, Size: 2000, Slide: 500}, 500, []agg.Call{countStar}},
		{"hash/tumble", TumbleOf(1000, 0), 1000, []agg.Call{countStar, distinct}},
		{"hash/hop", Assigner{Kind: Hop, Size: 2000, Slide: 500}, 500, []agg.Call{countStar, distinct}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := New(Spec{Window: c.w, In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: c.aggs}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			a.Track()
			a.UseStore(func() (*state.Store, error) { return nil, nil }, "w", 64, 0)
			rng := rand.New(rand.NewPCG(1, 2))
			model := map[int64]map[string]bool{} // slice start -> normalized keys changed
			base := int64(10_000)
			var w discard
			failed, reused := 0, 0
			for step := range 400 {
				switch r := rng.IntN(10); {
				case r < 6:
					rows := make([]row, 1+rng.IntN(300))
					for i := range rows {
						k := int64(rng.IntN(400))
						if rng.IntN(50) == 0 {
							k = -1
						}
						rows[i] = row{ts: base + rng.Int64N(2500), k: k, v: int64(rng.IntN(5))}
						s := align(rows[i].ts, c.slice, 0)
						if model[s] == nil {
							model[s] = map[string]bool{}
						}
						var key []byte
						if k < 0 {
							key = memseg.AppendNull(nil, memseg.Order{})
						} else {
							key = memseg.AppendInt64(nil, k, memseg.Order{})
						}
						model[s][string(key)] = true
					}
					b := batchOf(rows)
					if d, err := a.Add(b); err != nil || d != 0 {
						t.Fatalf("step %d: Add: %d dropped, %v", step, d, err)
					}
					b.Release()
				case r < 9:
					a.Flush(&w)
					var buf []byte
					for s, p := range a.panes {
						if !slices.IsSorted(p.dirtyList) || len(slices.Compact(slices.Clone(p.dirtyList))) != len(p.dirtyList) {
							t.Fatalf("step %d window %d: dirtyList %v not strictly in group order", step, s, p.dirtyList)
						}
						got := map[string]bool{}
						for _, g := range p.dirtyList {
							if int(g) >= p.len() {
								t.Fatalf("step %d window %d: group %d listed, pane has %d", step, s, g, p.len())
							}
							got[string(p.keyAt(g, &buf))] = true
						}
						want := model[s]
						if len(got) != len(want) {
							t.Fatalf("step %d window %d: %d groups listed, %d changed", step, s, len(got), len(want))
						}
						for k := range want {
							if !got[k] {
								t.Fatalf("step %d window %d: changed group %x not listed", step, s, k)
							}
						}
					}
					for s := range model {
						if a.panes[s] == nil && len(model[s]) > 0 {
							t.Fatalf("step %d: window %d changed, not open", step, s)
						}
					}
					if rng.IntN(3) == 0 {
						failed++
						continue // a failed checkpoint: no Flushed
					}
					a.Flushed()
					clear(model)
				default:
					base += 1000
					spares := len(a.spares)
					if err := a.Advance(base-1, func(arrow.RecordBatch) error { return nil }); err != nil {
						t.Fatal(err)
					}
					if len(a.spares) > spares {
						reused++
					}
					for s := range model {
						if a.panes[s] == nil {
							delete(model, s)
						}
					}
				}
			}
			t.Logf("%d failed checkpoints, %d advances that kept spares", failed, reused)
		})
	}
}

// TestListDirtyWords checks listDirty at the edges of dirty's 64-bit
// words, and that it replaces a stale list.
func TestListDirtyWords(t *testing.T) {
	p := &pane{dirty: make([]uint64, 4)}
	want := []int32{0, 1, 62, 63, 64, 65, 127, 128, 191, 192, 255}
	for _, g := range want {
		p.dirty[g>>6] |= 1 << (g & 63)
	}
	p.dirtyList = []int32{7, 7, 7} // a stale list from a failed Flush is replaced
	p.listDirty()
	if !slices.Equal(p.dirtyList, want) {
		t.Fatalf("listDirty %v, want %v", p.dirtyList, want)
	}
}
