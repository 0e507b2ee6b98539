package memseg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// Sorter sorts any number of records in bounded memory: an external merge
// sort. Records go into a SortBuffer; when the buffer cannot take the next
// one, it is sorted and written to a temporary file as a run, and filling
// starts again. Iter merges the runs with a loser tree.
//
// A run is a sequence of blocks, each an 8-byte header (payload length and
// CRC-32C of the payload, little endian) and a payload of whole records
// encoded as in a SortBuffer (uvarint key length, uvarint value length, key,
// value). A block that fails its checksum fails the iteration.
//
// Run files are unlinked as soon as they are created, so they vanish
// whatever happens to the process; where the system cannot unlink an open
// file, Close and any error remove them instead.
//
// All memory (the buffer, one segment to write runs through, one segment
// per run to read it back) comes from the Manager. A Sorter is not safe for
// concurrent use. Its owner must Close it.
type Sorter struct {
	m    *Manager
	dir  string
	buf  *SortBuffer
	wbuf []byte // run write buffer, a segment
	runs []*run
	it   *SorterIter
	err  error // sticky: the Sorter failed and holds no resources
}

// run is a spilled run. path is set while the file is still linked.
type run struct {
	f    *os.File
	path string
	n    int // records
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const blockHeader = 8

// ErrClosed is returned by a Sorter used after Close or after Iter ended
// its input.
var ErrClosed = errors.New("memseg: sorter closed")

// NewSorter returns a sorter whose runs go in directory dir ("" means
// os.TempDir), ordering keys as NewSortBuffer does with layout. It takes a
// segment from m at once, so it fails with ErrNoMemory when m has none.
func NewSorter(m *Manager, layout *Layout, dir string) (*Sorter, error) {
	buf, err := NewSortBuffer(m, layout)
	if err != nil {
		return nil, err
	}
	w, err := m.Alloc()
	if err != nil {
		return nil, err
	}
	return &Sorter{m: m, dir: dir, buf: buf, wbuf: w}, nil
}

// Runs is the number of run files, for tests and metrics.
func (s *Sorter) Runs() int { return len(s.runs) }

// Add copies a record into the sorter, spilling a run when memory runs
// out. It returns ErrNoMemory only when the record does not fit even in an
// empty buffer, and an error wrapping ErrCorrupt when key does not fit the
// layout; the sorter stays usable after both. Any other error (writing a
// run failed) fails the sorter: its files are gone, its memory is given
// back, and every later call returns the error.
func (s *Sorter) Add(key, value []byte) error {
	if s.err != nil {
		return s.err
	}
	if s.it != nil {
		return ErrClosed
	}
	err := s.buf.Add(key, value)
	if !errors.Is(err, ErrNoMemory) || s.buf.Len() == 0 {
		return err
	}
	if err := s.spill(); err != nil {
		return s.fail(err)
	}
	return s.buf.Add(key, value)
}

// fail releases everything and makes err sticky.
func (s *Sorter) fail(err error) error {
	s.release()
	s.err = err
	return err
}

// spill writes the buffer as a run and resets it.
func (s *Sorter) spill() error {
	s.buf.Sort()
	r, err := s.create()
	if err != nil {
		return err
	}
	w := runWriter{r: r, buf: s.wbuf}
	for it := s.buf.Iter(); it.Next(); {
		if err := w.add(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	s.buf.Reset()
	return w.flush()
}

// create adds a new, empty run.
func (s *Sorter) create() (*run, error) {
	f, err := os.CreateTemp(s.dir, "strand-sort-*.run")
	if err != nil {
		return nil, fmt.Errorf("memseg: creating a sort run: %w", err)
	}
	r := &run{f: f, path: f.Name()}
	if os.Remove(r.path) == nil {
		r.path = ""
	}
	s.runs = append(s.runs, r)
	return r, nil
}

// runWriter appends records to a run through a segment.
type runWriter struct {
	r   *run
	buf []byte
	n   int // bytes of payload in buf, after the header space
	crc uint32
}

func (w *runWriter) add(key, value []byte) error {
	size := uvarintLen(len(key)) + uvarintLen(len(value)) + len(key) + len(value)
	if blockHeader+w.n+size > len(w.buf) {
		if err := w.flush(); err != nil {
			return err
		}
		if blockHeader+size > len(w.buf) {
			return w.large(key, value, size)
		}
	}
	w.n += putRecord(w.buf[blockHeader+w.n:], key, value)
	w.r.n++
	return nil
}

// large writes a record too large for the buffer as a block of its own.
func (w *runWriter) large(key, value []byte, size int) error {
	var hdr [blockHeader + 2*binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[blockHeader:], uint64(len(key)))
	n += binary.PutUvarint(hdr[blockHeader+n:], uint64(len(value)))
	crc := crc32.Update(0, castagnoli, hdr[blockHeader:blockHeader+n])
	crc = crc32.Update(crc, castagnoli, key)
	crc = crc32.Update(crc, castagnoli, value)
	binary.LittleEndian.PutUint32(hdr[0:], uint32(size))
	binary.LittleEndian.PutUint32(hdr[4:], crc)
	for _, b := range [][]byte{hdr[:blockHeader+n], key, value} {
		if _, err := w.r.f.Write(b); err != nil {
			return fmt.Errorf("memseg: writing a sort run: %w", err)
		}
	}
	w.r.n++
	return nil
}

func (w *runWriter) flush() error {
	if w.n == 0 {
		return nil
	}
	p := w.buf[blockHeader : blockHeader+w.n]
	binary.LittleEndian.PutUint32(w.buf[0:], uint32(w.n))
	binary.LittleEndian.PutUint32(w.buf[4:], crc32.Checksum(p, castagnoli))
	_, err := w.r.f.Write(w.buf[:blockHeader+w.n])
	w.n = 0
	if err != nil {
		return fmt.Errorf("memseg: writing a sort run: %w", err)
	}
	return nil
}

// Iter ends the input and returns an iterator over all records in key
// order; records with equal keys come in no particular order. Without
// spilled runs it reads the buffer in memory. Otherwise it spills the rest,
// gives the buffer's memory back, and takes one segment per run to merge;
// if the manager cannot give that many, it first merges groups of runs into
// longer ones. Iter may be called once.
func (s *Sorter) Iter() (*SorterIter, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.it != nil {
		return nil, ErrClosed
	}
	s.it = &SorterIter{s: s}
	if len(s.runs) == 0 {
		s.buf.Sort()
		s.it.mem = s.buf.Iter()
		return s.it, nil
	}
	if s.buf.Len() > 0 {
		if err := s.spill(); err != nil {
			return nil, s.fail(err)
		}
	}
	s.buf.Release()
	if err := s.openRuns(); err != nil {
		return nil, s.fail(err)
	}
	return s.it, nil
}

// openRuns sets up the merge of all runs, first merging groups of runs
// while there are more runs than read buffers.
func (s *Sorter) openRuns() error {
	for {
		var rs []*runReader
		for _, r := range s.runs {
			b, err := s.m.Alloc()
			if err != nil {
				break
			}
			rs = append(rs, &runReader{run: r, m: s.m, buf: b})
		}
		if len(rs) == len(s.runs) {
			s.it.readers = rs
			return s.it.start()
		}
		if len(rs) < 2 {
			for _, r := range rs {
				r.release()
			}
			return fmt.Errorf("memseg: merging %d sort runs: %w", len(s.runs), ErrNoMemory)
		}
		if err := s.mergeRuns(rs); err != nil {
			return err
		}
	}
}

// mergeRuns replaces the runs of rs, the first of s.runs, with one run.
func (s *Sorter) mergeRuns(rs []*runReader) error {
	it := &SorterIter{s: s, readers: rs}
	defer it.releaseReaders()
	if err := it.start(); err != nil {
		return err
	}
	out, err := s.create()
	if err != nil {
		return err
	}
	w := runWriter{r: out, buf: s.wbuf}
	for it.Next() {
		if err := w.add(it.Key(), it.Value()); err != nil {
			return err
		}
	}
	if it.err != nil {
		return it.err
	}
	if err := w.flush(); err != nil {
		return err
	}
	for _, r := range s.runs[:len(rs)] {
		r.close()
	}
	s.runs = append(s.runs[:0], s.runs[len(rs):]...)
	return nil
}

// release closes and removes every run and gives back all memory.
func (s *Sorter) release() {
	if s.it != nil {
		s.it.releaseReaders()
	}
	for _, r := range s.runs {
		r.close()
	}
	s.runs = nil
	s.buf.Release()
	if s.wbuf != nil {
		s.m.Free(s.wbuf)
		s.wbuf = nil
	}
}

// Close removes the runs and gives all memory back. Iterators of the
// sorter become invalid. Close is idempotent.
func (s *Sorter) Close() error {
	if s.err == nil {
		s.fail(ErrClosed)
	}
	return nil
}

func (r *run) close() {
	r.f.Close()
	if r.path != "" {
		os.Remove(r.path)
	}
}

// runReader reads a run's records back, a block at a time.
type runReader struct {
	*run
	m          *Manager
	buf        []byte // a segment
	big        []byte // a block larger than buf, from allocLarge
	block      []byte // unread part of the current block
	off        int64  // file offset of the next block
	read       int    // records read
	key, value []byte
	done       bool
}

// next reads the next record; at the end it sets done.
func (r *runReader) next() error {
	if len(r.block) == 0 {
		if err := r.load(); err != nil || r.done {
			return err
		}
	}
	kl, n := binary.Uvarint(r.block)
	vl, m := binary.Uvarint(r.block[max(n, 0):])
	if n <= 0 || m <= 0 || uint64(len(r.block)-n-m) < kl+vl {
		return r.corrupt("record overruns its block")
	}
	b := r.block[n+m:]
	r.key, r.value = b[:kl:kl], b[kl:kl+vl:kl+vl]
	r.block = b[kl+vl:]
	r.read++
	return nil
}

// load reads the next block into the buffer.
func (r *runReader) load() error {
	var hdr [blockHeader]byte
	got, err := r.f.ReadAt(hdr[:], r.off)
	switch {
	case got == 0 && err == io.EOF:
		if r.read != r.n {
			return r.corrupt(fmt.Sprintf("%d records, want %d", r.read, r.n))
		}
		r.done = true
		return nil
	case got < blockHeader && err == io.EOF:
		return r.corrupt("truncated header")
	case err != nil && got < blockHeader:
		return r.ioErr(err)
	}
	n := int(binary.LittleEndian.Uint32(hdr[0:]))
	if r.big != nil {
		r.m.freeBuf(r.big)
		r.big = nil
	}
	b := r.buf
	if n > len(b) {
		if r.big, err = r.m.allocLarge(n); err != nil {
			return err
		}
		b = r.big
	}
	b = b[:n]
	if got, err := r.f.ReadAt(b, r.off+blockHeader); got < n {
		if err == io.EOF {
			return r.corrupt("truncated block")
		}
		return r.ioErr(err)
	}
	if crc32.Checksum(b, castagnoli) != binary.LittleEndian.Uint32(hdr[4:]) {
		return r.corrupt("checksum mismatch")
	}
	r.off += blockHeader + int64(n)
	r.block = b
	return nil
}

func (r *runReader) corrupt(what string) error {
	return fmt.Errorf("memseg: sort run %s, block at offset %d: %s", r.f.Name(), r.off, what)
}

func (r *runReader) ioErr(err error) error {
	return fmt.Errorf("memseg: reading sort run %s: %w", r.f.Name(), err)
}

func (r *runReader) release() {
	r.m.Free(r.buf)
	r.buf = nil
	if r.big != nil {
		r.m.freeBuf(r.big)
		r.big = nil
	}
}

// SorterIter reads a Sorter's records in key order. Key and Value alias
// memory that the next call to Next may reuse.
type SorterIter struct {
	s       *Sorter
	mem     *BufferIter  // no runs: the sorted buffer
	readers []*runReader // else the runs, merged by a loser tree
	tree    []int        // tree[0] the winner, tree[1:] losers of internal nodes
	started bool
	err     error
}

// start reads the first record of every run and builds the tree.
func (it *SorterIter) start() error {
	for _, r := range it.readers {
		if err := r.next(); err != nil {
			return err
		}
	}
	k := len(it.readers)
	it.tree = make([]int, k)
	it.tree[0] = it.build(1)
	return nil
}

// build returns the winner of the subtree at node n, storing losers. In
// the implicit tree, node n has children 2n and 2n+1, and reader i is leaf
// k+i.
func (it *SorterIter) build(n int) int {
	k := len(it.readers)
	if n >= k {
		return n - k
	}
	a, b := it.build(2*n), it.build(2*n+1)
	if it.less(b, a) {
		a, b = b, a
	}
	it.tree[n] = b
	return a
}

// less orders readers by current key, exhausted readers last and ties by
// reader number.
func (it *SorterIter) less(a, b int) bool {
	ra, rb := it.readers[a], it.readers[b]
	switch {
	case ra.done:
		return false
	case rb.done:
		return true
	}
	if c := bytes.Compare(ra.key, rb.key); c != 0 {
		return c < 0
	}
	return a < b
}

// Next moves to the next record, the first on the first call, and reports
// whether there is one. After false, Err tells whether the iteration ended
// by error.
func (it *SorterIter) Next() bool {
	if it.err != nil {
		return false
	}
	if it.mem != nil {
		return it.mem.Next()
	}
	if it.readers == nil {
		return false
	}
	if it.started {
		w := it.tree[0]
		if err := it.readers[w].next(); err != nil {
			it.err = err
			return false
		}
		for n := (w + len(it.readers)) / 2; n >= 1; n /= 2 {
			if it.less(it.tree[n], w) {
				it.tree[n], w = w, it.tree[n]
			}
		}
		it.tree[0] = w
	}
	it.started = true
	return !it.readers[it.tree[0]].done
}

// Key is the current record's key.
func (it *SorterIter) Key() []byte {
	if it.mem != nil {
		return it.mem.Key()
	}
	return it.readers[it.tree[0]].key
}

// Value is the current record's value.
func (it *SorterIter) Value() []byte {
	if it.mem != nil {
		return it.mem.Value()
	}
	return it.readers[it.tree[0]].value
}

// Err is the error that ended the iteration, if any.
func (it *SorterIter) Err() error { return it.err }

func (it *SorterIter) releaseReaders() {
	for _, r := range it.readers {
		r.release()
	}
	it.readers = nil
}
