package window

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// TestIntKeyedWindows runs tumbling, hopping and cumulating windows keyed
// by an integer-like column (IntTable panes) of BIGINT, INT, DATE and
// TIMESTAMP type, with NULL keys and negative ones, fed whole and as
// selections with hashes (AddRows), and in a budget so small that slices
// spill and windows cannot be merged in memory, against a plain Go
// reference of each window's per-key COUNT(*) and SUM(v), in the order
// they must fire: windows by end, keys ascending, NULL first.
func TestIntKeyedWindows(t *testing.T) {
	windows := []Assigner{TumbleOf(10, 0), {Kind: Hop, Size: 10, Slide: 2}, {Kind: Cumulate, Size: 12, Slide: 3}}
	keyTypes := []types.Type{types.TBigInt, types.TInt, types.TDate, types.TTimestamp}
	r := rand.New(rand.NewPCG(11, 12))
	for _, w := range windows {
		for _, kt := range keyTypes {
			for _, c := range []struct {
				sel    bool
				budget int64
			}{{false, 0}, {true, 0}, {true, 12 << 10}} {
				t.Run(fmt.Sprintf("%v/%v/sel=%v/budget=%d", w.Kind, kt, c.sel, c.budget), func(t *testing.T) {
					rows := make([]row, 3000)
					for i := range rows {
						k := int64(r.IntN(300)) - 100
						if r.IntN(30) == 0 {
							k = nullK
						}
						rows[i] = row{ts: int64(i / 11), k: k, v: int64(r.IntN(100))}
					}
					got := runIntKeyed(t, w, kt, rows, c.sel, c.budget)
					want := intReference(w, kt, rows)
					if !slices.Equal(got, want) {
						n := 0
						for n < min(len(got), len(want)) && got[n] == want[n] {
							n++
						}
						t.Fatalf("%d rows, want %d; first difference at %d: %q, want %q", len(got), len(want), n,
							got[n:min(n+3, len(got))], want[n:min(n+3, len(want))])
					}
				})
			}
		}
	}
}

func runIntKeyed(t *testing.T, w Assigner, kt types.Type, rows []row, sel bool, budget int64) []string {
	t.Helper()
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: kt}, {Name: "v", Type: types.TBigInt}}
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	a, err := New(Spec{Window: w, In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 7}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if budget > 0 {
		m, err := memseg.NewManager(budget, 1<<10)
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
		defer func() {
			if a.Spills() == 0 {
				t.Errorf("nothing spilled in %d bytes", budget)
			}
		}()
	}
	if !a.intKeys {
		t.Fatalf("%v keys: no IntTable", kt)
	}
	var out []string
	collect := rowsOut(&out)
	for lo := 0; lo < len(rows); lo += 97 {
		part := rows[lo:min(lo+97, len(rows))]
		b := intKeyBatch(schema, part)
		if sel {
			// Every other row, with its hash, as a hash exchange's share.
			var rs []int32
			var hs []uint64
			var enc memseg.KeyEncoder
			if err := enc.Reset(b, []int{1}); err != nil {
				t.Fatal(err)
			}
			for i := range part {
				if i%2 == lo%2 {
					rs = append(rs, int32(i))
					hs = append(hs, memseg.Hash(enc.Append(nil, i)))
				}
			}
			if _, err := a.AddRows(b, rs, hs); err != nil {
				t.Fatal(err)
			}
			rs = rs[:0]
			for i := range part {
				if i%2 != lo%2 {
					rs = append(rs, int32(i))
				}
			}
			if _, err := a.AddRows(b, rs, nil); err != nil {
				t.Fatal(err)
			}
		} else if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		if err := a.Advance(part[len(part)-1].ts-20, collect); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Advance(types.MaxWatermark, collect); err != nil {
		t.Fatal(err)
	}
	return out
}

func intKeyBatch(schema types.Schema, rows []row) arrow.RecordBatch {
	al := memory.DefaultAllocator
	ts := array.NewTimestampBuilder(al, &arrow.TimestampType{Unit: arrow.Millisecond})
	k := array.NewBuilder(al, schema[1].Type.Arrow())
	v := array.NewInt64Builder(al)
	for _, r := range rows {
		ts.Append(arrow.Timestamp(r.ts))
		if r.k == nullK {
			k.AppendNull()
		} else {
			appendIntKey(k, r.k)
		}
		v.Append(r.v)
	}
	cols := []arrow.Array{ts.NewArray(), k.NewArray(), v.NewArray()}
	return array.NewRecordBatch(schema.Arrow(), cols, int64(len(rows)))
}

// nullK stands for a NULL key in intKeyBatch: less than every key.
const nullK = -1 << 40

func appendIntKey(k array.Builder, v int64) {
	switch b := k.(type) {
	case *array.Int64Builder:
		b.Append(v)
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v))
	}
}

// intReference is the expected output of runIntKeyed: each window of
// each row, per key, COUNT(*) and SUM(v), keys rendered as Arrow renders
// a value of type kt.
func intReference(w Assigner, kt types.Type, rows []row) []string {
	type gk struct{ s, e, k int64 }
	cnt, sum := map[gk]int64{}, map[gk]int64{}
	for _, r := range rows {
		w.Windows(r.ts, func(s, e int64) {
			g := gk{s, e, r.k}
			cnt[g]++
			sum[g] += r.v
		})
	}
	keys := make([]gk, 0, len(cnt))
	for g := range cnt {
		keys = append(keys, g)
	}
	slices.SortFunc(keys, func(a, b gk) int {
		switch {
		case a.e != b.e:
			return int(a.e - b.e)
		case a.s != b.s:
			return int(a.s - b.s)
		case a.k == nullK: // NULL first, even before math.MinInt64
			return -1
		case b.k == nullK:
			return 1
		case a.k < b.k:
			return -1
		case a.k > b.k:
			return 1
		}
		return 0
	})
	ts := func(ms int64) string {
		return arrow.Timestamp(ms).ToTime(arrow.Millisecond).Format("2006-01-02T15:04:05.999999999")
	}
	var out []string
	for _, g := range keys {
		b := intKeyBatch(types.Schema{{Type: types.TTimestamp}, {Type: kt}, {Type: types.TBigInt}}, []row{{k: g.k}})
		k := b.Column(1).ValueStr(0)
		b.Release()
		out = append(out, fmt.Sprintf("%s %s %s %d %d", k, ts(g.s), ts(g.e), cnt[g], sum[g]))
	}
	return out
}

// TestSortPairs checks the radix sort of integer keys against a
// comparison sort, at sizes on both sides of the switch between them and
// with keys differing in few bytes or in all.
func TestSortPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var tmp []intPair
	for _, n := range []int{0, 1, 255, 256, 5000} {
		for _, mask := range []uint64{0xff, 0xffff00, ^uint64(0)} {
			ps := make([]intPair, n)
			for i := range ps {
				ps[i] = intPair{u: r.Uint64()&mask | 1<<63, g: int32(i)}
			}
			want := slices.Clone(ps)
			slices.SortStableFunc(want, func(x, y intPair) int { return cmp.Compare(x.u, y.u) })
			tmp = sortPairs(ps, tmp)
			for i := range ps {
				if ps[i].u != want[i].u {
					t.Fatalf("n %d, mask %#x: key %d is %#x, want %#x", n, mask, i, ps[i].u, want[i].u)
				}
			}
		}
	}
}

// TestSlidesWithoutRoom fires hopping windows whose slices are all in
// memory when the budget has no room left for merging them: the windows
// fire through the store instead, with the same results.
func TestSlidesWithoutRoom(t *testing.T) {
	w := Assigner{Kind: Hop, Size: 10, Slide: 2}
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	a, err := New(Spec{Window: w, In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	m, err := memseg.NewManager(1<<20, 1<<10)
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
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([]row, 2000)
	for i := range rows {
		rows[i] = row{ts: int64(i / 100), k: int64(r.IntN(300)), v: int64(r.IntN(100))}
	}
	b := intKeyBatch(schema, rows)
	defer b.Release()
	if _, err := a.Add(b); err != nil {
		t.Fatal(err)
	}
	free := int(m.Budget() - m.Used())
	if err := m.Reserve(free); err != nil {
		t.Fatal(err)
	}
	var out []string
	err = a.Advance(types.MaxWatermark, rowsOut(&out))
	m.Unreserve(free)
	if err != nil {
		t.Fatal(err)
	}
	if a.Spills() == 0 {
		t.Errorf("the windows fired without spilling: the budget had room")
	}
	if want := intReference(w, types.TBigInt, rows); !slices.Equal(out, want) {
		t.Fatalf("%d rows, want %d", len(out), len(want))
	}
}

// TestRecordedKeyGroups checks that every group's key group, recorded
// when the group is made, is exec.KeyGroup's memseg.Hash(key) % maxPar of
// its normalized key: in memory after each batch, in the entries a Flush
// writes and a spill leaves in the store, and after a restore. Keys are
// one integer column (an IntTable; NULLs, and batches without NULLs that
// fill the table in bulk), a string, an integer and a string, none, and an
// integer beside a DISTINCT aggregate (a HashTable); rows come whole
// (Add) or as selections, half with the hashes a hash exchange computed
// (AddRows); in a budget that holds every group and in one that spills.
func TestRecordedKeyGroups(t *testing.T) {
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "s", Type: types.TString}, {Name: "v", Type: types.TBigInt}}
	count := agg.Call{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}
	distinct := agg.Call{Kind: agg.Count, Arg: 3, Filter: -1, Distinct: true, Out: types.TBigInt}
	specs := []struct {
		name string
		keys []int
		aggs []agg.Call
	}{
		{"int", []int{1}, []agg.Call{count}},
		{"string", []int{2}, []agg.Call{count}},
		{"int,string", []int{1, 2}, []agg.Call{count}},
		{"none", nil, []agg.Call{count}},
		{"int,distinct", []int{1}, []agg.Call{count, distinct}},
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, sp := range specs {
		for _, maxPar := range []int{128, 7} {
			for _, sel := range []bool{false, true} {
				for _, budget := range []int64{0, 24 << 10} {
					t.Run(fmt.Sprintf("%s/maxPar=%d/sel=%v/budget=%d", sp.name, maxPar, sel, budget), func(t *testing.T) {
						spec := Spec{Window: Assigner{Kind: Hop, Size: 20, Slide: 10}, In: schema, TimeCol: 0, Keys: sp.keys, Aggs: sp.aggs}
						a, st := keyGroupAggregate(t, spec, maxPar, budget)
						for i := range 40 {
							// Every other batch without NULL keys: an
							// IntTable's groups are then made in bulk.
							b := keyGroupBatch(schema, r, i, i%2 == 0)
							addKeyGroupBatch(t, a, b, sel)
							b.Release()
							checkKeyGroups(t, a, maxPar)
						}
						if budget > 0 && len(sp.keys) > 0 && a.Spills() == 0 {
							t.Fatalf("nothing spilled in %d bytes", budget)
						}
						sorted := st.NewSorted()
						a.Flush(sorted)
						if err := sorted.Commit(); err != nil {
							t.Fatal(err)
						}
						a.Flushed()
						restored, rst := keyGroupAggregate(t, spec, maxPar, budget)
						err := st.Scan("w", 0, uint16(maxPar-1), "", func(kg uint16, name string, key, value []byte) error {
							checkStoredKeyGroup(t, a, maxPar, kg, name, key, value)
							return restored.Load(kg, name, key, value)
						})
						if err == nil {
							err = restored.Restored()
						}
						if err != nil {
							t.Fatal(err)
						}
						checkKeyGroups(t, restored, maxPar)
						// The restored groups' key groups serve its Flush.
						sorted = rst.NewSorted()
						restored.Flush(sorted)
						if err := sorted.Commit(); err != nil {
							t.Fatal(err)
						}
						err = rst.Scan("w", 0, uint16(maxPar-1), "", func(kg uint16, name string, key, value []byte) error {
							checkStoredKeyGroup(t, restored, maxPar, kg, name, key, value)
							return nil
						})
						if err != nil {
							t.Fatal(err)
						}
						a.Release()
						restored.Release()
						st.Close()
						rst.Close()
					})
				}
			}
		}
	}
}

// keyGroupAggregate makes an aggregate of spec with maxPar key groups
// that checkpoints to the store it returns, in budget bytes if not 0.
func keyGroupAggregate(t *testing.T, spec Spec, maxPar int, budget int64) (*Aggregate, *state.Store) {
	t.Helper()
	st, err := state.Open(vfs.NewMem(), "st")
	if err != nil {
		t.Fatal(err)
	}
	return trackedAggregate(t, spec, budget, st, maxPar, 0), st
}

// keyGroupBatch makes batch i of TestRecordedKeyGroups: 200 rows over two
// slices, keys from a range that moves on, NULLs only if nulls.
func keyGroupBatch(schema types.Schema, r *rand.Rand, i int, nulls bool) arrow.RecordBatch {
	al := memory.DefaultAllocator
	ts := array.NewTimestampBuilder(al, &arrow.TimestampType{Unit: arrow.Millisecond})
	k := array.NewInt64Builder(al)
	s := array.NewStringBuilder(al)
	v := array.NewInt64Builder(al)
	const n = 200
	for j := range n {
		ts.Append(arrow.Timestamp(i + j%2*10))
		if nulls && r.IntN(20) == 0 {
			k.AppendNull()
		} else {
			k.Append(int64(i*50 + r.IntN(300) - 100))
		}
		if nulls && r.IntN(20) == 0 {
			s.AppendNull()
		} else {
			s.Append(fmt.Sprint("s", i*20+r.IntN(100)))
		}
		v.Append(int64(r.IntN(10)))
	}
	cols := []arrow.Array{ts.NewArray(), k.NewArray(), s.NewArray(), v.NewArray()}
	return array.NewRecordBatch(schema.Arrow(), cols, n)
}

// addKeyGroupBatch adds b to a whole, or with sel as two selections, the
// first with the hashes of its rows' keys.
func addKeyGroupBatch(t *testing.T, a *Aggregate, b arrow.RecordBatch, sel bool) {
	t.Helper()
	if !sel {
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		return
	}
	var enc memseg.KeyEncoder
	if err := enc.Reset(b, a.spec.Keys); err != nil {
		t.Fatal(err)
	}
	var hashed, plain []int32
	var hs []uint64
	for i := range int(b.NumRows()) {
		if i%3 == 0 {
			plain = append(plain, int32(i))
			continue
		}
		hashed = append(hashed, int32(i))
		hs = append(hs, memseg.Hash(enc.Append(nil, i)))
	}
	if _, err := a.AddRows(b, hashed, hs); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddRows(b, plain, nil); err != nil {
		t.Fatal(err)
	}
}

// keyGroupOf is exec.KeyGroup, which window cannot import.
func keyGroupOf(key []byte, maxPar int) uint16 { return uint16(memseg.Hash(key) % uint64(maxPar)) }

// checkKeyGroups fails t unless every group of a's windows has its key
// group recorded.
func checkKeyGroups(t *testing.T, a *Aggregate, maxPar int) {
	t.Helper()
	var buf []byte
	for s, p := range a.panes {
		if len(p.kgs) != p.len() {
			t.Fatalf("window %d: %d key groups recorded for %d groups", s, len(p.kgs), p.len())
		}
		for g := range int32(p.len()) {
			key := p.keyAt(g, &buf)
			if want := keyGroupOf(key, maxPar); p.kgs[g] != want {
				t.Fatalf("window %d: group %d of key %x recorded in key group %d, want %d", s, g, key, p.kgs[g], want)
			}
		}
	}
}

// checkStoredKeyGroup fails t unless the groups of an entry that a's
// Flush or spill wrote into key group kg are of that key group.
func checkStoredKeyGroup(t *testing.T, a *Aggregate, maxPar int, kg uint16, name string, key, value []byte) {
	t.Helper()
	var keys [][]byte
	switch name {
	case paneState:
		d, err := a.decode(value)
		if err != nil {
			t.Fatal(err)
		}
		keys = d.keys
	case spillState:
		n, err := a.keys.len(key[8:])
		if err != nil {
			t.Fatal(err)
		}
		keys = [][]byte{key[8 : 8+n]}
	}
	for _, k := range keys {
		if want := keyGroupOf(k, maxPar); kg != want {
			t.Fatalf("%s entry of key %x in key group %d, want %d", name, k, kg, want)
		}
	}
}
