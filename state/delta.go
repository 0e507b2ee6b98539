package state

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Delta snapshots. A store written by one ingested SST per checkpoint
// (a window aggregate's: Sorted) need not take a Pebble checkpoint at
// every checkpoint: the state at checkpoint n is the state of an earlier
// full snapshot, its base, plus the SSTs ingested since, in order. Such a
// snapshot (SnapshotDelta) keeps the SST it ingests, its delta, and
// reuses the base's directory, which the store keeps; its handle lists
// the base's files and then the deltas, as files named delta-<n>.sst,
// which a restore ingests in the handle's order into the base it opened
// (OpenHandle). A checkpoint so costs the SST of its changes, its ingest
// and its upload: no MANIFEST copy, no snapshot directory, no upload of a
// MANIFEST (a full snapshot's fixed cost, about 1.5 ms of CPU, which was
// most of a small checkpoint's).
//
// A snapshot is full, and becomes the next base, when the store has no
// base, when anything but a delta wrote to it since its base (a Batch: a
// spilled window; an ingest of a Cache's write-back), when maxDeltas
// deltas follow the base, or when they add up to more than half of the
// base's size: a restore copies and ingests them all.
const (
	maxDeltas  = 16
	deltaShare = 2 // the deltas of a base hold at most 1/deltaShare of its size
	deltaName  = "delta-"
)

// base is a full snapshot that later delta snapshots build on: its
// directory stays until the store and every snapshot that uses it let
// it go.
type base struct {
	dir  string
	size int64 // the DB's size on disk when it was taken
	// refs and put are guarded by the Store's mu. put holds where an
	// upload put the base's files that are not shared by name (its
	// MANIFEST), as shared files, so that later uploads reference them.
	refs int
	put  map[string]FileRef
}

// delta is an SST that a delta snapshot ingested, kept under the name
// it was written at until no snapshot uses it.
type delta struct {
	path string
	// db is the file's name in the DB's directory, "" if not known: a
	// later full snapshot holds it under that name, and its upload
	// reuses the delta's.
	db   string
	size int64
	seq  int // the store's number of the ingest: its name in a handle
	refs int // guarded by the Store's mu
}

// SnapshotDelta writes w's entries as one ingested SST, as Commit does,
// and takes the snapshot of checkpoint id: a delta snapshot (see above)
// if it may, else a full one, which becomes the base of the next. The
// caller must Upload or Discard it. Whether it succeeds or not, w is empty
// afterwards. If writing w fails, none of its writes is in the store; if
// the full snapshot after it fails, they are, as after a Commit and a
// failed Snapshot, and the next snapshot is full.
func (s *Store) SnapshotDelta(id int64, w *Sorted) (*Snapshot, error) {
	if w.s != s {
		return nil, fmt.Errorf("state: snapshot %d: the Sorted belongs to another store", id)
	}
	d, err := w.commit(true)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	full := s.base == nil || s.changed.Load() || len(s.deltas) >= maxDeltas
	if d != nil && !full {
		n := d.size
		for _, x := range s.deltas {
			n += x.size
		}
		full = n*deltaShare > s.base.size
	}
	if !full {
		if d != nil {
			d.refs = 1
			s.deltas = append(s.deltas, d)
		}
		sn := &Snapshot{s: s, id: id, dir: s.base.dir, base: s.base, deltas: append([]*delta(nil), s.deltas...)}
		sn.hold()
		s.mu.Unlock()
		return sn, nil
	}
	s.mu.Unlock()
	if d != nil {
		// In the DB like every other file of the full snapshot.
		if err := s.fs.Remove(d.path); err != nil {
			s.changed.Store(true)
			return nil, fmt.Errorf("state: snapshot %d: %w", id, err)
		}
	}
	// Cleared first: a write that comes after sets it for the next.
	s.changed.Store(false)
	sn, err := s.Snapshot(id)
	if err != nil {
		s.changed.Store(true)
		return nil, err
	}
	size := int64(s.db.Metrics().DiskSpaceUsage())
	s.mu.Lock()
	err = s.dropChain()
	s.base = &base{dir: sn.dir, size: size, refs: 1, put: map[string]FileRef{}}
	sn.base = s.base
	sn.hold()
	s.mu.Unlock()
	if err != nil {
		_ = sn.Discard()
		return nil, fmt.Errorf("state: snapshot %d: %w", id, err)
	}
	return sn, nil
}

// hold takes sn's references on its base and deltas. s.mu is held.
func (sn *Snapshot) hold() {
	sn.base.refs++
	for _, d := range sn.deltas {
		d.refs++
	}
}

// release lets go of sn's base and deltas, removing those no one else
// uses; once, however often it is called.
func (sn *Snapshot) release() error {
	s := sn.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if sn.released {
		return nil
	}
	sn.released = true
	return s.unref(sn.base, sn.deltas)
}

// errReleased is returned by an Upload or Export of a snapshot that was
// uploaded, exported or discarded before.
var errReleased = errors.New("the snapshot was uploaded or discarded already")

// live fails if sn was released.
func (sn *Snapshot) live() error {
	sn.s.mu.Lock()
	defer sn.s.mu.Unlock()
	if sn.released {
		return errReleased
	}
	return nil
}

// dropChain lets go of the store's base and deltas. s.mu is held.
func (s *Store) dropChain() error {
	err := s.unref(s.base, s.deltas)
	s.base, s.deltas = nil, nil
	return err
}

// unref drops a reference on b (if any) and on each of ds, removing
// what no one uses any more. s.mu is held.
func (s *Store) unref(b *base, ds []*delta) error {
	var err error
	keep := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	if b != nil {
		if b.refs--; b.refs == 0 {
			keep(s.fs.RemoveAll(b.dir))
		}
	}
	for _, d := range ds {
		if d.refs--; d.refs == 0 {
			keep(s.fs.Remove(d.path))
		}
	}
	return err
}

// deltaRef returns the handle's name of the delta numbered seq.
func deltaRef(seq int) string { return deltaName + strconv.Itoa(seq) + ".sst" }

// isDelta reports whether a handle's file named name is a delta.
func isDelta(name string) bool { return strings.HasPrefix(name, deltaName) }

// IsDelta reports whether f is a delta of a delta snapshot, which a
// restore ingests over the files before it.
func (f FileRef) IsDelta() bool { return isDelta(f.Name) }

// uploadDeltas appends to h the deltas of sn, in order, putting those
// storage does not hold yet.
func (sn *Snapshot) uploadDeltas(dst Target, h *Handle) error {
	for _, d := range sn.deltas {
		name := deltaRef(d.seq)
		key := d.db
		if key == "" {
			key = name
		}
		if r, ok := sn.s.reuse(sn.id, key, nil); ok && dst.HasShared(sn.id, r) {
			r.Name = name
			h.Files = append(h.Files, r)
			continue
		}
		ref, err := sn.putShared(dst, d.path, key)
		if err != nil {
			return err
		}
		ref.Shared = true
		sn.s.remember(sn.id, ref, nil)
		ref.Name = name
		h.Files = append(h.Files, ref)
		h.BytesUploaded += ref.Size
	}
	return nil
}

// putBase returns the reference of the base's file name (not shared by
// name: its MANIFEST) at path, putting it as a shared file the first
// time, so that the snapshots after reference it.
func (sn *Snapshot) putBase(dst Target, path, name string) (FileRef, bool, error) {
	s := sn.s
	s.mu.Lock()
	r, ok := sn.base.put[name]
	s.mu.Unlock()
	if ok && dst.HasShared(sn.id, r) {
		return r, false, nil
	}
	ref, err := copyOut(s.fs, path, name, func(r io.Reader) (string, error) { return dst.PutShared(sn.id, name, r) })
	if err != nil {
		return FileRef{}, false, err
	}
	ref.Shared = true
	s.mu.Lock()
	sn.base.put[name] = ref
	s.mu.Unlock()
	return ref, true, nil
}

// ingestedName returns the name in the DB of the file of size bytes
// that the last ingest linked in, if Pebble reported it: Pebble links an
// ingested file into its directory under a number of its own.
func (s *Store) ingestedName(size int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastIngest.size != size {
		return ""
	}
	return s.lastIngest.name
}

// openDeltas opens the DB in dir, a snapshot's files, and ingests the
// deltas at paths in order over it: the state of a delta snapshot. With
// no deltas it opens the DB read-only.
func openDeltas(fs vfs.FS, dir string, deltas []string) (*pebble.DB, error) {
	opts := options(fs, dir, len(deltas) == 0)
	if len(deltas) > 0 {
		// Read once, then thrown away: compacting the deltas into the
		// base would only cost time.
		opts.DisableAutomaticCompactions = true
		opts.L0CompactionThreshold, opts.L0StopWritesThreshold = l0Compaction, 4*l0Compaction
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	for _, p := range deltas {
		if err := db.Ingest(context.Background(), []string{p}); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return db, nil
}

// open opens the snapshot's state for reading: its own directory, or for
// a snapshot of a delta chain a copy of its base (SSTs linked) with its
// deltas ingested, which Close removes.
func (sn *Snapshot) open() (*exportDB, error) {
	fs := sn.s.fs
	// A base is shared: opening it in place would lock it (Pebble's
	// LOCK, which the in-memory snapshot directory grants once) against
	// another export of it, and leave the LOCK file in it.
	if sn.base == nil {
		db, err := openDeltas(fs, sn.dir, nil)
		if err != nil {
			return nil, err
		}
		return &exportDB{DB: db}, nil
	}
	dir := fs.PathJoin(sn.s.dir, exportPrefix+strconv.FormatInt(sn.id, 10))
	db, err := sn.copyOpen(dir)
	if err != nil {
		_ = fs.RemoveAll(dir)
		return nil, err
	}
	return &exportDB{DB: db, fs: fs, dir: dir}, nil
}

func (sn *Snapshot) copyOpen(dir string) (*pebble.DB, error) {
	fs := sn.s.fs
	if err := fs.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	names, err := fs.List(sn.dir)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		from, to := fs.PathJoin(sn.dir, name), fs.PathJoin(dir, name)
		if sf, ok := fs.(*snapFS); ok {
			if real, ok := sf.link(from); ok {
				if err := vfs.LinkOrCopy(fs, real, to); err != nil {
					return nil, err
				}
				continue
			}
		}
		if err := vfs.Copy(fs, from, to); err != nil {
			return nil, err
		}
	}
	paths := make([]string, len(sn.deltas))
	for i, d := range sn.deltas {
		paths[i] = fs.PathJoin(dir, deltaRef(d.seq))
		if err := vfs.LinkOrCopy(fs, d.path, paths[i]); err != nil {
			return nil, err
		}
	}
	return openDeltas(fs, dir, paths)
}

// exportDB is a DB that open opened, and the copy it removes on Close.
type exportDB struct {
	*pebble.DB
	fs  vfs.FS
	dir string
}

func (e *exportDB) Close() error {
	err := e.DB.Close()
	if e.dir != "" {
		if rerr := e.fs.RemoveAll(e.dir); err == nil {
			err = rerr
		}
	}
	return err
}
