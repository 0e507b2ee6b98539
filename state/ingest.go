package state

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"

	"github.com/cockroachdb/errors/oserror"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Sorted collects writes in any order and applies them by writing one
// sorted SST and ingesting it. For the large write a checkpoint makes (every
// group changed since the last one) this skips what a Batch costs: the
// memtable, the sort of a large batch, and the flush that rewrites it.
// Like a Batch, a Sorted is applied atomically by Commit. When one key is
// written several times, the last write wins.
type Sorted struct {
	s *Store
	// chunks hold the writes' keys and values, filled in order; the
	// first cur+1 are in use. A Sorted keeps them across Commits: a
	// checkpoint writes about as much as the one before, and the pages of
	// a fresh buffer cost a fault each on first write, which copying a
	// growing arena into ever larger ones paid again at every doubling.
	chunks [][]byte
	cur    int
	ents   []sortedEnt
	err    error
	// replace makes the next commit a replacing one (Replace).
	replace []replaced
}

// chunkSize is the size of a Sorted's chunks; a write larger than one
// gets a chunk of its own, which is not kept.
const chunkSize = 1 << 20

type sortedEnt struct {
	// hi and lo are 16 key bytes past the prefix all keys share, so most
	// comparisons are two integer compares.
	hi, lo   uint64
	chunk    int32 // the write is in chunks[chunk]
	key, end int32 // key is chunks[chunk][key:end], the value follows up to next
	next     int32
	seq      int32 // order of the write, so the last one wins
	del      bool
}

// NewSorted returns an empty sorted writer.
func (s *Store) NewSorted() *Sorted { return &Sorted{s: s} }

// Len is the number of writes collected.
func (w *Sorted) Len() int { return len(w.ents) }

// Set records that key of state name in key group kg of uid holds value.
func (w *Sorted) Set(uid string, kg uint16, name string, key, value []byte) {
	w.add(uid, kg, name, key, value, false)
}

// Delete records that key no longer exists.
func (w *Sorted) Delete(uid string, kg uint16, name string, key []byte) {
	w.add(uid, kg, name, key, nil, true)
}

func (w *Sorted) add(uid string, kg uint16, name string, key, value []byte, del bool) {
	if name == "" {
		if w.err == nil {
			w.err = fmt.Errorf("state: sorted write: empty state name")
		}
		return
	}
	c := w.room(maxKeyLen(uid, name, key) + len(value))
	start := int32(len(*c))
	*c = encodeKey(*c, uid, kg, name, key)
	end := int32(len(*c))
	*c = append(*c, value...)
	w.ents = append(w.ents, sortedEnt{chunk: int32(w.cur), key: start, end: end, next: int32(len(*c)), seq: int32(len(w.ents)), del: del})
}

// room returns the chunk that the next write, of n bytes, goes to: the
// current one if it has room, else the next, made if new.
func (w *Sorted) room(n int) *[]byte {
	if len(w.chunks) > 0 {
		if c := &w.chunks[w.cur]; cap(*c)-len(*c) >= n {
			return c
		}
		w.cur++
	}
	if w.cur < len(w.chunks) && cap(w.chunks[w.cur]) >= n {
		return &w.chunks[w.cur]
	}
	c := make([]byte, 0, max(n, chunkSize))
	if w.cur < len(w.chunks) {
		// A kept chunk too small for a large write: the write goes
		// before it, in a chunk of its own.
		w.chunks = slices.Insert(w.chunks, w.cur, c)
	} else {
		w.chunks = append(w.chunks, c)
	}
	return &w.chunks[w.cur]
}

// reset empties w, keeping its chunks of chunkSize for the next writes.
func (w *Sorted) reset() {
	kept := w.chunks[:0]
	for _, c := range w.chunks {
		if cap(c) == chunkSize {
			kept = append(kept, c[:0])
		}
	}
	clear(w.chunks[len(kept):])
	w.chunks, w.cur, w.ents, w.err, w.replace = kept, 0, w.ents[:0], nil, nil
}

// Commit writes the collected entries as an SST in key order and ingests
// it. An empty Sorted commits nothing. Whether it succeeds or not, the
// Sorted is empty afterwards: after a failure none of its writes is in
// the store, and none is carried into the next Commit.
func (w *Sorted) Commit() error {
	_, err := w.commit(false)
	return err
}

// commit is Commit; with keep, the SST stays under the name it was
// written at and is returned as a delta (nil if w was empty), unless the
// commit is a replacing one, which is never a delta.
func (w *Sorted) commit(keep bool) (*delta, error) {
	defer w.reset()
	if w.err != nil {
		return nil, w.err
	}
	if len(w.replace) > 0 {
		w.sort()
		_, err := w.s.ingestFile(0, w.writeReplacing, false, true)
		if err != nil {
			return nil, fmt.Errorf("state: ingest: %w", err)
		}
		return nil, nil
	}
	if len(w.ents) == 0 {
		return nil, nil
	}
	w.sort()
	// Written with L0's options, wherever the SST lands: Pebble writes
	// the last level's tables with their deletes marked obsolete, and an
	// ingested SST's deletes must hide what lies below it.
	d, err := w.s.ingestFile(0, w.write, keep, false)
	if err != nil {
		return nil, fmt.Errorf("state: ingest: %w", err)
	}
	return d, nil
}

// sort sorts w's writes by key, and writes of one key in their order.
func (w *Sorted) sort() {
	if len(w.ents) == 0 {
		return
	}
	k := w.key
	// Keys share a long prefix (operator uid, key group, state name,
	// window): compare past it.
	first := k(w.ents[0])
	lcp := len(first)
	for _, e := range w.ents[1:] {
		key := k(e)
		n := min(lcp, len(key))
		i := 0
		for i < n && key[i] == first[i] {
			i++
		}
		lcp = i
	}
	for i := range w.ents {
		var buf [16]byte
		copy(buf[:], k(w.ents[i])[lcp:])
		w.ents[i].hi, w.ents[i].lo = binary.BigEndian.Uint64(buf[:8]), binary.BigEndian.Uint64(buf[8:])
	}
	slices.SortFunc(w.ents, func(a, b sortedEnt) int {
		switch {
		case a.hi != b.hi:
			return cmp.Compare(a.hi, b.hi)
		case a.lo != b.lo:
			return cmp.Compare(a.lo, b.lo)
		}
		if c := bytes.Compare(k(a)[lcp:], k(b)[lcp:]); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// ingestSST writes an SST under a fresh name in the store's directory
// with write, which adds entries in key order, each key once, and returns
// how many; then ingests it, unless it is empty. The options are those of
// the LSM level given. Pebble links an ingested file into the DB and
// normally removes the name itself; the name is gone afterwards in any
// case, ingested or not.
func (s *Store) ingestSST(level int, write func(*sstable.Writer) (int, error)) error {
	_, err := s.ingestFile(level, write, false, false)
	return err
}

// ingestFile is ingestSST; with keep, a delta snapshot's: the file stays
// under its name and is returned as a delta (nil if write added nothing),
// and the store is not marked changed (SnapshotDelta). With replacing,
// the file replaces every other (replaceWith).
func (s *Store) ingestFile(level int, write func(*sstable.Writer) (int, error), keep, replacing bool) (*delta, error) {
	// One ingest at a time, so that what Pebble reports of the last
	// (tableIngested) is this one's.
	s.ingestMu.Lock()
	defer s.ingestMu.Unlock()
	s.mu.Lock()
	s.ingests++
	seq := s.ingests
	s.lastIngest = ingested{}
	s.mu.Unlock()
	path := s.fs.PathJoin(s.dir, fmt.Sprintf("ingest-%d.sst", seq))
	f, err := s.fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return nil, err
	}
	sw := sstable.NewWriter(newBufferedWritable(f), s.opts.MakeWriterOptions(level, s.db.TableFormat()))
	n, err := write(sw)
	if cerr := sw.Close(); err == nil {
		err = cerr
	}
	var d *delta
	if err == nil && n > 0 && keep {
		// Pebble takes the file's name away: the delta keeps another.
		d = &delta{path: s.fs.PathJoin(s.dir, deltaRef(seq)), seq: seq}
		err = vfs.LinkOrCopy(s.fs, path, d.path)
	}
	switch {
	case err == nil && replacing:
		err = s.replaceWith(path, n)
		s.changed.Store(true)
	case err == nil && n > 0:
		err = s.db.Ingest(context.Background(), []string{path})
		if d != nil && err == nil {
			var st os.FileInfo
			if st, err = s.fs.Stat(d.path); err == nil {
				d.db, d.size = s.ingestedName(st.Size()), st.Size()
			}
		}
		if d == nil || err != nil {
			// In the DB (or perhaps, after a failure), and in no delta.
			s.changed.Store(true)
		}
	}
	if rerr := s.fs.Remove(path); err == nil && rerr != nil && !oserror.IsNotExist(rerr) {
		err = rerr
	}
	if d != nil && err != nil {
		_ = s.fs.Remove(d.path)
		return nil, err
	}
	return d, err
}

// key is e's key.
func (w *Sorted) key(e sortedEnt) []byte { return w.chunks[e.chunk][e.key:e.end] }

// write adds the sorted entries to sw, the last write of a key only.
func (w *Sorted) write(sw *sstable.Writer) (int, error) {
	k := w.key
	n := 0
	for i, e := range w.ents {
		if i+1 < len(w.ents) && bytes.Equal(k(e), k(w.ents[i+1])) {
			continue // a later write of the same key wins
		}
		var err error
		if e.del {
			err = sw.Delete(k(e))
		} else {
			err = sw.Set(k(e), w.chunks[e.chunk][e.end:e.next])
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
