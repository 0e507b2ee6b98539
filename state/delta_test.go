package state

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// deltaKGs and deltaNames span the key space of the delta tests: key
// groups at both ends and two that a rescale splits apart, and two state
// names, one a prefix of the other.
var (
	deltaKGs   = []uint16{0, 3, 40, 41, 0xffff}
	deltaNames = []string{"acc", "a"}
)

const deltaKeys = 60 // per key group and name: 600 entries in all

// deltaModel is the expected content of operator "agg" of a store, by
// encoded key.
type deltaModel map[string]entry

// model returns m in scan order.
func (m deltaModel) model() model {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(model, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// kvWriter is a Sorted or a Batch.
type kvWriter interface {
	Set(uid string, kg uint16, name string, key, value []byte)
	Delete(uid string, kg uint16, name string, key []byte)
}

// deltaWrites makes n random writes of round to w and m: sets of new and
// existing keys with values of about 200 bytes, and deletes, mostly of
// existing keys, so that a delta overrides and tombstones what its base
// holds. A key may be written several times; the last write wins.
func deltaWrites(rng *rand.Rand, w kvWriter, m deltaModel, round, n int) {
	for range n {
		kg := deltaKGs[rng.IntN(len(deltaKGs))]
		name := deltaNames[rng.IntN(len(deltaNames))]
		key := fmt.Sprintf("k%03d", rng.IntN(deltaKeys))
		k := string(encodeKey(nil, "agg", kg, name, []byte(key)))
		if rng.IntN(4) == 0 {
			w.Delete("agg", kg, name, []byte(key))
			delete(m, k)
			continue
		}
		v := fmt.Sprintf("r%d-%016x%s", round, rng.Uint64(), strings.Repeat(string(rune('a'+rng.IntN(26))), 180))
		w.Set("agg", kg, name, []byte(key), []byte(v))
		m[k] = entry{"agg", kg, name, key, v}
	}
}

// fillAll sets every key of the key space, for round 0.
func fillAll(w kvWriter, m deltaModel) {
	for _, kg := range deltaKGs {
		for _, name := range deltaNames {
			for i := range deltaKeys {
				key := fmt.Sprintf("k%03d", i)
				v := fmt.Sprintf("r0-%d-%s-%s", kg, name, strings.Repeat("x", 190))
				w.Set("agg", kg, name, []byte(key), []byte(v))
				m[string(encodeKey(nil, "agg", kg, name, []byte(key)))] = entry{"agg", kg, name, key, v}
			}
		}
	}
}

// deltaRanges are the scans a restore is checked with: the whole state,
// the key-group ranges of two subtasks after a rescale, and one name.
var deltaRanges = []struct {
	lo, hi uint16
	name   string
}{{0, 0xffff, ""}, {0, 40, ""}, {41, 0xffff, ""}, {3, 3, ""}, {0, 0xffff, "a"}}

// checkRestore opens h from src at dir and checks it against want.
func checkRestore(t *testing.T, fs vfs.FS, src Source, h Handle, dir string, want model, what string) {
	t.Helper()
	r, err := OpenHandle(fs, src, h, dir)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer func() {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	for _, c := range deltaRanges {
		got, w := scanAll(t, r, "agg", c.lo, c.hi, c.name), want.scan("agg", c.lo, c.hi, c.name)
		if !slices.Equal(got, w) {
			i := 0
			for i < min(len(got), len(w)) && got[i] == w[i] {
				i++
			}
			t.Fatalf("%s: key groups %d-%d, name %q: %d entries, want %d; first difference at %d:\n got %.200q\nwant %.200q", what, c.lo, c.hi, c.name, len(got), len(w), i, got[i:], w[i:])
		}
	}
}

// deltasOf returns the delta files of h, checking that they come after
// every file of its base, in the order they were ingested.
func deltasOf(t *testing.T, h Handle, what string) []FileRef {
	t.Helper()
	var ds []FileRef
	last := -1
	for _, f := range h.Files {
		if !isDelta(f.Name) {
			if len(ds) > 0 {
				t.Fatalf("%s: base file %s listed after delta %s", what, f.Name, ds[len(ds)-1].Name)
			}
			continue
		}
		var seq int
		if _, err := fmt.Sscanf(f.Name, deltaName+"%d.sst", &seq); err != nil || f.Name != deltaRef(seq) {
			t.Fatalf("%s: delta named %q", what, f.Name)
		}
		if seq <= last {
			t.Fatalf("%s: delta %s listed after %s", what, f.Name, deltaRef(last))
		}
		if !f.Shared {
			t.Fatalf("%s: delta %s is not shared", what, f.Name)
		}
		last = seq
		ds = append(ds, f)
	}
	return ds
}

// manifestOf returns h's MANIFEST.
func manifestOf(t *testing.T, h Handle, what string) FileRef {
	t.Helper()
	for _, f := range h.Files {
		if strings.HasPrefix(f.Name, "MANIFEST-") {
			return f
		}
	}
	t.Fatalf("%s: no MANIFEST in %v", what, h.Files)
	return FileRef{}
}

func openIngesting(t *testing.T, fs vfs.FS, dir string) *Store {
	t.Helper()
	s, err := OpenIngesting(fs, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// deltaFS returns the file systems the delta tests run on, each with a
// root directory: the disk, where Pebble's ingestion links files, and
// memory.
func deltaFS(t *testing.T) []struct {
	name string
	fs   vfs.FS
	root func() string
} {
	return []struct {
		name string
		fs   vfs.FS
		root func() string
	}{
		{"disk", vfs.Default, t.TempDir},
		{"mem", vfs.NewMem(), func() string { return "/" }},
	}
}

// TestDeltaModel takes 60 checkpoints of an ingesting store, each one
// Sorted of random writes and SnapshotDelta, with Batch writes now and
// then, a round without writes and a round large enough to outgrow the
// half-base rule, uploads each, and then restores every one of them and
// compares it, whole and by key-group range, with what the store held
// at its snapshot. It checks which snapshots are full (the first, one
// after a Batch, one after 16 deltas, one whose deltas would outgrow
// half the base) and which are deltas (every other), that a delta
// snapshot uploads its new SST alone, and that a chain's handles share
// the base's MANIFEST.
func TestDeltaModel(t *testing.T) {
	for _, c := range deltaFS(t) {
		t.Run(c.name, func(t *testing.T) { deltaModelTest(t, c.fs, c.root(), OpenIngesting, true) })
	}
	// A store that compacts L0 early: the DB's names of the deltas'
	// SSTs go away while the chain still lists them. Its SSTs are
	// compressed, so which snapshots the half-base rule makes full is
	// not the ingesting store's (exact false).
	t.Run("compacting", func(t *testing.T) { deltaModelTest(t, vfs.Default, t.TempDir(), Open, false) })
}

// deltaModelTest runs the model test on a store that open opens in
// root; with exact, it also checks the round of every full snapshot.
func deltaModelTest(t *testing.T, fs vfs.FS, root string, open func(vfs.FS, string) (*Store, error), exact bool) {
	const (
		rounds = 60
		seed   = 42
	)
	var (
		batchBefore = map[int]bool{25: true, 55: true} // a Batch, then the round's Sorted
		batchAfter  = map[int]bool{44: true}           // a Batch after the round's snapshot
		large       = map[int]bool{33: true}           // a delta larger than half the base
		empty       = map[int]bool{20: true}           // a Sorted with no writes
	)
	rng := rand.New(rand.NewPCG(seed, 7))
	s, err := open(fs, fs.PathJoin(root, "store"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dst := newTarget(t, fs, fs.PathJoin(root, "storage"))
	m := deltaModel{}
	w := s.NewSorted()
	var (
		handles  []Handle
		models   []model
		chain    int // deltas in the previous handle
		baseMF   FileRef
		nDelta   int
		maxChain int
	)
	for r := range rounds {
		id := int64(r + 1)
		what := fmt.Sprintf("round %d", r)
		batched := batchBefore[r] || batchAfter[r-1]
		if batchBefore[r] {
			b := s.NewBatch()
			deltaWrites(rng, b, m, r, 8)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		switch {
		case r == 0:
			fillAll(w, m)
		case large[r]:
			deltaWrites(rng, w, m, r, 1500)
		case empty[r]:
		default:
			deltaWrites(rng, w, m, r, 1+rng.IntN(6))
		}
		sn, err := s.SnapshotDelta(id, w)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if w.Len() != 0 {
			t.Fatalf("%s: the Sorted holds %d writes after SnapshotDelta", what, w.Len())
		}
		if sn.base == nil {
			t.Fatalf("%s: SnapshotDelta's snapshot has no base", what)
		}
		var deltaBytes int64
		for _, d := range sn.deltas {
			deltaBytes += d.size
		}
		if len(sn.deltas) > 0 && deltaBytes*deltaShare > sn.base.size {
			t.Fatalf("%s: %d deltas of %d bytes over a base of %d", what, len(sn.deltas), deltaBytes, sn.base.size)
		}
		want := m.model()
		if batchAfter[r] {
			b := s.NewBatch()
			deltaWrites(rng, b, m, r+1000, 8) // in the next round's state, not this one's
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		h, err := sn.Upload(dst)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		ds := deltasOf(t, h, what)
		full := len(ds) == 0
		if len(ds) != len(sn.deltas) {
			t.Fatalf("%s: handle lists %d deltas, the snapshot has %d", what, len(ds), len(sn.deltas))
		}
		// Whether the large delta is larger than half the base depends,
		// in a compacting store, on how much of the base Pebble had
		// compacted: the half-base rule itself is checked above.
		mustFull := r == 0 || batched || chain == maxDeltas || large[r] && exact
		switch {
		case mustFull && !full:
			t.Fatalf("%s: a delta snapshot (%d deltas after %d); want a full one", what, len(ds), chain)
		case exact && !mustFull && full:
			t.Fatalf("%s: a full snapshot after %d deltas; want a delta", what, chain)
		case !full && len(ds) > maxDeltas:
			t.Fatalf("%s: %d deltas, at most %d", what, len(ds), maxDeltas)
		case !full && !empty[r] && len(ds) != chain+1:
			t.Fatalf("%s: %d deltas after %d", what, len(ds), chain)
		case empty[r] && len(ds) != chain:
			t.Fatalf("%s: no writes, %d deltas after %d", what, len(ds), chain)
		}
		mf := manifestOf(t, h, what)
		if full {
			baseMF = mf
		} else {
			nDelta++
			maxChain = max(maxChain, len(ds))
			if mf != baseMF || !mf.Shared {
				t.Fatalf("%s: MANIFEST %+v, the base's %+v", what, mf, baseMF)
			}
			// A delta snapshot puts its new SST and nothing else.
			var put int64
			if !empty[r] {
				put = ds[len(ds)-1].Size
			}
			if h.BytesUploaded != put {
				t.Fatalf("%s: uploaded %d bytes, want the new delta's %d", what, h.BytesUploaded, put)
			}
		}
		chain = len(ds)
		handles, models = append(handles, h), append(models, want)
	}
	if nDelta < rounds/2 || nDelta == rounds {
		t.Fatalf("%d of %d snapshots were deltas", nDelta, rounds)
	}
	if n := s.db.Metrics().Compact.Count; !exact && n == 0 {
		t.Fatalf("%d deltas, no compaction: the test needs compactions", nDelta)
	}
	if exact && maxChain != maxDeltas {
		t.Fatalf("the longest chain has %d deltas, want the cap of %d", maxChain, maxDeltas)
	}
	for i, h := range handles {
		checkRestore(t, fs, dst, h, fs.PathJoin(root, "restore"), models[i], fmt.Sprintf("restore of checkpoint %d", i+1))
	}
}

// deltaStore is an ingesting store taking delta snapshots of random
// writes, and the expected state of each.
type deltaStore struct {
	s      *Store
	w      *Sorted
	m      deltaModel
	rng    *rand.Rand
	closed bool
}

func newDeltaStore(t *testing.T, fs vfs.FS, dir string) *deltaStore {
	s, err := OpenIngesting(fs, dir)
	if err != nil {
		t.Fatal(err)
	}
	d := &deltaStore{s: s, w: s.NewSorted(), m: deltaModel{}, rng: rand.New(rand.NewPCG(1, 2))}
	t.Cleanup(func() {
		if !d.closed {
			d.s.Close()
		}
	})
	return d
}

// close closes the store, which Pebble allows once.
func (d *deltaStore) close(t *testing.T) {
	t.Helper()
	d.closed = true
	if err := d.s.Close(); err != nil {
		t.Fatal(err)
	}
}

// closeClean closes the store and checks that its directory holds the
// DB alone: no delta, snapshot directory or link left behind.
func (d *deltaStore) closeClean(t *testing.T) {
	t.Helper()
	d.close(t)
	if left := storeLeft(t, d.s); !slices.Equal(left, []string{dbDir}) {
		t.Fatalf("closed, the store's directory holds %q; want %q", left, []string{dbDir})
	}
}

// newTarget returns checkpoint storage in a new directory root on fs.
func newTarget(t *testing.T, fs vfs.FS, root string) *dirTarget {
	t.Helper()
	if err := fs.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return &dirTarget{fs: fs, root: root}
}

// take writes a round (all keys for id 1) and takes its snapshot.
func (d *deltaStore) take(t *testing.T, id int64) *Snapshot {
	t.Helper()
	if id == 1 {
		fillAll(d.w, d.m)
	} else {
		deltaWrites(d.rng, d.w, d.m, int(id), 1+d.rng.IntN(6))
	}
	sn, err := d.s.SnapshotDelta(id, d.w)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// snapshot writes a round (all keys for id 1) and takes its snapshot,
// which must be full or a delta as full says; it returns the snapshot
// and the state it holds.
func (d *deltaStore) snapshot(t *testing.T, id int64, full bool) (*Snapshot, model) {
	t.Helper()
	sn := d.take(t, id)
	if got := len(sn.deltas) == 0; got != full {
		t.Fatalf("snapshot %d: full %v, want %v (%d deltas)", id, got, full, len(sn.deltas))
	}
	return sn, d.m.model()
}

// storeLeft lists what the store's directory holds, on disk and among
// its in-memory snapshot directories, and the links those still hold.
func storeLeft(t *testing.T, s *Store) []string {
	t.Helper()
	sf := s.fs.(*snapFS)
	names, err := sf.FS.List(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	if mem, err := sf.mem.List(s.dir); err == nil {
		for _, n := range mem {
			names = append(names, "mem:"+n)
		}
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	for l := range sf.links {
		names = append(names, "link:"+l)
	}
	for f := range sf.doomed {
		names = append(names, "doomed:"+f)
	}
	slices.Sort(names)
	return names
}

// TestDeltaUploadOrder takes a full snapshot and five deltas before it
// uploads any, then uploads them newest first (two at once), discards
// one in the middle before the newer ones that list its SST are
// uploaded, takes another delta in between, and a new base (after a
// Batch) and a delta on it, whose base it discards, while the old
// chain's snapshots wait, and closes the store before the oldest are
// uploaded: every uploaded handle restores to the state
// of its snapshot, and once all are uploaded or discarded the store's
// directory holds the DB alone: no delta SST, no snapshot directory, no
// link a snapshot held.
func TestDeltaUploadOrder(t *testing.T) {
	for _, c := range deltaFS(t) {
		t.Run(c.name, func(t *testing.T) {
			fs, root := c.fs, c.root()
			d := newDeltaStore(t, fs, fs.PathJoin(root, "store"))
			dst := newTarget(t, fs, fs.PathJoin(root, "storage"))
			sns := map[int64]*Snapshot{}
			models := map[int64]model{}
			for id := int64(1); id <= 6; id++ {
				sns[id], models[id] = d.snapshot(t, id, id == 1)
			}
			handles := map[int64]Handle{}
			var mu sync.Mutex
			upload := func(ids ...int64) {
				t.Helper()
				var wg sync.WaitGroup
				errs := make([]error, len(ids))
				for i, id := range ids {
					wg.Go(func() {
						h, err := sns[id].Upload(dst)
						mu.Lock()
						handles[id], errs[i] = h, err
						mu.Unlock()
					})
				}
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					t.Fatal(err)
				}
			}
			upload(6)
			if err := sns[4].Discard(); err != nil {
				t.Fatal(err)
			}
			sns[7], models[7] = d.snapshot(t, 7, false)
			if n := len(sns[7].deltas); n != 6 {
				t.Fatalf("snapshot 7 has %d deltas, want 6", n)
			}
			// A Batch: the next snapshot is full, a new base, while
			// snapshots of the old one are still to be uploaded.
			b := d.s.NewBatch()
			deltaWrites(d.rng, b, d.m, 8, 5)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			sns[8], models[8] = d.snapshot(t, 8, true)
			sns[9], models[9] = d.snapshot(t, 9, false)
			if n := len(sns[9].deltas); n != 1 {
				t.Fatalf("snapshot 9 has %d deltas, want 1", n)
			}
			upload(7, 5)
			upload(9)
			if err := sns[8].Discard(); err != nil {
				t.Fatal(err)
			}
			upload(3)
			d.close(t)
			left := storeLeft(t, d.s)
			if !slices.ContainsFunc(left, func(n string) bool { return strings.HasPrefix(n, deltaName) }) {
				t.Fatalf("closed with snapshots 1 and 2 not uploaded, the store holds %q: no delta left for 2", left)
			}
			upload(2, 1)
			for _, id := range []int64{1, 2, 3, 5, 6, 7, 9} {
				checkRestore(t, fs, dst, handles[id], fs.PathJoin(root, "restore"), models[id], fmt.Sprintf("checkpoint %d", id))
			}
			if left := storeLeft(t, d.s); !slices.Equal(left, []string{dbDir}) {
				t.Fatalf("after every snapshot was uploaded or discarded and the store closed, its directory holds %q; want %q", left, []string{dbDir})
			}
		})
	}
}

// exported exports operator "agg" of sn to a new file and reads it back.
func exported(t *testing.T, sn *Snapshot) []string {
	t.Helper()
	got, err := readAll(exportOf(t, sn), 0, 0xffff, "")
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestDeltaExport exports a full snapshot and, later, a delta snapshot
// (as a savepoint does, instead of uploading them): each export holds the
// state of its snapshot, the delta's copy of base and deltas (export-<id>)
// is gone afterwards, and the chain goes on: the next delta snapshot
// lists the exported one's SST and restores to its state.
func TestDeltaExport(t *testing.T) {
	for _, c := range deltaFS(t) {
		t.Run(c.name, func(t *testing.T) {
			fs, root := c.fs, c.root()
			d := newDeltaStore(t, fs, fs.PathJoin(root, "store"))
			dst := newTarget(t, fs, fs.PathJoin(root, "storage"))
			sn, want := d.snapshot(t, 1, true)
			if got := exported(t, sn); !slices.Equal(got, want.scan("agg", 0, 0xffff, "")) {
				t.Fatalf("export of full snapshot 1: %d entries, want %d", len(got), len(want))
			}
			handles := map[int64]Handle{}
			models := map[int64]model{}
			for id := int64(2); id <= 3; id++ {
				sn, models[id] = d.snapshot(t, id, false)
				h, err := sn.Upload(dst)
				if err != nil {
					t.Fatal(err)
				}
				handles[id] = h
			}
			sn, want = d.snapshot(t, 4, false)
			if len(sn.deltas) != 3 {
				t.Fatalf("snapshot 4 has %d deltas, want 3", len(sn.deltas))
			}
			got := exported(t, sn)
			if w := want.scan("agg", 0, 0xffff, ""); !slices.Equal(got, w) {
				t.Fatalf("export of delta snapshot 4: %d entries, want %d\n got %.300q\nwant %.300q", len(got), len(w), got, w)
			}
			if left := storeLeft(t, d.s); slices.ContainsFunc(left, func(n string) bool { return strings.Contains(n, exportPrefix) }) {
				t.Fatalf("after Export the store holds %q", left)
			}
			sn, models[5] = d.snapshot(t, 5, false)
			if len(sn.deltas) != 4 {
				t.Fatalf("snapshot 5 has %d deltas, want 4", len(sn.deltas))
			}
			h, err := sn.Upload(dst)
			if err != nil {
				t.Fatal(err)
			}
			handles[5] = h
			for _, id := range []int64{2, 3, 5} {
				checkRestore(t, fs, dst, handles[id], fs.PathJoin(root, "restore"), models[id], fmt.Sprintf("checkpoint %d", id))
			}
			d.closeClean(t)
		})
	}
}

// TestDeltaCorrupt damages each delta of a handle in storage, a byte
// flipped, then the file gone: OpenHandle fails with ErrCorrupt naming
// the delta's path, and restores again once the file is back.
func TestDeltaCorrupt(t *testing.T) {
	fs := vfs.NewMem()
	d := newDeltaStore(t, fs, "/store")
	dst := newTarget(t, fs, "/storage")
	var (
		h    Handle
		want model
	)
	for id := int64(1); id <= 3; id++ {
		sn, m := d.snapshot(t, id, id == 1)
		var err error
		if h, err = sn.Upload(dst); err != nil {
			t.Fatal(err)
		}
		want = m
	}
	ds := deltasOf(t, h, "checkpoint 3")
	if len(ds) != 2 {
		t.Fatalf("checkpoint 3 lists %d deltas, want 2", len(ds))
	}
	for _, f := range ds {
		path := fs.PathJoin(dst.root, f.Path)
		good, err := readSmall(fs, path)
		if err != nil {
			t.Fatal(err)
		}
		put := func(b []byte) {
			w, err := fs.Create(path, vfs.WriteCategoryUnspecified)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(b); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		bad := bytes.Clone(good)
		bad[len(bad)/2] ^= 0x10
		put(bad)
		_, err = OpenHandle(fs, dst, h, "/restore")
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.Path) || !strings.Contains(err.Error(), "checksum mismatch") {
			t.Fatalf("%s with a byte flipped: OpenHandle = %v, want ErrCorrupt naming %s", f.Name, err, f.Path)
		}
		if err := fs.Remove(path); err != nil {
			t.Fatal(err)
		}
		_, err = OpenHandle(fs, dst, h, "/restore")
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.Path) || !strings.Contains(err.Error(), "missing") {
			t.Fatalf("%s missing: OpenHandle = %v, want ErrCorrupt naming %s", f.Name, err, f.Path)
		}
		if _, err := fs.Stat("/restore"); err == nil {
			t.Fatal("a failed OpenHandle left its directory behind")
		}
		put(good)
	}
	checkRestore(t, fs, dst, h, "/restore", want, "checkpoint 3 repaired")
}

// failOptionsFS fails every Open of an OPTIONS file while fail is set:
// Pebble reads the DB's to copy it into a checkpoint, so a full
// snapshot fails after its Sorted was ingested.
type failOptionsFS struct {
	vfs.FS
	fail bool
}

func (f *failOptionsFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	if f.fail && strings.Contains(f.PathBase(name), "OPTIONS-") {
		return nil, errors.New("injected: read error")
	}
	return f.FS.Open(name, opts...)
}

// TestDeltaFailureThenFull: a full snapshot that fails after the Sorted
// was ingested (here Pebble's checkpoint cannot read OPTIONS) leaves the
// writes in the store, as a Commit and a failed Snapshot did, and the
// Sorted empty; the next snapshot is full, so no checkpoint lacks them.
func TestDeltaFailureThenFull(t *testing.T) {
	fs := &failOptionsFS{FS: vfs.NewMem()}
	s := openIngesting(t, fs, "/store")
	w := s.NewSorted()
	w.Set("agg", 1, "acc", []byte("k"), []byte("v"))
	fs.fail = true
	sn, err := s.SnapshotDelta(1, w)
	fs.fail = false
	if err == nil {
		sn.Discard()
		t.Fatal("SnapshotDelta succeeded though its checkpoint could not read OPTIONS")
	}
	if w.Len() != 0 {
		t.Fatalf("the Sorted holds %d writes after a failed SnapshotDelta", w.Len())
	}
	sn, err = s.SnapshotDelta(2, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(sn.deltas) != 0 {
		t.Fatalf("the snapshot after a failed full one has %d deltas, want a full one", len(sn.deltas))
	}
	dst := newTarget(t, fs.FS, "/storage")
	h, err := sn.Upload(dst)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenHandle(fs.FS, dst, h, "/restore")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := scanAll(t, r, "agg", 0, 10, ""); len(got) != 1 {
		t.Fatalf("restored %v, want the one write", got)
	}
}

// failTarget is a dirTarget whose PutShared fails while fail is set.
type failTarget struct {
	*dirTarget
	fail bool
}

func (f *failTarget) PutShared(id int64, name string, r io.Reader) (string, error) {
	if f.fail {
		return "", errors.New("injected: storage unavailable")
	}
	return f.dirTarget.PutShared(id, name, r)
}

// TestDeltaUploadFails fails the upload of a full snapshot (so the base's
// files never reach storage) and of a delta snapshot (so its delta never
// does): the snapshots after them upload what those failed to put, and
// restore to their state.
func TestDeltaUploadFails(t *testing.T) {
	fs := vfs.NewMem()
	d := newDeltaStore(t, fs, "/store")
	dst := &failTarget{dirTarget: &dirTarget{fs: fs, root: "/storage"}}
	if err := fs.MkdirAll(dst.root, 0o755); err != nil {
		t.Fatal(err)
	}
	for id := int64(1); id <= 5; id++ {
		sn, want := d.snapshot(t, id, id == 1)
		dst.fail = id == 1 || id == 3
		h, err := sn.Upload(dst)
		if dst.fail {
			if err == nil {
				t.Fatalf("upload %d succeeded on failing storage", id)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		checkRestore(t, fs, dst, h, "/restore", want, fmt.Sprintf("checkpoint %d", id))
	}
	d.closeClean(t)
}

// TestDeltaConcurrentUpload takes 40 snapshots, a Batch now and then
// making one full, while a goroutine uploads them (every seventh it
// discards) as a job's background uploads do: each uploaded handle
// restores to its snapshot's state, and the store's directory ends with
// the DB alone. Run it with -race.
func TestDeltaConcurrentUpload(t *testing.T) {
	fs := vfs.NewMem()
	d := newDeltaStore(t, fs, "/store")
	dst := newTarget(t, fs, "/storage")
	type job struct {
		id int64
		sn *Snapshot
	}
	jobs := make(chan job, 8)
	handles := map[int64]Handle{}
	var (
		wg   sync.WaitGroup
		uerr error
	)
	wg.Go(func() {
		for j := range jobs {
			if j.id%7 == 0 {
				if err := j.sn.Discard(); err != nil && uerr == nil {
					uerr = err
				}
				continue
			}
			h, err := j.sn.Upload(dst)
			if err != nil && uerr == nil {
				uerr = err
			}
			handles[j.id] = h
		}
	})
	models := map[int64]model{}
	for id := int64(1); id <= 40; id++ {
		if id%9 == 0 {
			b := d.s.NewBatch()
			deltaWrites(d.rng, b, d.m, int(id), 4)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		sn, m := d.snapshot(t, id, id == 1 || id%9 == 0)
		models[id] = m
		jobs <- job{id, sn}
	}
	close(jobs)
	wg.Wait()
	if uerr != nil {
		t.Fatal(uerr)
	}
	for id, h := range handles {
		checkRestore(t, fs, dst, h, "/restore", models[id], fmt.Sprintf("checkpoint %d", id))
	}
	d.closeClean(t)
}
