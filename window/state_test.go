package window

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// TestStateRoundTrip flushes windows whose per-group state is longer than
// 127 bytes (so its length takes two varint bytes) with DISTINCT values,
// restores them into a fresh aggregate, and checks that both fire the same
// rows, also after more input.
func TestStateRoundTrip(t *testing.T) {
	var aggs []agg.Call
	for range 40 {
		aggs = append(aggs, agg.Call{Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}, agg.Call{Kind: agg.Max, Arg: 2, Filter: -1, Out: types.TBigInt})
	}
	aggs = append(aggs, agg.Call{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt})
	mk := func() *Aggregate {
		a, err := New(Spec{Window: TumbleOf(10, 0), In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		a.Track()
		return a
	}
	r := rand.New(rand.NewPCG(5, 6))
	rows := randomRows(r, 3000)
	orig, restored := mk(), mk()
	first, second := batchOf(rows[:1500]), batchOf(rows[1500:])
	defer first.Release()
	defer second.Release()
	if _, err := orig.Add(first); err != nil {
		t.Fatal(err)
	}
	store, err := state.Open(vfs.NewMem(), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	kg := func(key []byte) uint16 { return uint16(memseg.Hash(key) % 128) }
	orig.UseStore(func() (*state.Store, error) { return store, nil }, "w", kg, 0)
	sorted := store.NewSorted()
	orig.Flush(sorted)
	if err := sorted.Commit(); err != nil {
		t.Fatal(err)
	}
	err = store.Scan("w", 0, 127, "", func(kg uint16, name string, key, value []byte) error {
		return restored.Load(kg, name, key, value)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*Aggregate{orig, restored} {
		if _, err := a.Add(second); err != nil {
			t.Fatal(err)
		}
	}
	got, want := fireAll(t, restored), fireAll(t, orig)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("restored fired %d rows, original %d; first rows:\n%.3q\n%.3q", len(got), len(want), got, want)
	}
}
