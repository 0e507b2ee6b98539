package window

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// TestSparesCoverABurst fires a dozen windows at once, as a window
// subtask fed by source subtasks reading byte ranges minutes apart does
// when the slowest moves on: the next dozen windows reuse the fired ones'
// memory (no table made afresh), and with a small budget the spares keep
// no more than their share of it.
func TestSparesCoverABurst(t *testing.T) {
	const windows, keys = 12, 500
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	// fill adds keys rows to each of windows windows of size 100 from
	// window first on, one batch per window.
	fill := func(t *testing.T, a *Aggregate, first int) {
		t.Helper()
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
	for _, c := range []struct {
		name   string
		budget int64
	}{{"roomy", 64 << 20}, {"small", 1 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			a, err := New(Spec{Window: TumbleOf(100, 0), In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 1024}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Release()
			m, err := memseg.NewManager(c.budget, 4<<10)
			if err != nil {
				t.Fatal(err)
			}
			a.UseMemory(m)
			fill(t, a, 0)
			var out []string
			if err := a.Advance(windows*100-1, rowsOut(&out)); err != nil {
				t.Fatal(err)
			}
			if len(out) != windows*keys {
				t.Fatalf("fired %d rows, want %d", len(out), windows*keys)
			}
			if share := c.budget / spareShare; int64(a.spareBytes) > share {
				t.Fatalf("spares hold %d bytes, more than their share %d", a.spareBytes, share)
			}
			kept := len(a.spares)
			if c.name == "roomy" && kept != windows {
				t.Fatalf("%d spares kept after %d windows fired at once, want %d", kept, windows, windows)
			}
			if c.name == "small" && kept >= windows {
				t.Fatalf("%d spares kept in a budget of %d", kept, c.budget)
			}
			fill(t, a, windows)
			if len(a.spares) != 0 || a.spareBytes != 0 {
				t.Fatalf("%d spares (%d bytes) left after %d new windows, want none", len(a.spares), a.spareBytes, windows)
			}
		})
	}
}
