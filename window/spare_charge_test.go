package window

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// TestSparesCharged: the spares' memory stays charged to the budget while
// they are kept (so that the windows still open spill when the budget is
// full with the spares counted), the next windows take it over, and
// Release gives it all back.
func TestSparesCharged(t *testing.T) {
	const windows, keys = 12, 500
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}
	aggs := []agg.Call{{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}}
	a, err := New(Spec{Window: TumbleOf(100, 0), In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memseg.NewManager(64<<20, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	a.UseMemory(m)
	fill := func(first int) {
		for w := first; w < first+windows; w++ {
			rows := make([]row, keys)
			for k := range rows {
				rows[k] = row{ts: int64(w*100 + k%100), k: int64(k), v: 1}
			}
			b := intKeyBatch(schema, rows)
			_, err := a.Add(b)
			b.Release()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	fill(0)
	open := m.Used()
	var out []string
	if err := a.Advance(windows*100-1, rowsOut(&out)); err != nil {
		t.Fatal(err)
	}
	if len(a.spares) != windows {
		t.Fatalf("%d spares, want %d", len(a.spares), windows)
	}
	if used := m.Used(); used < int64(a.spareBytes) || used > open {
		t.Fatalf("%d bytes used with %d in spares (%d before the windows fired)", used, a.spareBytes, open)
	}
	fill(windows)
	if used := m.Used(); used > open {
		t.Fatalf("%d bytes used by the next %d windows, more than the %d of the fired ones", used, windows, open)
	}
	a.Release()
	if used := m.Used(); used != 0 {
		t.Fatalf("%d bytes used after Release", used)
	}
}
