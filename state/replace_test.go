package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Tests of replacing commits (Sorted.Replace) against a map model of the
// whole store: every uid, key group and state name.

// replUIDs, replKGs and replNames span the key space of the replace
// tests: uids and names that are prefixes of one another (and one that
// ends in 0xff), and key groups at both ends.
var (
	replUIDs  = []string{"agg", "ag", "agg\xff"}
	replKGs   = []uint16{0, 1, 7, 0xffff}
	replNames = []string{"p", "s", "w", "ps"}
)

// replModel is the expected content of a whole store, by encoded key.
type replModel map[string]entry

func (m replModel) set(w kvWriter, uid string, kg uint16, name, key, val string) {
	w.Set(uid, kg, name, []byte(key), []byte(val))
	m[string(encodeKey(nil, uid, kg, name, []byte(key)))] = entry{uid, kg, name, key, val}
}

func (m replModel) del(w kvWriter, uid string, kg uint16, name, key string) {
	w.Delete(uid, kg, name, []byte(key))
	delete(m, string(encodeKey(nil, uid, kg, name, []byte(key))))
}

// replace drops what a Replace(uid, name) replaces, before the writes of
// its Sorted apply.
func (m replModel) replace(uid, name string) {
	for k, e := range m {
		if e.uid == uid && (name == "" || e.name == name) {
			delete(m, k)
		}
	}
}

func (m replModel) clone() replModel {
	c := make(replModel, len(m))
	for k, e := range m {
		c[k] = e
	}
	return c
}

// checkModel compares the whole store with m.
func checkModel(t *testing.T, s *Store, m replModel, what string) {
	t.Helper()
	var got []string
	for _, uid := range replUIDs {
		got = append(got, scanAll(t, s, uid, 0, 0xffff, "")...)
	}
	var want []string
	for _, uid := range replUIDs {
		want = append(want, model(sortedEntries(m)).scan(uid, 0, 0xffff, "")...)
	}
	it, err := s.db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if n != len(m) {
		t.Errorf("%s: the DB holds %d keys, the model %d", what, n, len(m))
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: %d entries, want %d; first difference at %d:\n got %.300q\nwant %.300q", what, len(got), len(want), i, got[i:], want[i:])
	}
}

// sortedEntries returns m's entries in key order.
func sortedEntries(m replModel) []entry {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]entry, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// fillRepl sets every key k0..k<n-1> of every uid, key group and name,
// through w.
func fillRepl(w kvWriter, m replModel, n int, tag string) {
	for _, uid := range replUIDs {
		for _, kg := range replKGs {
			for _, name := range replNames {
				for i := range n {
					m.set(w, uid, kg, name, fmt.Sprintf("k%d", i), fmt.Sprintf("%s-%q-%d-%s-%d", tag, uid, kg, name, i))
				}
			}
		}
	}
}

// flushStore flushes the store's memtable, as a snapshot does.
func flushStore(t *testing.T, s *Store) {
	t.Helper()
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
}

func commitSorted(t *testing.T, w *Sorted, what string) {
	t.Helper()
	if err := w.Commit(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// replaceStores are the stores the replace tests run on.
func replaceStores(t *testing.T) []struct {
	name string
	open func() *Store
} {
	return []struct {
		name string
		open func() *Store
	}{
		{"ingesting/mem", func() *Store { return openIngesting(t, vfs.NewMem(), "st") }},
		{"ingesting/disk", func() *Store { return openIngesting(t, vfs.Default, t.TempDir()) }},
		{"plain/mem", func() *Store { return openStore(t, vfs.NewMem(), "st") }},
	}
}

// TestReplaceCases checks replacing commits case by case against the
// model: one name replaced keeps other names, uids and key groups; ""
// replaces every name of its uid alone; the Sorted's deletes apply to
// what it keeps; the last write of a key wins; an empty replacing Sorted
// empties what it replaces; and Batch writes still in the memtable are
// replaced or kept like the rest.
func TestReplaceCases(t *testing.T) {
	cases := []struct {
		name string
		// before writes to the store (committed) after the fill; then
		// write makes the replacing commit's writes and Replace calls.
		before func(t *testing.T, s *Store, m replModel)
		write  func(w *Sorted, m replModel)
	}{
		{"one name", nil, func(w *Sorted, m replModel) {
			w.Replace("agg", "p")
			m.replace("agg", "p")
			m.set(w, "agg", 7, "p", "new", "n")
			m.set(w, "agg", 0xffff, "p", "k1", "v")
		}},
		{"every name", nil, func(w *Sorted, m replModel) {
			w.Replace("ag", "")
			m.replace("ag", "")
			m.set(w, "ag", 1, "s", "k0", "only")
			m.set(w, "agg", 1, "s", "k0", "other uid, written")
		}},
		{"two replaced", nil, func(w *Sorted, m replModel) {
			w.Replace("agg", "ps")
			w.Replace("agg\xff", "")
			m.replace("agg", "ps")
			m.replace("agg\xff", "")
			m.set(w, "agg\xff", 0, "w", "x", "y")
		}},
		{"deletes of kept entries", nil, func(w *Sorted, m replModel) {
			w.Replace("agg", "p")
			m.replace("agg", "p")
			m.del(w, "agg", 0, "s", "k0")
			m.del(w, "agg", 0xffff, "ps", "k2")
			m.del(w, "ag", 0, "p", "k1")
			m.del(w, "agg\xff", 0xffff, "w", "k2") // the store's last key
			m.del(w, "agg", 0, "p", "k0")          // replaced anyway
			m.set(w, "agg", 1, "p", "z", "z")
		}},
		{"first and last keys", func(t *testing.T, s *Store, m replModel) {
			// The store's extreme keys deleted by a plain Sorted: their
			// tombstones lie outside every key the store holds.
			d := s.NewSorted()
			es := sortedEntries(m)
			first, last := es[0], es[len(es)-1]
			m.del(d, first.uid, first.kg, first.name, first.key)
			m.del(d, last.uid, last.kg, last.name, last.key)
			commitSorted(t, d, "extreme deletes")
		}, func(w *Sorted, m replModel) {
			w.Replace("agg", "p")
			m.replace("agg", "p")
			m.set(w, "agg", 0, "p", "k0", "new")
		}},
		{"last write wins", nil, func(w *Sorted, m replModel) {
			w.Replace("agg", "s")
			m.replace("agg", "s")
			m.set(w, "agg", 7, "s", "a", "1")
			m.del(w, "agg", 7, "s", "a")
			m.set(w, "agg", 7, "s", "a", "3")
			m.set(w, "agg", 7, "s", "b", "1")
			m.set(w, "agg", 7, "s", "b", "2")
			m.del(w, "agg", 7, "s", "b")
			m.set(w, "agg", 7, "p", "k0", "kept name, rewritten")
			m.set(w, "agg", 7, "p", "k0", "kept name, rewritten twice")
		}},
		{"empty", nil, func(w *Sorted, m replModel) {
			w.Replace("agg", "p")
			m.replace("agg", "p")
		}},
		{"empty all", nil, func(w *Sorted, m replModel) {
			for _, uid := range replUIDs {
				w.Replace(uid, "")
				m.replace(uid, "")
			}
		}},
		{"memtable", func(t *testing.T, s *Store, m replModel) {
			b := s.NewBatch()
			m.set(b, "agg", 0, "p", "mem", "replaced")
			m.set(b, "agg", 0, "s", "mem", "kept")
			m.del(b, "agg", 1, "s", "k1")
			m.set(b, "ag", 0xffff, "w", "zz", "kept, the store's last key")
			m.set(b, "ag", 0, "p", "", "kept, the store's first key")
			b.DeletePrefix("agg", 7, "s", []byte("k"))
			for k, e := range m {
				if e.uid == "agg" && e.kg == 7 && e.name == "s" && strings.HasPrefix(e.key, "k") {
					delete(m, k)
				}
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}, func(w *Sorted, m replModel) {
			w.Replace("agg", "p")
			m.replace("agg", "p")
			m.set(w, "agg", 1, "p", "k1", "new")
		}},
	}
	for _, st := range replaceStores(t) {
		t.Run(st.name, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					s := st.open()
					m := replModel{}
					w := s.NewSorted()
					fillRepl(w, m, 3, "fill")
					commitSorted(t, w, "fill")
					// A second layer over the first, so that the replaced
					// entries are in several files.
					b := s.NewBatch()
					for _, uid := range replUIDs {
						m.set(b, uid, 1, "p", "k1", "batch")
						m.set(b, uid, 1, "s", "k9", "batch")
					}
					if err := b.Commit(); err != nil {
						t.Fatal(err)
					}
					flushStore(t, s)
					w2 := s.NewSorted()
					fillRepl(w2, m, 2, "second")
					commitSorted(t, w2, "second")
					if c.before != nil {
						c.before(t, s, m)
					}
					checkModel(t, s, m, "before")
					c.write(w, m)
					commitSorted(t, w, "replace")
					checkModel(t, s, m, "after")
					if w.Len() != 0 {
						t.Fatalf("the Sorted holds %d writes after Commit", w.Len())
					}
					// Replace applies to one commit: the next is plain.
					m.set(w, "agg", 0, "ps", "after", "x")
					commitSorted(t, w, "plain")
					checkModel(t, s, m, "the commit after")
				})
			}
		})
	}
}

// randWrites makes n random sets and deletes through w, over the whole
// key space or, with uid and name set, mostly under them.
func randWrites(rng *rand.Rand, w kvWriter, m replModel, n int, tag, uid, name string) {
	for i := range n {
		u, kg, nm := replUIDs[rng.IntN(len(replUIDs))], replKGs[rng.IntN(len(replKGs))], replNames[rng.IntN(len(replNames))]
		if uid != "" && rng.IntN(3) > 0 {
			u = uid
			if name != "" {
				nm = name
			}
		}
		key := fmt.Sprintf("k%d", rng.IntN(10))
		if rng.IntN(4) == 0 {
			m.del(w, u, kg, nm, key)
			continue
		}
		m.set(w, u, kg, nm, key, fmt.Sprintf("%s-%d-%x", tag, i, rng.Uint32()))
	}
}

// TestReplaceModel runs rounds of Batch writes (range deletes among
// them), plain Sorted commits and replacing ones (one or two Replace
// calls, by name or whole uid, some with no writes), with memtable
// flushes now and then, and compares the whole store with the model
// after every commit.
func TestReplaceModel(t *testing.T) {
	for _, st := range replaceStores(t) {
		t.Run(st.name, func(t *testing.T) {
			s := st.open()
			rng := rand.New(rand.NewPCG(11, 12))
			m := replModel{}
			w := s.NewSorted()
			fillRepl(w, m, 5, "fill")
			commitSorted(t, w, "fill")
			replaced := 0
			for r := range 200 {
				what := fmt.Sprintf("round %d", r)
				tag := fmt.Sprintf("r%d", r)
				switch op := rng.IntN(10); {
				case op < 3:
					b := s.NewBatch()
					randWrites(rng, b, m, 1+rng.IntN(20), tag, "", "")
					if rng.IntN(4) == 0 {
						uid, kg, name := replUIDs[rng.IntN(len(replUIDs))], replKGs[rng.IntN(len(replKGs))], replNames[rng.IntN(len(replNames))]
						b.DeletePrefix(uid, kg, name, []byte("k"))
						for k, e := range m {
							if e.uid == uid && e.kg == kg && e.name == name {
								delete(m, k)
							}
						}
					}
					if err := b.Commit(); err != nil {
						t.Fatal(err)
					}
				case op < 5:
					randWrites(rng, w, m, 1+rng.IntN(30), tag, "", "")
					commitSorted(t, w, what)
				default:
					uid := replUIDs[rng.IntN(len(replUIDs))]
					name := ""
					if rng.IntN(2) == 0 {
						name = replNames[rng.IntN(len(replNames))]
					}
					w.Replace(uid, name)
					m.replace(uid, name)
					if rng.IntN(4) == 0 {
						uid2 := replUIDs[rng.IntN(len(replUIDs))]
						name2 := replNames[rng.IntN(len(replNames))]
						w.Replace(uid2, name2)
						m.replace(uid2, name2)
					}
					if rng.IntN(8) > 0 {
						randWrites(rng, w, m, rng.IntN(80), tag, uid, name)
					}
					commitSorted(t, w, what)
					replaced++
				}
				if rng.IntN(15) == 0 {
					flushStore(t, s)
				}
				checkModel(t, s, m, what)
			}
			if replaced < 50 {
				t.Fatalf("%d replacing commits", replaced)
			}
		})
	}
}

// tables returns the SSTs of the store's L0 and of all levels, and how
// many of them are virtual (what an excise that cuts a file leaves).
func tables(s *Store) (l0, all int64, virtual uint64) {
	m := s.db.Metrics()
	for _, l := range m.Levels {
		all += l.TablesCount
	}
	return m.Levels[0].TablesCount, all, m.NumVirtual()
}

// TestReplaceLeavesOneSST checks that after a replacing commit an
// ingesting store holds one SST, not in L0, and no virtual one: the
// replacing SST swapped in for every file, so nothing is left for Pebble
// to compact. The files before it: a stack of Sorted commits in L0, Batch
// writes in the memtable, and, in some cases, tombstones (point and
// range) of the store's first and last keys, which no longer hold a
// value when the replace comes.
func TestReplaceLeavesOneSST(t *testing.T) {
	cases := []struct {
		name   string
		before func(t *testing.T, s *Store, m replModel)
	}{
		{"stacked", nil},
		{"point tombstones at the ends", func(t *testing.T, s *Store, m replModel) {
			d := s.NewSorted()
			es := sortedEntries(m)
			first, last := es[0], es[len(es)-1]
			m.del(d, first.uid, first.kg, first.name, first.key)
			m.del(d, last.uid, last.kg, last.name, last.key)
			commitSorted(t, d, "extreme deletes")
		}},
		{"range tombstone at the end", func(t *testing.T, s *Store, m replModel) {
			b := s.NewBatch()
			// The uid's last name in its last key group: the store's
			// last keys.
			b.DeletePrefix("agg\xff", 0xffff, "ps", nil)
			m.replace("agg\xff", "ps") // ... in key group 0xffff only:
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openIngesting(t, vfs.NewMem(), "st")
			m := replModel{}
			w := s.NewSorted()
			fillRepl(w, m, 4, "fill")
			commitSorted(t, w, "fill")
			for i := range 5 {
				// Sets inside the keys filled: no key beyond them, and no
				// tombstone, but those the cases write.
				rng := rand.New(rand.NewPCG(uint64(i), 1))
				for range 30 {
					uid, kg, name := replUIDs[rng.IntN(len(replUIDs))], replKGs[rng.IntN(len(replKGs))], replNames[rng.IntN(len(replNames))]
					m.set(w, uid, kg, name, fmt.Sprintf("k%d", rng.IntN(4)), fmt.Sprintf("stack %d", i))
				}
				commitSorted(t, w, "stack")
			}
			b := s.NewBatch()
			m.set(b, "agg", 1, "s", "mem", "in the memtable")
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if c.before != nil {
				mm := m.clone()
				c.before(t, s, m)
				if c.name == "range tombstone at the end" {
					// m.replace dropped every key group's "ps" of the uid;
					// the range delete covers key group 0xffff alone.
					for k, e := range mm {
						if e.uid == "agg\xff" && e.name == "ps" && e.kg != 0xffff {
							m[k] = e
						}
					}
				}
			}
			checkModel(t, s, m, "before")
			if l0, _, _ := tables(s); l0 < 2 {
				t.Fatalf("%d SSTs in L0 before the replace: the test needs a stack", l0)
			}
			w.Replace("agg", "p")
			m.replace("agg", "p")
			m.set(w, "agg", 7, "p", "k0", "new")
			commitSorted(t, w, "replace")
			checkModel(t, s, m, "after")
			if l0, all, virtual := tables(s); l0 != 0 || all != 1 || virtual != 0 {
				t.Errorf("after a replacing commit: %d SSTs, %d in L0, %d virtual; want one, not in L0", all, l0, virtual)
			}
			// An empty replacement of everything leaves no SST.
			for _, uid := range replUIDs {
				w.Replace(uid, "")
				m.replace(uid, "")
			}
			commitSorted(t, w, "replace all")
			checkModel(t, s, m, "emptied")
			if _, all, _ := tables(s); all != 0 {
				t.Errorf("after replacing everything with nothing: %d SSTs", all)
			}
		})
	}
}

// TestReplaceSnapshots takes delta snapshots, then a replacing commit
// through SnapshotDelta, which must be full, then deltas on it, and a
// second replacing one (every name); some snapshots are uploaded only
// after a replace excised their files from the DB. Every handle must
// restore to its round's state.
func TestReplaceSnapshots(t *testing.T) {
	for _, c := range deltaFS(t) {
		t.Run(c.name, func(t *testing.T) {
			fs, root := c.fs, c.root()
			d := newDeltaStore(t, fs, fs.PathJoin(root, "store"))
			dst := newTarget(t, fs, fs.PathJoin(root, "storage"))
			type done struct {
				h    Handle
				want model
			}
			var handles []done
			held := map[int64]*Snapshot{}
			wants := map[int64]model{}
			upload := func(id int64, sn *Snapshot, full bool) {
				t.Helper()
				h, err := sn.Upload(dst)
				if err != nil {
					t.Fatalf("upload %d: %v", id, err)
				}
				if ds := deltasOf(t, h, fmt.Sprint(id)); (len(ds) == 0) != full {
					t.Fatalf("snapshot %d: %d deltas in its handle, full %v", id, len(ds), full)
				}
				handles = append(handles, done{h, wants[id]})
			}
			// take takes snapshot id (full or not), uploads it now
			// unless hold.
			take := func(id int64, full, hold bool) {
				t.Helper()
				sn, want := d.snapshot(t, id, full)
				wants[id] = want
				if hold {
					held[id] = sn
					return
				}
				upload(id, sn, full)
			}
			replace := func(id int64, name string) {
				t.Helper()
				d.w.Replace("agg", name)
				for k, e := range d.m {
					if name == "" || e.name == name {
						delete(d.m, k)
					}
				}
				deltaWrites(d.rng, d.w, d.m, int(id), 40)
				sn, err := d.s.SnapshotDelta(id, d.w)
				if err != nil {
					t.Fatal(err)
				}
				if len(sn.deltas) != 0 {
					t.Fatalf("snapshot %d after a replacing commit: %d deltas; want a full one", id, len(sn.deltas))
				}
				wants[id] = d.m.model()
				upload(id, sn, true)
				if l0, all, virtual := tables(d.s); l0 != 0 || all != 1 || virtual != 0 {
					t.Errorf("after replacing commit %d: %d SSTs, %d in L0, %d virtual; want one, not in L0", id, all, l0, virtual)
				}
			}
			take(1, true, true)
			take(2, false, false)
			take(3, false, true)
			take(4, false, false)
			replace(5, "a")
			upload(3, held[3], false)
			upload(1, held[1], true)
			take(6, false, false)
			take(7, false, true)
			take(8, false, false)
			replace(9, "")
			upload(7, held[7], false)
			take(10, false, false)
			take(11, false, false)
			for i, h := range handles {
				checkRestore(t, fs, dst, h.h, fs.PathJoin(root, "restore"), h.want, fmt.Sprintf("restore of handle %d", i))
			}
			d.closeClean(t)
		})
	}
}

// TestReplacePlainStore checks a replacing commit on a store that
// Open made (not ingesting), with data in every level it has reached,
// against the model.
func TestReplacePlainStore(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "st")
	rng := rand.New(rand.NewPCG(3, 4))
	m := replModel{}
	w := s.NewSorted()
	fillRepl(w, m, 6, "fill")
	commitSorted(t, w, "fill")
	for i := range 12 {
		b := s.NewBatch()
		randWrites(rng, b, m, 40, fmt.Sprint(i), "", "")
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		flushStore(t, s) // L0 files, which Open's store compacts early
		randWrites(rng, w, m, 40, fmt.Sprint(i), "", "")
		commitSorted(t, w, "sorted")
	}
	checkModel(t, s, m, "before")
	w.Replace("agg", "p")
	m.replace("agg", "p")
	randWrites(rng, w, m, 40, "replace", "agg", "p")
	commitSorted(t, w, "replace")
	checkModel(t, s, m, "after")
	w.Replace("ag", "")
	m.replace("ag", "")
	commitSorted(t, w, "replace all of a uid")
	checkModel(t, s, m, "after the second")
}

// uploadRestore uploads sn to dst and restores it from there into dir
// (on fs), failing the test on any error; the caller closes the Reader.
func uploadRestore(t *testing.T, fs vfs.FS, dst *dirTarget, sn *Snapshot, dir string) *Reader {
	t.Helper()
	h, err := sn.Upload(dst)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	r, err := OpenHandle(fs, dst, h, dir)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	return r
}
