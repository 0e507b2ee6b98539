package window

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// TestSpillMatchesMemory: with a budget far below its state, the
// aggregate spills and fires exactly what it fires with room to spare.
func TestSpillMatchesMemory(t *testing.T) {
	rows := randomRows(rand.New(rand.NewPCG(7, 8)), 20000)
	for i := range rows {
		rows[i].k = int64(i * 7919 % 5000)
	}
	fire := func(budget int64) ([]string, int64) {
		a := countSum(t)
		m, err := memseg.NewManager(budget, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		a.UseMemory(m)
		st, err := state.Open(vfs.NewMem(), "spill")
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		a.UseStore(func() (*state.Store, error) { return st, nil }, "w", 128, 0)
		for lo := 0; lo < len(rows); lo += 1000 {
			b := batchOf(rows[lo : lo+1000])
			if _, err := a.Add(b); err != nil {
				t.Fatal(err)
			}
			b.Release()
		}
		out := fireAll(t, a)
		a.Release()
		if m.Used() != 0 {
			t.Errorf("budget %d: %d bytes still used after Release", budget, m.Used())
		}
		return out, a.Spills()
	}
	want, spills := fire(64 << 20)
	if spills != 0 {
		t.Fatalf("%d spills with room to spare", spills)
	}
	got, spills := fire(32 << 10)
	t.Logf("%d spills", spills)
	if spills == 0 {
		t.Fatal("no spill at a 32 KiB budget")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("spilled aggregate fired %d rows, in memory %d", len(got), len(want))
	}
}
