package window

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
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
	store, err := state.Open(vfs.NewMem(), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	orig.UseStore(func() (*state.Store, error) { return store, nil }, "w", 128, 0)
	if _, err := orig.Add(first); err != nil {
		t.Fatal(err)
	}
	sorted := store.NewSorted()
	orig.Flush(sorted)
	if err := sorted.Commit(); err != nil {
		t.Fatal(err)
	}
	err = store.Scan("w", 0, 127, "", func(kg uint16, name string, key, value []byte) error {
		return restored.Load(kg, name, key, value)
	})
	if err == nil {
		err = restored.Restored()
	}
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

// recorder is a Writer that counts what a Flush writes and forwards it.
type recorder struct {
	to           Writer
	groups, dels int
	entries      int
}

func (r *recorder) Set(uid string, kg uint16, name string, key, value []byte) {
	if name == paneState {
		n, _ := binary.Uvarint(value)
		r.groups += int(n)
		r.entries++
	}
	if r.to != nil {
		r.to.Set(uid, kg, name, key, value)
	}
}

func (r *recorder) Delete(uid string, kg uint16, name string, key []byte) {
	r.dels++
	if r.to != nil {
		r.to.Delete(uid, kg, name, key)
	}
}

// heldVersions counts the "p" entries of store and the group versions
// they hold.
func heldVersions(t *testing.T, store *state.Store) (entries, versions int) {
	t.Helper()
	err := store.Scan("w", 0, 127, paneState, func(_ uint16, _ string, _, value []byte) error {
		n, _ := binary.Uvarint(value)
		entries++
		versions += int(n)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries, versions
}

// TestFlushWritesChanges checks that a checkpoint writes the groups that
// changed since the previous one, not the groups held; that superseded
// versions are compacted away, so the store holds at most about compactAt
// times the groups; that a failed checkpoint's changes are written again; that a
// restore from the entries fires what the original fires; and that a fired
// window leaves no entry behind.
func TestFlushWritesChanges(t *testing.T) {
	const keys = 1500
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}, {Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt},
		{Kind: agg.Count, Arg: 2, Filter: -1, Distinct: true, Out: types.TBigInt}}
	spec := Spec{Window: TumbleOf(1000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}
	orig, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	orig.Track()
	store, err := state.Open(vfs.NewMem(), "s")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	orig.UseStore(func() (*state.Store, error) { return store, nil }, "w", 128, 0)
	checkpoint := func(complete bool) *recorder {
		t.Helper()
		sorted := store.NewSorted()
		rec := &recorder{to: sorted}
		orig.Flush(rec)
		if complete {
			if err := sorted.Commit(); err != nil {
				t.Fatal(err)
			}
			orig.Flushed()
		}
		return rec
	}
	var all []row
	add := func(rows []row) {
		t.Helper()
		b := batchOf(rows)
		defer b.Release()
		if _, err := orig.Add(b); err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
	var first []row
	for k := range keys {
		first = append(first, row{ts: 1, k: int64(k), v: int64(k % 7)})
	}
	add(first)
	if rec := checkpoint(true); rec.groups != keys {
		t.Fatalf("the first checkpoint wrote %d groups, want all %d", rec.groups, keys)
	}
	r := rand.New(rand.NewPCG(7, 8))
	compacted := false
	written, changes := 0, 0
	for round := range 200 {
		changed := map[int64]bool{}
		var rows []row
		for range 50 {
			k := r.Int64N(keys)
			changed[k] = true
			rows = append(rows, row{ts: 2, k: k, v: r.Int64N(20)})
		}
		add(rows)
		if round%17 == 0 {
			checkpoint(false) // fails: its changes are written again
		}
		rec := checkpoint(true)
		if rec.groups < len(changed) {
			t.Fatalf("round %d: %d groups written, %d changed", round, rec.groups, len(changed))
		}
		if rec.dels > 0 {
			compacted = true
		}
		written, changes = written+rec.groups, changes+len(changed)
		if entries, versions := heldVersions(t, store); versions > compactAt*keys+compactAt*50 {
			t.Fatalf("round %d: the store holds %d versions of %d groups in %d entries", round, versions, keys, entries)
		}
	}
	if !compacted {
		t.Errorf("no part was compacted")
	}
	// A compaction rewrites a part's groups once superseded versions
	// outnumber them compactAt-1 times: it costs less than the changes
	// that made them.
	if written > 2*changes {
		t.Errorf("checkpoints wrote %d groups for %d changes", written, changes)
	}
	if entries, _ := heldVersions(t, store); entries <= 128 {
		t.Errorf("the store holds %d entries: every part is one, nothing incremental was kept", entries)
	}
	restored, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	restored.Track()
	err = store.Scan("w", 0, 127, "", func(kg uint16, name string, key, value []byte) error {
		return restored.Load(kg, name, key, value)
	})
	if err == nil {
		err = restored.Restored()
	}
	if err != nil {
		t.Fatal(err)
	}
	got, want := fireAll(t, restored), fireAll(t, orig)
	if len(want) != keys || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("restored fired %d rows, original %d (of %d keys)", len(got), len(want), keys)
	}
	checkpoint(false)
	checkpoint(true)
	if entries, _ := heldVersions(t, store); entries != 0 {
		t.Errorf("%d entries left after the window fired", entries)
	}
}

// TestListDirty checks that Flush lists exactly the groups folded since
// the last Flushed, in group order (not the order rows came in), and that
// a Flush not followed by Flushed (a failed checkpoint) lists its groups
// again with the next ones.
func TestListDirty(t *testing.T) {
	a, err := New(Spec{Window: TumbleOf(3_600_000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1},
		Aggs: []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	a.Track()
	a.UseStore(func() (*state.Store, error) { return nil, nil }, "w", 128, 0)
	add := func(keys ...int64) {
		rows := make([]row, len(keys))
		for i, k := range keys {
			rows[i] = row{k: k}
		}
		b := batchOf(rows)
		defer b.Release()
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	// Keys 0..20 make groups 0..20 in order.
	keys := make([]int64, 21)
	for i := range keys {
		keys[i] = int64(i)
	}
	add(keys...)
	var w discard
	a.Flush(&w)
	a.Flushed()
	listed := func() []int32 {
		a.Flush(&w)
		p := a.panes[0]
		return append([]int32(nil), p.dirtyList...)
	}
	add(20, 8, 0, 7, 8, 0)
	if got, want := listed(), []int32{0, 7, 8, 20}; !slices.Equal(got, want) {
		t.Fatalf("changed groups %v, want %v", got, want)
	}
	// No Flushed: the next Flush writes them again, with the new ones.
	add(13, 21)
	if got, want := listed(), []int32{0, 7, 8, 13, 20, 21}; !slices.Equal(got, want) {
		t.Fatalf("after a failed checkpoint: changed groups %v, want %v", got, want)
	}
	a.Flushed()
	if got := listed(); len(got) != 0 {
		t.Fatalf("after Flushed: changed groups %v, want none", got)
	}
}
