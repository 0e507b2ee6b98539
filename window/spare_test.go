package window

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// spareWindows and spareKeys are the burst of the spare tests: windows
// windows of size 100, keys keys each, fired at once.
const spareWindows, spareKeys = 12, 500

var spareSchema = types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}

// spareAggregate is a tumbling aggregate of aggs per k over spareSchema,
// in managed memory of budget bytes.
func spareAggregate(t *testing.T, aggs []agg.Call, budget int64) (*Aggregate, *memseg.Manager) {
	t.Helper()
	a, err := New(Spec{Window: TumbleOf(100, 0), In: spareSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memseg.NewManager(budget, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	a.UseMemory(m)
	return a, m
}

// fillSpares adds spareKeys rows to each of spareWindows windows from
// window first on, one batch per window.
func fillSpares(t *testing.T, a *Aggregate, first int) {
	t.Helper()
	for w := first; w < first+spareWindows; w++ {
		rows := make([]row, spareKeys)
		for k := range rows {
			rows[k] = row{ts: int64(w*100 + k%100), k: int64(k), v: 1}
		}
		b := intKeyBatch(spareSchema, rows)
		_, err := a.Add(b)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestSparesCoverABurst fires a dozen windows at once, as a window
// subtask fed by source subtasks reading byte ranges minutes apart does
// when the slowest moves on: the next dozen windows reuse the fired ones'
// memory (no table made afresh), and with a small budget the spares keep
// no more than their share of it.
func TestSparesCoverABurst(t *testing.T) {
	aggs := []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
	}
	for _, c := range []struct {
		name   string
		budget int64
	}{{"roomy", 64 << 20}, {"small", 1 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := spareAggregate(t, aggs, c.budget)
			defer a.Release()
			fillSpares(t, a, 0)
			var out []string
			if err := a.Advance(spareWindows*100-1, rowsOut(&out)); err != nil {
				t.Fatal(err)
			}
			if len(out) != spareWindows*spareKeys {
				t.Fatalf("fired %d rows, want %d", len(out), spareWindows*spareKeys)
			}
			if share := c.budget / spareShare; int64(a.spareBytes) > share {
				t.Fatalf("spares hold %d bytes, more than their share %d", a.spareBytes, share)
			}
			kept := len(a.spares)
			if c.name == "roomy" && kept != spareWindows {
				t.Fatalf("%d spares kept after %d windows fired at once, want %d", kept, spareWindows, spareWindows)
			}
			if c.name == "small" && kept >= spareWindows {
				t.Fatalf("%d spares kept in a budget of %d", kept, c.budget)
			}
			fillSpares(t, a, spareWindows)
			if len(a.spares) != 0 || a.spareBytes != 0 {
				t.Fatalf("%d spares (%d bytes) left after %d new windows, want none", len(a.spares), a.spareBytes, spareWindows)
			}
		})
	}
}

// TestSparesCharged: the spares' memory stays charged to the budget while
// they are kept (so that the windows still open spill when the budget is
// full with the spares counted), the next windows take it over, and
// Release gives it all back.
func TestSparesCharged(t *testing.T) {
	a, m := spareAggregate(t, []agg.Call{{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}}, 64<<20)
	fillSpares(t, a, 0)
	open := m.Used()
	var out []string
	if err := a.Advance(spareWindows*100-1, rowsOut(&out)); err != nil {
		t.Fatal(err)
	}
	if len(a.spares) != spareWindows {
		t.Fatalf("%d spares, want %d", len(a.spares), spareWindows)
	}
	if used := m.Used(); used < int64(a.spareBytes) || used > open {
		t.Fatalf("%d bytes used with %d in spares (%d before the windows fired)", used, a.spareBytes, open)
	}
	fillSpares(t, a, spareWindows)
	if used := m.Used(); used > open {
		t.Fatalf("%d bytes used by the next %d windows, more than the %d of the fired ones", used, spareWindows, open)
	}
	a.Release()
	if used := m.Used(); used != 0 {
		t.Fatalf("%d bytes used after Release", used)
	}
}

// TestFreshPanesSizedFromOpenOnes: before any window fires, a new window
// is sized for the groups of the largest one open and an eighth more, so
// a burst of windows opened at once (a subtask behind sources reading
// byte ranges minutes apart) does not grow each from nothing; after that,
// for the last fired window's groups.
func TestFreshPanesSizedFromOpenOnes(t *testing.T) {
	a, _ := spareAggregate(t, []agg.Call{{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}}, 64<<20)
	defer a.Release()
	fillSpares(t, a, 0)
	want := spareKeys + spareKeys/8
	for w := 1; w < spareWindows; w++ {
		if p := a.panes[int64(w*100)]; p.cap != want {
			t.Fatalf("window %d: room for %d groups, want %d (sized from the open ones)", w, p.cap, want)
		}
	}
}
