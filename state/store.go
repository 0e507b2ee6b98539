package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Store is the keyed state of one operator subtask: a Pebble DB in a local
// working directory. Its methods may be called from several goroutines; a
// Batch belongs to one.
type Store struct {
	fs   vfs.FS
	dir  string
	db   *pebble.DB
	opts *pebble.Options

	mu sync.Mutex
	// uploaded maps the name of each shared file that an upload put into
	// checkpoint storage to where it went, so that later checkpoints
	// reference it instead of copying it again. Pebble never reuses an SST
	// or blob file name within a DB, and the DB lives no longer than the
	// Store, so for those a name is the file's identity here; an OPTIONS
	// file or a marker is the same only with the same bytes (byContent).
	uploaded map[string]upload
	// ingests numbers the SSTs that Sorted writes for ingestion.
	ingests int
	// written is set by every Batch commit and cleared by Snapshot: a
	// memtable into which nothing was written since the last Snapshot
	// (a store written by ingested SSTs alone) is not flushed, which
	// would cost a new memtable and an edit to the MANIFEST that every
	// later snapshot copies.
	written atomic.Bool
	// changed is set by every write that no delta holds (a Batch commit,
	// an ingest but SnapshotDelta's) and cleared by SnapshotDelta's full
	// snapshots: the next must be full too.
	changed atomic.Bool
	// lastIngest is the DB's name and the size of the SST the last
	// ingest linked in, as Pebble reports it (tableIngested); ingestMu
	// makes ingests one at a time.
	lastIngest ingested
	ingestMu   sync.Mutex
	// base and deltas are the chain that the next delta snapshot extends
	// (delta.go).
	base   *base
	deltas []*delta
}

type upload struct {
	ref  FileRef
	last int64 // newest snapshot that referenced ref
	// content is the bytes of a file uploaded by content (byContent).
	content []byte
}

// dbDir, snapPrefix and exportPrefix name the children of a Store's
// directory: the Pebble DB, one snap-<id> directory per snapshot not yet
// uploaded or kept as a base (delta.go), and one export-<id> directory per
// savepoint export of a delta snapshot. The SSTs that delta snapshots keep
// are there too, as delta-<n>.sst.
const (
	dbDir        = "db"
	snapPrefix   = "snap-"
	exportPrefix = "export-"
)

// Open creates an empty Store in dir on fs. dir is local scratch, not
// checkpoint storage: the DB has no write-ahead log, and state that must
// survive the process is in checkpoints. So Open first removes the DB and
// any snapshots that an earlier process left in dir, whose contents are
// ahead of or behind every checkpoint; a restore then fills the new Store
// from a checkpoint.
func Open(fs vfs.FS, dir string) (*Store, error) { return open(fs, dir, false) }

// OpenIngesting is Open for a store written mostly by one ingested SST
// per checkpoint that spans its key groups (Sorted), as a window
// aggregate's is: such an SST lands in L0 over the whole state, so the
// store compacts L0 only at 128 sublevels instead of 2, and does not
// compress its SSTs (see the package doc). A store read by point lookups
// (a join's) keeps Open's shallow L0.
func OpenIngesting(fs vfs.FS, dir string) (*Store, error) { return open(fs, dir, true) }

func open(fs vfs.FS, dir string, ingesting bool) (*Store, error) {
	fs = scratchFS{FS: fs, sums: newFileSums()}
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	names, err := fs.List(dir)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	for _, n := range names {
		if n == dbDir || strings.HasPrefix(n, snapPrefix) || strings.HasPrefix(n, "ingest-") || strings.HasPrefix(n, deltaName) || strings.HasPrefix(n, exportPrefix) {
			if err := fs.RemoveAll(fs.PathJoin(dir, n)); err != nil {
				return nil, fmt.Errorf("state: %w", err)
			}
		}
	}
	fs = newSnapFS(fs, dir)
	opts := options(fs, fs.PathJoin(dir, dbDir), false)
	if ingesting {
		opts.L0CompactionThreshold, opts.L0StopWritesThreshold = l0Compaction, 4*l0Compaction
		opts.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionNone })
	}
	s := &Store{fs: fs, dir: dir, opts: opts, uploaded: map[string]upload{}}
	opts.EventListener.TableIngested = s.tableIngested
	opts.EnsureDefaults()
	db, err := pebble.Open(fs.PathJoin(dir, dbDir), opts)
	if err != nil {
		return nil, fmt.Errorf("state: open %s: %w", dir, err)
	}
	s.db = db
	return s, nil
}

type ingested struct {
	name string
	size int64
}

// tableIngested records the DB's name of an SST ingested alone.
func (s *Store) tableIngested(info pebble.TableIngestInfo) {
	if info.Err != nil || len(info.Tables) != 1 {
		return
	}
	t := info.Tables[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastIngest = ingested{name: fmt.Sprintf("%06d.sst", uint64(t.FileNum)), size: int64(t.Size)}
}

// options are the Pebble options of every Store and Reader, for the DB in
// dir on fs. A Reader opens the files a Store's checkpoint holds, so both
// must agree on everything that Pebble records in OPTIONS (the comparer
// above all).
func options(fs vfs.FS, dir string, readOnly bool) *pebble.Options {
	log := newLogger(fs, dir)
	opts := &pebble.Options{
		FS: paced{FS: fs, log: log},
		// One block cache for every Store of the process, so that its
		// memory is bounded however many stores a job opens.
		Cache: blockCache(),
		// Commits are unsynced and the WAL is off, so a larger memtable
		// only means fewer, larger flushes (and L0 files) between
		// checkpoints. Pebble starts each memtable at 256 KiB and doubles
		// it up to this as writes come, so an idle store stays small.
		MemTableSize: memTable,
		// Durability comes from checkpoints: a commit need not reach the
		// disk, and Snapshot flushes memtables before it links files.
		DisableWAL:    true,
		ReadOnly:      readOnly,
		Logger:        log,
		EventListener: log.listener(),
		// Every checkpoint copies the MANIFEST, which grows by an edit
		// per flush, ingestion and compaction until Pebble rotates it:
		// rotate it small, so that a long job's checkpoints stay small.
		MaxManifestFileSize: 4 << 10,
	}
	// Joins, Top-N and group aggregates look up keys that were never
	// written, row after row: a bloom filter on every level (L0 has
	// none by default) answers most of those without reading a block.
	for i := range opts.Levels {
		opts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	return opts
}

// blockCacheSize and memTable bound a Store's memory outside managed
// memory (see the package doc): the block cache is the process's, the
// memtables are each Store's (at most two at once, one flushing).
const (
	blockCacheSize = 64 << 20
	memTable       = 16 << 20
)

// blockCache is the block cache every Store and Reader shares. It lives
// as long as the process: each DB takes its own reference, and this one
// is never released.
var blockCache = sync.OnceValue(func() *pebble.Cache { return pebble.NewCache(blockCacheSize) })

// l0Compaction is an ingesting store's L0CompactionThreshold
// (OpenIngesting): each checkpoint adds a file that overlaps the state,
// and compacting L0 rewrites the state below it, so compacting after a
// few such files would rewrite the whole state every few checkpoints. Its
// reads (restores, spilled windows) merge more files instead. Pebble
// compacts L0 once its sublevels reach half the threshold (its L0 score is
// twice the depth over the threshold), so 256 compacts at 128 sublevels,
// which a window's store never reaches unless it spilled: the window
// replaces its state before (MaxIngested).
const l0Compaction = 256

// MaxIngested is how many ingested SSTs an ingesting store stacks over
// its state before Pebble compacts them into it: a writer that replaces
// its state at least that often (Sorted.Replace) spares the store that
// compaction.
const MaxIngested = l0Compaction / 2

// DiskUsage is the size in bytes of the store's files on disk, as Pebble
// counts them (tables, logs, manifests).
func (s *Store) DiskUsage() int64 { return int64(s.db.Metrics().DiskSpaceUsage()) }

// Sizes is the store's state in bytes: in its memtables (memory) and in
// its files (Pebble's disk space: tables, logs, manifests).
func (s *Store) Sizes() (memory, disk int64) {
	m := s.db.Metrics()
	return int64(m.MemTable.Size), int64(m.DiskSpaceUsage())
}

// Close closes the DB and lets go of its delta chain (snapshots not yet
// uploaded keep theirs). It leaves the directory in place.
func (s *Store) Close() error {
	s.mu.Lock()
	err := s.dropChain()
	s.mu.Unlock()
	if cerr := s.db.Close(); cerr != nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("state: close %s: %w", s.dir, err)
	}
	return nil
}

// Batch collects writes that Commit applies atomically.
type Batch struct {
	s   *Store
	b   *pebble.Batch
	buf []byte
	val []byte // Get's copy of a value
	err error
}

// NewBatch returns an empty batch.
func (s *Store) NewBatch() *Batch {
	return &Batch{s: s, b: s.db.NewBatch()}
}

// NewIndexedBatch returns an empty batch whose Get and ScanPrefix read
// its own uncommitted writes over the store's committed state: for an
// operator that updates an entry and reads it again before it commits,
// as a join updating a row's match count row by row.
func (s *Store) NewIndexedBatch() *Batch {
	return &Batch{s: s, b: s.db.NewIndexedBatch()}
}

// Get returns the value of key as b and the store hold it, and whether it
// exists, in an indexed batch (NewIndexedBatch). The value is valid until
// the batch's next write or commit.
func (b *Batch) Get(uid string, kg uint16, name string, key []byte) (value []byte, ok bool, err error) {
	b.buf = encodeKey(b.buf[:0], uid, kg, name, key)
	v, closer, err := b.b.Get(b.buf)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state: get: %w", err)
	}
	b.val = append(b.val[:0], v...)
	return b.val, true, closer.Close()
}

// ScanPrefix calls fn, in key order, for each entry of state name in key
// group kg of operator uid whose key starts with prefix, as an indexed
// batch (NewIndexedBatch) and the store hold them. fn must not write to
// the batch; key and value are valid only during the call.
func (b *Batch) ScanPrefix(uid string, kg uint16, name string, prefix []byte, fn func(key, value []byte) error) error {
	lower := encodeKey(nil, uid, kg, name, prefix)
	it, err := b.b.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: successor(lower)})
	if err != nil {
		return fmt.Errorf("state: scan: %w", err)
	}
	head := len(encodeKey(nil, uid, kg, name, nil))
	for ok := it.First(); ok && err == nil; ok = it.Next() {
		var v []byte
		if v, err = it.ValueAndErr(); err == nil {
			err = fn(it.Key()[head:], v)
		}
	}
	if ierr := it.Error(); err == nil && ierr != nil {
		err = fmt.Errorf("state: scan: %w", ierr)
	}
	if cerr := it.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("state: scan: %w", cerr)
	}
	return err
}

// Holds reports whether the store, as the indexed batch b reads it,
// holds any entry of the state names of operator uid in key groups
// lo..hi. It seeks from key group to key group that holds state, so a
// wide range with little state is cheap.
func (b *Batch) Holds(uid string, lo, hi uint16, names ...string) (bool, error) {
	head := appendUID(nil, uid)
	upper := successor(head)
	if hi < 0xffff {
		upper = binary.BigEndian.AppendUint16(bytes.Clone(head), hi+1)
	}
	it, err := b.b.NewIter(&pebble.IterOptions{LowerBound: binary.BigEndian.AppendUint16(bytes.Clone(head), lo), UpperBound: upper})
	if err != nil {
		return false, fmt.Errorf("state: scan: %w", err)
	}
	found := false
	for ok := it.First(); ok && !found; {
		var kg uint16
		if kg, _, _, err = decodeKey(it.Key(), len(head)); err != nil {
			break
		}
		for _, name := range names {
			p := encodeKey(nil, uid, kg, name, nil)
			if it.SeekGE(p) && bytes.HasPrefix(it.Key(), p) {
				found = true
				break
			}
		}
		if kg == 0xffff {
			break
		}
		ok = it.SeekGE(binary.BigEndian.AppendUint16(bytes.Clone(head), kg+1))
	}
	if ierr := it.Error(); err == nil && ierr != nil {
		err = fmt.Errorf("state: scan: %w", ierr)
	}
	if cerr := it.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("state: scan: %w", cerr)
	}
	return found, err
}

// Set records that key of state name in key group kg of operator uid holds
// value. The batch copies key and value. name must not be empty: Scan
// takes "" to mean every name.
func (b *Batch) Set(uid string, kg uint16, name string, key, value []byte) {
	if b.named(name) {
		b.buf = encodeKey(b.buf[:0], uid, kg, name, key)
		b.keep(b.b.Set(b.buf, value, nil))
	}
}

// Delete records that key no longer exists.
func (b *Batch) Delete(uid string, kg uint16, name string, key []byte) {
	if b.named(name) {
		b.buf = encodeKey(b.buf[:0], uid, kg, name, key)
		b.keep(b.b.Delete(b.buf, nil))
	}
}

// DeletePrefix records that no key starting with keyPrefix exists any more,
// as one range deletion however many keys that is.
func (b *Batch) DeletePrefix(uid string, kg uint16, name string, keyPrefix []byte) {
	if b.named(name) {
		start := encodeKey(nil, uid, kg, name, keyPrefix)
		b.keep(b.b.DeleteRange(start, successor(start), nil))
	}
}

// DeleteRange records that no key from from (inclusive) to to (exclusive)
// exists any more, as one range deletion.
func (b *Batch) DeleteRange(uid string, kg uint16, name string, from, to []byte) {
	if b.named(name) {
		b.keep(b.b.DeleteRange(encodeKey(nil, uid, kg, name, from), encodeKey(nil, uid, kg, name, to), nil))
	}
}

// Len is the size in bytes of the batch's writes so far: a writer
// commits when it grows large, as a batch lives on the heap.
func (b *Batch) Len() int { return b.b.Len() }

func (b *Batch) named(name string) bool {
	if name == "" {
		b.keep(errors.New("empty state name"))
	}
	return name != ""
}

// keep records the batch's first error, for Commit to return.
func (b *Batch) keep(err error) {
	if b.err == nil && err != nil {
		b.err = fmt.Errorf("state: batch: %w", err)
	}
}

// Commit applies the batch atomically and empties it for reuse. It does not
// sync: a crash loses it, and recovery restores the last checkpoint anyway.
// If any write failed to be recorded, Commit applies nothing and returns
// that error.
func (b *Batch) Commit() error {
	defer b.b.Reset()
	if err := b.err; err != nil {
		b.err = nil
		return err
	}
	err := b.b.Commit(pebble.NoSync)
	// Set after the commit, so that a Snapshot that clears it before
	// the writes are in the memtable leaves it set for the next one.
	b.s.written.Store(true)
	b.s.changed.Store(true)
	if err != nil {
		return fmt.Errorf("state: commit: %w", err)
	}
	return nil
}

// Get returns a copy of the value of key, and whether it exists.
func (s *Store) Get(uid string, kg uint16, name string, key []byte) (value []byte, ok bool, err error) {
	v, closer, err := s.db.Get(encodeKey(nil, uid, kg, name, key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state: get: %w", err)
	}
	value = bytes.Clone(v)
	if value == nil {
		value = []byte{}
	}
	return value, true, closer.Close()
}

// ScanFunc receives one entry of a scan. key and value are valid only
// during the call. An error stops the scan, which returns it.
type ScanFunc func(kg uint16, name string, key, value []byte) error

// Scan calls fn, in key order (key group, then state name, shorter names
// first, then key), for every entry of operator uid whose key group is in
// [kgLo, kgHi] and whose state name is name, or any name if name is "". It
// reads a consistent view: writes committed during the scan are not seen.
func (s *Store) Scan(uid string, kgLo, kgHi uint16, name string, fn ScanFunc) error {
	return scan(s.db, uid, kgLo, kgHi, name, fn)
}

func scan(db *pebble.DB, uid string, kgLo, kgHi uint16, name string, fn ScanFunc) error {
	if kgLo > kgHi {
		return nil
	}
	prefix := appendUID(nil, uid)
	upper := successor(prefix)
	if kgHi < 0xffff {
		upper = binary.BigEndian.AppendUint16(bytes.Clone(prefix), kgHi+1)
	}
	it, err := db.NewIter(&pebble.IterOptions{
		LowerBound: binary.BigEndian.AppendUint16(bytes.Clone(prefix), kgLo),
		UpperBound: upper,
	})
	if err != nil {
		return fmt.Errorf("state: scan: %w", err)
	}
	sc := scanner{it: it, uidLen: len(prefix), fn: fn}
	if name == "" {
		err = sc.all()
	} else {
		err = sc.named(uid, name)
	}
	if ierr := it.Error(); err == nil && ierr != nil {
		err = fmt.Errorf("state: scan: %w", ierr)
	}
	if cerr := it.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("state: scan: %w", cerr)
	}
	return err
}

// scanner walks an iterator bounded to one uid's key-group range.
type scanner struct {
	it     *pebble.Iterator
	uidLen int
	fn     ScanFunc
	last   []byte // the previous entry's state name, to reuse its string
	name   string
}

// all visits every entry in bounds.
func (sc *scanner) all() error {
	for ok := sc.it.First(); ok; ok = sc.it.Next() {
		if err := sc.visit(); err != nil {
			return err
		}
	}
	return nil
}

// named visits the entries of state name, which are contiguous within
// each key group only. It seeks to the name in each key group that holds
// state, so that a narrow scan of a wide range stays cheap.
func (sc *scanner) named(uid, name string) error {
	for ok := sc.it.First(); ok; {
		kg, _, _, err := decodeKey(sc.it.Key(), sc.uidLen)
		if err != nil {
			return err
		}
		p := encodeKey(nil, uid, kg, name, nil)
		for ok = sc.it.SeekGE(p); ok && bytes.HasPrefix(sc.it.Key(), p); ok = sc.it.Next() {
			if err := sc.visit(); err != nil {
				return err
			}
		}
		if !ok || kg == 0xffff {
			return nil
		}
		ok = sc.it.SeekGE(binary.BigEndian.AppendUint16(appendUID(nil, uid), kg+1))
	}
	return nil
}

func (sc *scanner) visit() error {
	kg, n, key, err := decodeKey(sc.it.Key(), sc.uidLen)
	if err != nil {
		return err
	}
	if !bytes.Equal(n, sc.last) {
		sc.last, sc.name = append(sc.last[:0], n...), string(n)
	}
	v, err := sc.it.ValueAndErr()
	if err != nil {
		return fmt.Errorf("state: scan: %w", err)
	}
	return sc.fn(kg, sc.name, key, v)
}
