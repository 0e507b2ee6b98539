package state

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// Review tests of replacing commits (Sorted.Replace): a random model of a
// store written by Batches (with range deletes), plain Sorted commits and
// replacing ones, checked after every step and through a snapshot's
// restore.

// replaceModel is the expected content of a store: encoded key -> entry.
type replaceModel map[string]entry

func (m replaceModel) set(uid string, kg uint16, name, key, val string) {
	m[string(encodeKey(nil, uid, kg, name, []byte(key)))] = entry{uid, kg, name, key, val}
}

func (m replaceModel) del(uid string, kg uint16, name, key string) {
	delete(m, string(encodeKey(nil, uid, kg, name, []byte(key))))
}

func (m replaceModel) sorted() model {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(model, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

var (
	reviewUIDs  = []string{"agg", "ag", "agh"}
	reviewNames = []string{"p", "s", "w", "pp"}
	reviewKGs   = []uint16{0, 1, 7, 0xfffe, 0xffff}
	reviewKeys  = []string{"", "\x00", "a", "b", "c", "z", "\xff", "\xff\xff"}
)

func (m replaceModel) check(t *testing.T, s scannable, what string) {
	t.Helper()
	want := m.sorted()
	for _, uid := range reviewUIDs {
		got, w := scanAll(t, s, uid, 0, 0xffff, ""), want.scan(uid, 0, 0xffff, "")
		if !slices.Equal(got, w) {
			t.Fatalf("%s: uid %q:\n got %q\nwant %q", what, uid, got, w)
		}
	}
}

// TestReviewReplaceModel: random Batches (sets, deletes, range deletes),
// Sorted commits and replacing commits leave the store, and every
// snapshot's restore, holding what the model says.
func TestReviewReplaceModel(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { replaceModelRun(t, seed) })
	}
}

func replaceModelRun(t *testing.T, seed uint64) {
	fs := vfs.NewMem()
	s := openIngesting(t, fs, "st")
	dst := newTarget(t, fs, "/storage")
	rng := rand.New(rand.NewPCG(seed, 7))
	m := replaceModel{}
	pick := func() (string, uint16, string, string) {
		return reviewUIDs[rng.IntN(len(reviewUIDs))], reviewKGs[rng.IntN(len(reviewKGs))],
			reviewNames[rng.IntN(len(reviewNames))], reviewKeys[rng.IntN(len(reviewKeys))]
	}
	type heldSnap struct {
		sn   *Snapshot
		m    replaceModel
		step int
		what string
	}
	var held []heldSnap
	upload := func(h heldSnap) {
		t.Helper()
		r := uploadRestore(t, fs, dst, h.sn, "restore")
		h.m.check(t, r, fmt.Sprintf("step %d (%s), restored", h.step, h.what))
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, h := range held {
			if t.Failed() {
				_ = h.sn.Discard()
				continue
			}
			upload(h)
		}
	}()
	w := s.NewSorted()
	for step := range 60 {
		var what string
		switch op := rng.IntN(10); {
		case op < 3: // a Batch, a spill
			what = "batch"
			b := s.NewBatch()
			for range 1 + rng.IntN(8) {
				uid, kg, name, key := pick()
				switch rng.IntN(5) {
				case 0:
					b.Delete(uid, kg, name, []byte(key))
					m.del(uid, kg, name, key)
				case 1:
					b.DeletePrefix(uid, kg, name, []byte(key))
					for k, e := range m {
						if e.uid == uid && e.kg == kg && e.name == name && strings.HasPrefix(e.key, key) {
							delete(m, k)
						}
					}
				default:
					v := fmt.Sprintf("b%d", step)
					b.Set(uid, kg, name, []byte(key), []byte(v))
					m.set(uid, kg, name, key, v)
				}
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		default: // a Sorted, replacing or not
			type rep struct{ uid, name string }
			var reps []rep
			if rng.IntN(2) == 0 {
				for range 1 + rng.IntN(2) {
					r := rep{uid: reviewUIDs[rng.IntN(len(reviewUIDs))]}
					if rng.IntN(2) == 0 {
						r.name = reviewNames[rng.IntN(len(reviewNames))]
					}
					reps = append(reps, r)
					w.Replace(r.uid, r.name)
				}
			}
			what = fmt.Sprintf("sorted %v", reps)
			for k, e := range m {
				for _, r := range reps {
					if e.uid == r.uid && (r.name == "" || e.name == r.name) {
						delete(m, k)
					}
				}
			}
			for range rng.IntN(10) {
				uid, kg, name, key := pick()
				if rng.IntN(4) == 0 {
					w.Delete(uid, kg, name, []byte(key))
					m.del(uid, kg, name, key)
					continue
				}
				v := fmt.Sprintf("w%d", step)
				w.Set(uid, kg, name, []byte(key), []byte(v))
				m.set(uid, kg, name, key, v)
			}
			if rng.IntN(3) == 0 {
				sn, err := s.SnapshotDelta(int64(step+1), w)
				if err != nil {
					t.Fatalf("step %d (%s): %v", step, what, err)
				}
				if len(reps) > 0 && len(sn.deltas) > 0 {
					t.Fatalf("step %d (%s): the snapshot of a replacing commit has %d deltas", step, what, len(sn.deltas))
				}
				if rng.IntN(3) == 0 {
					// A savepoint: the snapshot's entries of "agg".
					got, err := readAll(exportOf(t, sn), 0, 0xffff, "")
					if err != nil {
						t.Fatal(err)
					}
					if want := m.sorted().scan("agg", 0, 0xffff, ""); !slices.Equal(got, want) {
						t.Fatalf("step %d (%s), exported:\n got %q\nwant %q", step, what, got, want)
					}
					m.check(t, s, fmt.Sprintf("step %d (%s)", step, what))
					continue
				}
				// Uploaded now, or later, after more commits (replacing
				// ones too) and snapshots.
				held = append(held, heldSnap{sn, maps.Clone(m), step, what})
				for len(held) > 0 && (rng.IntN(2) == 0 || len(held) > 3) {
					i := rng.IntN(len(held))
					upload(held[i])
					held = slices.Delete(held, i, i+1)
				}
			} else if err := w.Commit(); err != nil {
				t.Fatalf("step %d (%s): %v", step, what, err)
			}
		}
		m.check(t, s, fmt.Sprintf("step %d (%s)", step, what))
	}
}

// TestReviewReplaceFailureUnchanged: a replacing commit whose SST cannot
// be written leaves the store as it was, and the next commit is not a
// replacing one.
func TestReviewReplaceFailureUnchanged(t *testing.T) {
	fs := &failCreateFS{FS: vfs.NewMem()}
	s := openIngesting(t, fs, "st")
	m := replaceModel{}
	w := s.NewSorted()
	w.Set("agg", 1, "p", []byte("a"), []byte("1"))
	w.Set("agg", 2, "s", []byte("a"), []byte("2"))
	m.set("agg", 1, "p", "a", "1")
	m.set("agg", 2, "s", "a", "2")
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Replace("agg", "")
	w.Set("agg", 1, "p", []byte("b"), []byte("3"))
	fs.fail = true
	if err := w.Commit(); err == nil {
		t.Fatal("commit with no room succeeded")
	}
	fs.fail = false
	m.check(t, s, "after a failed replace")
	w.Set("agg", 3, "p", []byte("c"), []byte("4"))
	m.set("agg", 3, "p", "c", "4")
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	m.check(t, s, "after the next commit")
}

// failIngestFS fails, while fail is set, every link and every creation
// of an SST in a DB directory: Pebble's ingestion of a file.
type failIngestFS struct {
	vfs.FS
	fail bool
}

var errInjected = errors.New("injected: ingest fails")

func (f *failIngestFS) Link(oldname, newname string) error {
	if f.fail {
		return errInjected
	}
	return f.FS.Link(oldname, newname)
}

func (f *failIngestFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if f.fail && strings.Contains(name, "/"+dbDir+"/") && strings.HasSuffix(name, ".sst") {
		return nil, errInjected
	}
	return f.FS.Create(name, cat)
}

// TestReviewReplaceIngestFailureUnchanged: a replacing commit whose
// ingestion fails (its SST written, Pebble unable to take it) leaves the
// store as it was, and a snapshot after it holds that.
func TestReviewReplaceIngestFailureUnchanged(t *testing.T) {
	fs := &failIngestFS{FS: vfs.NewMem()}
	s := openIngesting(t, fs, "st")
	m := replaceModel{}
	w := s.NewSorted()
	for i := range 20 {
		k := fmt.Sprint(i)
		w.Set("agg", uint16(i), "p", []byte(k), []byte(k))
		w.Set("agg", uint16(i), "s", []byte(k), []byte(k))
		m.set("agg", uint16(i), "p", k, k)
		m.set("agg", uint16(i), "s", k, k)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Replace("agg", "p")
	w.Set("agg", 3, "p", []byte("new"), []byte("x"))
	fs.fail = true
	_, err := s.SnapshotDelta(2, w)
	fs.fail = false
	if !errors.Is(err, errInjected) {
		t.Fatalf("replacing commit with failing ingestion: %v", err)
	}
	m.check(t, s, "after a failed ingestion")
	dst := newTarget(t, fs, "/storage")
	sn, err := s.SnapshotDelta(3, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(sn.deltas) != 0 {
		t.Errorf("the snapshot after a failed replacing commit has %d deltas", len(sn.deltas))
	}
	r := uploadRestore(t, fs, dst, sn, "restore")
	defer r.Close()
	m.check(t, r, "restored after a failed ingestion")
}

// TestReviewReplaceLeavesNoOlderFile: replace.go says the excised span
// holds every key of the store, so that every older file goes and none is
// cut into virtual SSTs. A spilled window's store holds range deletes
// (expire: Batch.DeletePrefix of a fired slice's "s" entries) that reach
// past its last live key, or start before its first; the span, made of
// live keys only, leaves them, and the files that hold them stay as
// virtual SSTs over their whole backing files, the replaced entries in
// them too, on disk and in every full snapshot's upload.
func TestReviewReplaceLeavesNoOlderFile(t *testing.T) {
	for _, c := range []struct {
		name string
		kg   uint16 // the key group of the spilled, then expired, slice
	}{{"after the last key", 9}, {"before the first key", 0}} {
		t.Run(c.name, func(t *testing.T) {
			fs := vfs.NewMem()
			s := openIngesting(t, fs, "st")
			b := s.NewBatch()
			for i := range 200 {
				b.Set("agg", c.kg, "s", []byte(fmt.Sprintf("\x80slice%04d", i)), make([]byte, 100))
				b.Set("agg", 5, "p", []byte(fmt.Sprintf("old%04d", i)), make([]byte, 100))
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			b = s.NewBatch()
			b.DeletePrefix("agg", c.kg, "s", []byte("\x80"))
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := s.db.Flush(); err != nil {
				t.Fatal(err)
			}
			w := s.NewSorted()
			w.Replace("agg", "p")
			w.Set("agg", 5, "p", []byte("new"), []byte("1"))
			sn, err := s.SnapshotDelta(1, w)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Discard()
			tables, err := s.db.SSTables()
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for level, ts := range tables {
				for _, x := range ts {
					left = append(left, fmt.Sprintf("L%d %s virtual=%v size=%d backing=%d", level, x.FileNum, x.Virtual, x.Size, x.BackingSSTNum))
				}
			}
			if len(left) != 1 {
				t.Errorf("after a replacing commit the store holds %d tables, want the replacing one alone:\n%s", len(left), strings.Join(left, "\n"))
			}
			// Pebble deletes obsolete files in the background: give it a
			// second.
			got := int64(s.db.Metrics().DiskSpaceUsage())
			for i := 0; i < 200 && got > 8<<10; i++ {
				time.Sleep(5 * time.Millisecond)
				got = int64(s.db.Metrics().DiskSpaceUsage())
			}
			if got > 8<<10 {
				t.Errorf("the store holds one live entry in %d bytes on disk", got)
			}
		})
	}
}
