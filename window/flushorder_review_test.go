package window

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// Review tests of Flush encoding a pane's entries in group order
// (encodeGroups): every entry, whichever of its two ways encodeGroups
// visited the groups, holds exactly the groups it must, each once with
// its state, and DISTINCT values whose ordinals name their own groups.

// entryCheck is a Writer that checks each pane entry a Flush writes
// against the aggregate's state as the Flush sees it, and forwards the
// writes to to (if not nil).
type entryCheck struct {
	t  *testing.T
	a  *Aggregate
	to Writer
	// written are the (window start, key group) entries of this Flush;
	// paths counts the entries by the way encodeGroups visited groups.
	written map[[2]int64]bool
	paths   map[string]int
	buf     []byte
}

func (c *entryCheck) Set(uid string, kg uint16, name string, key, value []byte) {
	if c.to != nil {
		c.to.Set(uid, kg, name, key, value)
	}
	if name != paneState {
		return
	}
	t, a, f := c.t, c.a, &c.a.flush
	start := int64(binary.BigEndian.Uint64(key[:8]) ^ 1<<63)
	p := a.panes[start]
	if p == nil {
		t.Errorf("entry of window %d, which is not open", start)
		return
	}
	c.written[[2]int64{start, int64(kg)}] = true
	c.paths[c.path(p)]++
	d, err := a.decode(value)
	if err != nil {
		t.Errorf("window %d kg %d: entry does not decode: %v", start, kg, err)
		return
	}
	// The groups it must hold: the part's changed ones, or all of them
	// when the Flush rewrites.
	var want []int32
	if f.rewrite {
		for g := range int32(p.len()) {
			if p.kgs[g] == kg {
				want = append(want, g)
			}
		}
		if len(want) != len(p.parts[kg].members) {
			t.Errorf("window %d kg %d: %d members, %d groups", start, kg, len(p.parts[kg].members), len(want))
		}
	} else {
		for _, g := range p.dirtyList {
			if p.kgs[g] == kg {
				want = append(want, g)
			}
		}
	}
	groupOf := map[string]int32{}
	for _, g := range want {
		groupOf[string(p.keyAt(g, &c.buf))] = g
	}
	if len(d.keys) != len(want) {
		t.Errorf("window %d kg %d (rewrite %v): %d groups, want %d", start, kg, f.rewrite, len(d.keys), len(want))
	}
	seen := map[string]bool{}
	for i, k := range d.keys {
		g, ok := groupOf[string(k)]
		switch {
		case !ok:
			t.Errorf("window %d kg %d: group %x should not be in the entry", start, kg, k)
			continue
		case seen[string(k)]:
			t.Errorf("window %d kg %d: group %x twice", start, kg, k)
		}
		seen[string(k)] = true
		c.buf = c.buf[:0]
		for _, ac := range p.accs {
			c.buf = ac.Put(c.buf, g)
		}
		if !bytes.Equal(d.states[i], c.buf) {
			t.Errorf("window %d kg %d: group %x has state %x, want %x", start, kg, k, d.states[i], c.buf)
		}
	}
	// Its DISTINCT values, each under the key of its own group.
	var wantV, gotV []string
	for agg, s := range p.seen {
		if s == nil {
			continue
		}
		var mark uint64
		if p.marks != nil {
			mark = p.marks[agg]
		}
		for it := s.IterFrom(0); it.Next(); {
			g := int32(binary.BigEndian.Uint32(it.Key()))
			if p.kgs[g] == kg && (it.Addr() >= mark || f.rewrite) {
				wantV = append(wantV, fmt.Sprintf("%d/%x/%x", agg, p.keyAt(g, &c.buf), it.Key()[4:]))
			}
		}
	}
	for _, v := range d.values {
		gotV = append(gotV, fmt.Sprintf("%d/%x/%x", v.agg, d.keys[v.group], v.value))
	}
	slices.Sort(wantV)
	slices.Sort(gotV)
	if !slices.Equal(gotV, wantV) {
		t.Errorf("window %d kg %d: DISTINCT values\n%q, want\n%q", start, kg, gotV, wantV)
	}
}

func (c *entryCheck) Delete(uid string, kg uint16, name string, key []byte) {
	if c.to != nil {
		c.to.Delete(uid, kg, name, key)
	}
}

// path names the way encodeGroups visits pane p's groups: the changed
// groups alone, or all of them (a rewrite); "+v" when DISTINCT values
// need ordinals.
func (c *entryCheck) path(p *pane) string {
	f := &c.a.flush
	s := "dirty"
	if f.rewrite {
		s = "all"
	}
	if len(f.values) > 0 {
		s += "+v"
	}
	return s
}

// flush runs a Flush of a through c, then checks that every part with a
// changed group got its entry.
func (c *entryCheck) flush() {
	c.t.Helper()
	c.written = map[[2]int64]bool{}
	c.a.Flush(c)
	for s, p := range c.a.panes {
		for _, g := range p.dirtyList {
			if !c.written[[2]int64{s, int64(p.kgs[g])}] {
				c.t.Errorf("window %d kg %d: group %d changed, no entry written", s, p.kgs[g], g)
			}
		}
	}
}

// TestFlushEntriesExact checkpoints windows of many groups in many key
// groups, changing a few of them between checkpoints (some checkpoints
// failing), so that Flush takes each of encodeGroups' ways: a HashTable
// key with DISTINCT values, and an IntTable key (NULL included), in
// tumbling windows and hopping ones (several windows per Flush), with and
// without spills. Every entry must be exact (entryCheck), and a restore
// from the last checkpoint must fire what the aggregate fires.
func TestFlushEntriesExact(t *testing.T) {
	hop := Assigner{Kind: Hop, Size: 2000, Slide: 500}
	distinctHop := mSpecKeys(1)
	distinctHop.Window = hop
	cases := []struct {
		name   string
		spec   Spec
		maxPar int
		keys   int
		budget int64
	}{
		{"distinct/tumble/kg128", mSpecKeys(1), 128, 6000, 0},
		{"distinct/tumble/kg8", mSpecKeys(1), 8, 2000, 0},
		{"distinct/tumble/kg4096", mSpecKeys(1), 4096, 3000, 0},
		{"ints/tumble/kg128", mSpecInts(TumbleOf(200, 0)), 128, 6000, 0},
		{"ints/tumble/kg8", mSpecInts(TumbleOf(200, 0)), 8, 2000, 0},
		{"ints/hop/kg64", mSpecInts(hop), 64, 3000, 0},
		{"distinct/hop/kg64", distinctHop, 64, 3000, 0},
		{"ints/tumble/spill", mSpecInts(TumbleOf(200, 0)), 32, 3000, 256 << 10},
		{"distinct/tumble/spill", mSpecKeys(1), 32, 3000, 512 << 10},
	}
	paths, ran := map[string]int{}, 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ran++
			r := rand.New(rand.NewPCG(uint64(tc.maxPar), uint64(tc.keys)))
			spec := tc.spec
			span := spec.Window.Size // time moves a window every 75 rounds
			st, err := state.Open(vfs.NewMem(), "st")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			a := trackedAggregate(t, spec, tc.budget, st, tc.maxPar, 0)
			a.StoreProgress(0, tc.maxPar-1) // as exec does: fired windows stay fired
			defer a.Release()
			c := &entryCheck{t: t, a: a, paths: paths}
			// Every key once, then rounds of a few changes: hot keys
			// (a tenth of them) make their parts compact sooner.
			var rows []mRow
			for k := range tc.keys {
				rows = append(rows, mRow{ts: 0, k: int64(k), v: int64(k % 5), s: "a", f: true})
			}
			rows = append(rows, mRow{ts: 0, k: -1, v: 1, s: "n", f: true})
			addRows(t, a, rows)
			ts := int64(0)
			rounds := scaled(120, 40)
			for round := range rounds {
				rows = rows[:0]
				for range 20 + r.IntN(80) {
					k := int64(r.IntN(tc.keys))
					if r.IntN(2) == 0 {
						k = int64(r.IntN(tc.keys / 10))
					}
					if r.IntN(40) == 0 {
						k = -1
					}
					rows = append(rows, mRow{ts: ts + int64(r.IntN(10)), k: k, v: int64(r.IntN(30)), s: fmt.Sprintf("s%d", r.IntN(9)), f: r.IntN(2) == 0})
				}
				addRows(t, a, rows)
				if round%3 == 0 {
					ts += span / 25
				}
				sorted := st.NewSorted()
				c.to = sorted
				c.flush()
				if round%11 == 5 {
					continue // failed: nothing committed, nothing forgotten
				}
				if err := sorted.Commit(); err != nil {
					t.Fatal(err)
				}
				a.Flushed()
				if round%13 == 12 && spec.Window.Kind == Hop {
					if err := a.Advance(ts-span/2, rowsOut(new([]string))); err != nil {
						t.Fatal(err)
					}
				}
			}
			restoredSt, err := state.Open(vfs.NewMem(), "r")
			if err != nil {
				t.Fatal(err)
			}
			defer restoredSt.Close()
			// Epoch 1: its spills must not overwrite those it restores.
			restored := trackedAggregate(t, spec, tc.budget, restoredSt, tc.maxPar, 1)
			restored.StoreProgress(0, tc.maxPar-1)
			defer restored.Release()
			err = st.Scan("w", 0, uint16(tc.maxPar-1), "", restored.Load)
			if err == nil {
				err = restored.Restored()
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			if err := a.Advance(1<<62, rowsOut(&want)); err != nil {
				t.Fatal(err)
			}
			if err := restored.Advance(1<<62, rowsOut(&got)); err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(want) == 0 {
				t.Fatal("nothing fired")
			}
			diffLines(t, got, want)
			if tc.budget > 0 && a.Spills() == 0 {
				t.Errorf("nothing spilled")
			}
		})
	}
	if ran < len(cases) {
		return // a -run filter left cases out: some ways may not be taken
	}
	for _, p := range []string{"dirty", "all", "dirty+v", "all+v"} {
		if paths[p] == 0 {
			t.Errorf("no entry was written by way %q: %v", p, paths)
		}
	}
	t.Logf("entries by way: %v", paths)
}

// TestFlushKeepsLittle checks that the entry buffers Flush keeps for the
// next one stay small however many key groups a large checkpoint spreads
// its groups over (each entry small, all of them together the whole
// window), and that a small checkpoint's are kept.
func TestFlushKeepsLittle(t *testing.T) {
	const keys, maxPar = 100_000, 1024
	a, err := New(mSpecInts(TumbleOf(1000, 0)), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	a.Track()
	a.UseStore(nil, "w", maxPar, 0)
	rows := make([]mRow, keys)
	for k := range rows {
		rows[k] = mRow{k: int64(k), v: 1, s: "abc", f: true}
	}
	kept := func(n int) int {
		t.Helper()
		b := mBatch(rows[:n])
		defer b.Release()
		if _, err := a.Add(b); err != nil {
			t.Fatal(err)
		}
		var w discard
		a.Flush(&w)
		a.Flushed()
		held := 0
		for _, buf := range a.flush.bufs {
			held += cap(buf)
		}
		t.Logf("a Flush of %d groups, %d bytes, keeps %d bytes", n, w.bytes, held)
		return held
	}
	if held := kept(keys); held > 1<<20 {
		t.Errorf("a first checkpoint keeps %d bytes of entry buffers", held)
	}
	if held := kept(keys / 100); held == 0 {
		t.Errorf("a small checkpoint keeps no entry buffer")
	}
}

// trackedAggregate is an aggregate of spec that checkpoints into st, in
// maxPar key groups at epoch, with a budget of managed memory if budget
// > 0.
func trackedAggregate(t *testing.T, spec Spec, budget int64, st *state.Store, maxPar int, epoch uint64) *Aggregate {
	t.Helper()
	a, err := New(spec, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if budget > 0 {
		m, err := memseg.NewManager(budget, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		a.UseMemory(m)
	}
	a.Track()
	a.UseStore(func() (*state.Store, error) { return st, nil }, "w", maxPar, epoch)
	return a
}

// addRows adds rows to a as one batch.
func addRows(t *testing.T, a *Aggregate, rows []mRow) {
	t.Helper()
	b := mBatch(rows)
	defer b.Release()
	if _, err := a.Add(b); err != nil {
		t.Fatal(err)
	}
}
