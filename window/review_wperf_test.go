package window

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// Review tests of the integer-keyed hot path (IntTable panes, the
// slider, spare panes) with the accumulators and keys the first tests
// left out.

// mSpecInts groups by k over window w with no DISTINCT aggregate, so its
// panes have IntTables: every non-DISTINCT accumulator kind, with heap
// values (string MIN and MAX) and FILTER clauses.
func mSpecInts(w Assigner) Spec {
	return Spec{Window: w, In: mSchema, TimeCol: 0, Keys: []int{1}, BatchSize: 64, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Max, Arg: 3, Filter: -1, Out: types.TString},
		{Kind: agg.Min, Arg: 3, Filter: 4, Out: types.TString},
		{Kind: agg.Avg, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Count, Arg: 2, Filter: 4, Out: types.TBigInt},
		{Kind: agg.Max, Arg: 2, Filter: 4, Out: types.TBigInt},
	}}
}

// TestIntKeysSpillCheckpointRestore is TestSpillCheckpointRestoreModel
// for IntTable panes (mSpec's DISTINCT aggregates keep HashTables) in
// tumbling, hopping and cumulating windows: spills, checkpoints, crashes
// and restores at other parallelisms commit what an aggregate that never
// spills fires.
func TestIntKeysSpillCheckpointRestore(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(7, 7)), scaled(4000, 1200), 300)
	windows := []Assigner{TumbleOf(200, 0), {Kind: Hop, Size: 200, Slide: 40}, {Kind: Cumulate, Size: 200, Slide: 50}}
	cases := []struct {
		name    string
		ps      []int
		budgets []int64
	}{
		{"p1", []int{1, 1, 1}, []int64{32 << 10, 32 << 10, 32 << 10}},
		{"rescale", []int{3, 2, 1, 4}, []int64{16 << 10, 24 << 10, 32 << 10, 12 << 10}},
		{"shrink", []int{1, 2, 1}, []int64{1 << 20, 12 << 10, 1 << 20}},
		// Room for spare panes (a sixteenth of the budget each), reused
		// by later slices with their dirty flags and accumulators reset.
		{"roomy", []int{2, 3, 1}, []int64{1 << 20, 1 << 20, 1 << 20}},
	}
	for _, w := range windows {
		spec := mSpecInts(w)
		want := mReference(t, spec, rows)
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", w.Kind, c.name), func(t *testing.T) {
				got, _, _ := runModel(t, rand.New(rand.NewPCG(3, 99)), spec, rows, c.ps, c.budgets)
				diffLines(t, got, want)
			})
		}
	}
}

// TestIntKeyedExtremes is TestIntKeyedWindows with keys at the ends of
// each type's range and around zero (the u ^ 1<<63 mapping puts 0 at
// 1<<63 and math.MinInt64 at 0), rows fed one at a time as well.
func TestIntKeyedExtremes(t *testing.T) {
	windows := []Assigner{TumbleOf(10, 0), {Kind: Hop, Size: 10, Slide: 2}, {Kind: Cumulate, Size: 12, Slide: 3}}
	r := rand.New(rand.NewPCG(21, 22))
	for _, w := range windows {
		for _, kt := range []types.Type{types.TBigInt, types.TInt, types.TDate, types.TTimestamp} {
			lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
			if kt == types.TInt || kt == types.TDate {
				lo, hi = math.MinInt32, math.MaxInt32
			}
			keys := []int64{lo, lo + 1, -1, 0, 1, hi - 1, hi, nullK}
			if kt == types.TBigInt || kt == types.TTimestamp {
				keys = keys[:len(keys)-1] // nullK is a BIGINT key too
				keys = append(keys, nullK)
			}
			for _, c := range []struct {
				sel    bool
				budget int64
			}{{false, 0}, {true, 0}, {true, 12 << 10}} {
				t.Run(fmt.Sprintf("%v/%v/sel=%v/budget=%d", w.Kind, kt, c.sel, c.budget), func(t *testing.T) {
					rows := make([]row, scaled(2000, 500))
					for i := range rows {
						k := keys[r.IntN(len(keys))]
						if r.IntN(3) == 0 {
							k = int64(r.IntN(200)) - 100
						}
						rows[i] = row{ts: int64(i / 11), k: k, v: int64(r.IntN(100))}
					}
					got := runIntKeyed(t, w, kt, rows, c.sel, c.budget)
					want := intReference(w, kt, rows)
					diffLines(t, got, want)
				})
			}
		}
	}
}

// TestIntKeysSmallBatches feeds IntTable panes batches of one row and of
// a few (half of each as a selection with hashes, as a hash exchange
// shares a batch), emits batches of one row, in a budget with room and
// in one so small that slices spill: the output is the reference's, and
// every byte of the budget comes back at Release.
func TestIntKeysSmallBatches(t *testing.T) {
	rows := mRows(rand.New(rand.NewPCG(8, 8)), scaled(1500, 600), 60)
	windows := []Assigner{TumbleOf(100, 0), {Kind: Hop, Size: 100, Slide: 20}, {Kind: Cumulate, Size: 100, Slide: 25}}
	for _, w := range windows {
		spec := mSpecInts(w)
		want := mReference(t, spec, rows)
		spec.BatchSize = 1
		for _, n := range []int{1, 7} {
			for _, budget := range []int64{1 << 20, 12 << 10} {
				t.Run(fmt.Sprintf("%v/batch%d/budget%d", w.Kind, n, budget), func(t *testing.T) {
					m, err := memseg.NewManager(budget, 1<<10)
					if err != nil {
						t.Fatal(err)
					}
					a, err := New(spec, memory.DefaultAllocator)
					if err != nil {
						t.Fatal(err)
					}
					a.UseMemory(m)
					st, err := state.Open(vfs.NewMem(), "st")
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					a.UseStore(func() (*state.Store, error) { return st, nil }, "w", mKGs, 0)
					var got []string
					var enc memseg.KeyEncoder
					maxTs := int64(-1 << 62)
					for lo := 0; lo < len(rows); lo += n {
						part := rows[lo:min(lo+n, len(rows))]
						b := mBatch(part)
						if err := enc.Reset(b, spec.Keys); err != nil {
							t.Fatal(err)
						}
						var odd, even []int32
						var hs []uint64
						for i := range part {
							if i%2 == 0 {
								even = append(even, int32(i))
								hs = append(hs, memseg.Hash(enc.Append(nil, i)))
							} else {
								odd = append(odd, int32(i))
							}
							maxTs = max(maxTs, part[i].ts)
						}
						if _, err := a.AddRows(b, even, hs); err != nil {
							t.Fatal(err)
						}
						if len(odd) > 0 {
							if _, err := a.AddRows(b, odd, nil); err != nil {
								t.Fatal(err)
							}
						}
						b.Release()
						if err := a.Advance(maxTs-mDelay, rowsOut(&got)); err != nil {
							t.Fatal(err)
						}
					}
					if err := a.Advance(types.MaxWatermark, rowsOut(&got)); err != nil {
						t.Fatal(err)
					}
					if budget < 1<<20 && a.Spills() == 0 {
						t.Errorf("nothing spilled")
					}
					a.Release()
					if u := m.Used(); u != 0 {
						t.Errorf("%d bytes of the budget still used after Release", u)
					}
					slices.Sort(got)
					diffLines(t, got, want)
				})
			}
		}
	}
}

// TestIntKeysLateRows feeds IntTable panes rows out of order by more than
// the watermark lags, in windows with an offset and negative times, as
// selections with hashes (the batch sorted by slice, late rows dropped):
// the rows dropped are the ones whose first window had fired when they
// came, and the output is the reference's over the rest.
func TestIntKeysLateRows(t *testing.T) {
	windows := []Assigner{{Kind: Tumble, Size: 10, Slide: 10, Offset: 3}, {Kind: Hop, Size: 12, Slide: 4, Offset: -1}, {Kind: Cumulate, Size: 12, Slide: 3, Offset: 5}}
	r := rand.New(rand.NewPCG(31, 32))
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TInt}, {Name: "v", Type: types.TBigInt}}
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	for _, w := range windows {
		for _, n := range []int{1, 5, 60} {
			t.Run(fmt.Sprintf("%v/batch%d", w.Kind, n), func(t *testing.T) {
				a, err := New(Spec{Window: w, In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 3}, memory.DefaultAllocator)
				if err != nil {
					t.Fatal(err)
				}
				defer a.Release()
				rows := make([]row, scaled(1500, 500))
				for i := range rows {
					k := int64(r.IntN(40)) - 20
					if r.IntN(20) == 0 {
						k = nullK
					}
					rows[i] = row{ts: int64(i/5) - 100 - int64(r.IntN(25)), k: k, v: int64(r.IntN(100))}
				}
				var kept []row
				var dropped, wantDropped int64
				var got []string
				wm := int64(types.MinWatermark)
				var enc memseg.KeyEncoder
				for lo := 0; lo < len(rows); lo += n {
					part := rows[lo:min(lo+n, len(rows))]
					b := intKeyBatch(schema, part)
					if err := enc.Reset(b, []int{1}); err != nil {
						t.Fatal(err)
					}
					var sel []int32
					var hs []uint64
					for i, row := range part {
						if w.Fires(row.ts) <= wm {
							wantDropped++
						} else {
							kept = append(kept, row)
						}
						sel = append(sel, int32(i))
						hs = append(hs, memseg.Hash(enc.Append(nil, i)))
					}
					d, err := a.AddRows(b, sel, hs)
					if err != nil {
						t.Fatal(err)
					}
					dropped += d
					b.Release()
					wm = max(wm, part[len(part)-1].ts-10)
					if err := a.Advance(wm, rowsOut(&got)); err != nil {
						t.Fatal(err)
					}
				}
				if err := a.Advance(types.MaxWatermark, rowsOut(&got)); err != nil {
					t.Fatal(err)
				}
				if dropped != wantDropped || dropped == 0 {
					t.Errorf("%d rows dropped, want %d (> 0)", dropped, wantDropped)
				}
				diffLines(t, got, intReference(w, types.TInt, kept))
			})
		}
	}
}
