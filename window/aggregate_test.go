package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

var tkSchema = types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}

// row is (ts, key, value); a key of -1 is NULL.
type row struct{ ts, k, v int64 }

func batchOf(rows []row) arrow.RecordBatch {
	ts := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	k := array.NewInt64Builder(memory.DefaultAllocator)
	v := array.NewInt64Builder(memory.DefaultAllocator)
	for _, r := range rows {
		ts.Append(arrow.Timestamp(r.ts))
		if r.k < 0 {
			k.AppendNull()
		} else {
			k.Append(r.k)
		}
		v.Append(r.v)
	}
	cols := []arrow.Array{ts.NewArray(), k.NewArray(), v.NewArray()}
	return array.NewRecordBatch(tkSchema.Arrow(), cols, int64(len(rows)))
}

func countSum(t *testing.T) *Aggregate {
	t.Helper()
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	a, err := New(Spec{Window: TumbleOf(10, 0), In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func fireAll(t *testing.T, a *Aggregate) []string {
	t.Helper()
	var out []string
	err := a.Advance(types.MaxWatermark, func(b arrow.RecordBatch) error {
		defer b.Release()
		for i := 0; i < int(b.NumRows()); i++ {
			var cells []string
			for _, c := range b.Columns() {
				cells = append(cells, c.ValueStr(i))
			}
			out = append(out, strings.Join(cells, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// reference computes the expected output: per window, per key in key
// order (NULL first), COUNT(*) and SUM(v).
func reference(rows []row) []string {
	type gk struct{ w, k int64 }
	cnt, sum := map[gk]int64{}, map[gk]int64{}
	for _, r := range rows {
		g := gk{r.ts - r.ts%10, r.k}
		cnt[g]++
		sum[g] += r.v
	}
	keys := make([]gk, 0, len(cnt))
	for g := range cnt {
		keys = append(keys, g)
	}
	slices.SortFunc(keys, func(a, b gk) int {
		if a.w != b.w {
			return int(a.w - b.w)
		}
		return int(a.k - b.k)
	})
	var out []string
	ts := func(ms int64) string {
		return arrow.Timestamp(ms).ToTime(arrow.Millisecond).Format("2006-01-02T15:04:05.999999999")
	}
	for _, g := range keys {
		k := fmt.Sprint(g.k)
		if g.k < 0 {
			k = "(null)"
		}
		out = append(out, fmt.Sprintf("%s %s %s %d %d", k, ts(g.w), ts(g.w+10), cnt[g], sum[g]))
	}
	return out
}

// randomRows makes skewed keys (runs of one hot key, NULLs) over a few
// windows, in batches that sometimes span windows.
func randomRows(r *rand.Rand, n int) []row {
	var rows []row
	for i := range n {
		k := int64(r.IntN(50))
		switch r.IntN(4) {
		case 0, 1:
			k = 7 // hot
		case 2:
			if r.IntN(10) == 0 {
				k = -1
			}
		}
		rows = append(rows, row{ts: int64(i / 37), k: k, v: int64(r.IntN(100))})
	}
	return rows
}

// TestAggregateBigintKeys checks the BIGINT-key index and the repeated-key
// shortcuts against a reference: NULL keys, hot keys, batches within one
// window and across several.
func TestAggregateBigintKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := randomRows(r, 3000)
	a := countSum(t)
	for lo := 0; lo < len(rows); {
		hi := min(lo+1+r.IntN(200), len(rows))
		b := batchOf(rows[lo:hi])
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		lo = hi
	}
	got, want := fireAll(t, a), reference(rows)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d\nfirst got %q\nfirst want %q", len(got), len(want), got[:3], want[:3])
	}
}

// TestAggregateRestoredBigintKeys checks that groups restored from a
// checkpoint are found by value afterwards: rows added after a restore
// join the restored groups rather than making new ones.
func TestAggregateRestoredBigintKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := randomRows(r, 2000)
	store, err := state.Open(vfs.NewMem(), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	a := countSum(t)
	a.Track()
	a.UseStore(func() (*state.Store, error) { return store, nil }, "w", 128, 0)
	first := batchOf(rows[:1000])
	if _, err := a.Add(first); err != nil {
		t.Fatal(err)
	}
	first.Release()
	sb := store.NewBatch()
	a.Flush(sb)
	if err := sb.Commit(); err != nil {
		t.Fatal(err)
	}
	restored := countSum(t)
	err = store.Scan("w", 0, 127, "", func(kg uint16, name string, key, value []byte) error {
		return restored.Load(kg, name, key, value)
	})
	if err == nil {
		err = restored.Restored()
	}
	if err != nil {
		t.Fatal(err)
	}
	second := batchOf(rows[1000:])
	if _, err := restored.Add(second); err != nil {
		t.Fatal(err)
	}
	second.Release()
	got, want := fireAll(t, restored), reference(rows)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
}

// TestAggregateAddAt checks processing-time assignment: a whole batch joins
// the window of the given time, whatever its time column says.
func TestAggregateAddAt(t *testing.T) {
	a := countSum(t)
	b := batchOf([]row{{ts: 1000, k: 1, v: 2}, {ts: -5, k: 1, v: 3}, {ts: 7, k: -1, v: 1}})
	defer b.Release()
	if n, err := a.AddAt(b, 23); n != 0 || err != nil {
		t.Fatal(n, err)
	}
	if err := a.Advance(29, func(arrow.RecordBatch) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n, _ := a.AddAt(b, 25); n != 3 {
		t.Errorf("rows added to a fired window: %d dropped, want 3", n)
	}
}

// TestAggregateNoKeysExtremes checks a window without keys (one group per
// window) and the BIGINT MIN and MAX loops against a reference.
func TestAggregateNoKeysExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rows := randomRows(r, 2000)
	aggs := []agg.Call{
		{Kind: agg.Max, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Min, Arg: 1, Filter: -1, Out: types.TBigInt}, // NULLs: the generic loop
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
	}
	a, err := New(Spec{Window: TumbleOf(10, 0), In: tkSchema, TimeCol: 0, Aggs: aggs}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < len(rows); {
		hi := min(lo+1+r.IntN(300), len(rows))
		b := batchOf(rows[lo:hi])
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		b.Release()
		lo = hi
	}
	type w struct{ hi, lo, n int64 }
	ref := map[int64]*w{}
	var starts []int64
	for _, row := range rows {
		s := row.ts - row.ts%10
		x := ref[s]
		if x == nil {
			x = &w{hi: -1, lo: 1 << 62}
			ref[s] = x
			starts = append(starts, s)
		}
		x.hi, x.n = max(x.hi, row.v), x.n+1
		if row.k >= 0 {
			x.lo = min(x.lo, row.k)
		}
	}
	var want []string
	ts := func(ms int64) string {
		return arrow.Timestamp(ms).ToTime(arrow.Millisecond).Format("2006-01-02T15:04:05.999999999")
	}
	for _, s := range starts {
		x := ref[s]
		want = append(want, fmt.Sprintf("%s %s %d %d %d", ts(s), ts(s+10), x.hi, x.lo, x.n))
	}
	if got := fireAll(t, a); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d rows, want %d\nfirst got %q\nfirst want %q", len(got), len(want), got[0], want[0])
	}
}
