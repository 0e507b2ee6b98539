package memseg

import (
	"encoding/binary"
	"fmt"
)

// Pointer of a SortBuffer entry: records in segments are addressed by
// segment number << shift | offset, records too large for a segment by
// their number among the large buffers, with largeBit set.
const largeBit = 1 << 54

// SortBuffer sorts records (a normalized key and a value) in managed
// memory. Records are appended into record segments, and for each an entry
// of the key's fixed-length prefix and the record's address into index
// segments; Sort orders the entries and never moves a record.
//
// A SortBuffer is not safe for concurrent use. Its owner must Release it.
type SortBuffer struct {
	m   *Manager
	idx index

	recs  [][]byte // record segments, reused after Reset
	cur   int      // segment being filled
	off   int      // bytes used in recs[cur]
	large [][]byte // records too large for a segment
}

// NewSortBuffer returns an empty buffer taking memory from m. Keys are
// ordered by bytes.Compare; the prefixes compared first are those of
// layout, which must describe every key added, or, if layout is nil, a
// key's first 15 bytes.
// It fails if a prefix does not fit in a small fraction of a segment.
func NewSortBuffer(m *Manager, layout *Layout) (*SortBuffer, error) {
	b := &SortBuffer{m: m}
	if err := b.idx.init(m, layout, b.key); err != nil {
		return nil, err
	}
	return b, nil
}

// Len is the number of records.
func (b *SortBuffer) Len() int { return b.idx.n }

// Add copies a record into the buffer. It returns ErrNoMemory, and leaves
// the buffer as it was, when the manager's budget cannot hold the record:
// the caller sorts and drains (or spills) the buffer, Resets it, and adds
// again. An error wrapping ErrCorrupt means key does not fit the layout.
func (b *SortBuffer) Add(key, value []byte) error {
	e, err := b.idx.slot()
	if err != nil {
		return err
	}
	trunc, err := b.idx.prefix(e, key)
	if err != nil {
		return err
	}
	ptr, err := b.append(key, value)
	if err != nil {
		return err
	}
	b.idx.push(e, ptr, trunc)
	return nil
}

// append stores a record and returns its address.
func (b *SortBuffer) append(key, value []byte) (uint64, error) {
	n := uvarintLen(len(key)) + uvarintLen(len(value)) + len(key) + len(value)
	if n > b.m.segSize {
		r, err := b.m.allocLarge(n)
		if err != nil {
			return 0, err
		}
		putRecord(r, key, value)
		b.large = append(b.large, r)
		return largeBit | uint64(len(b.large)-1), nil
	}
	if b.cur == len(b.recs) || b.off+n > b.m.segSize {
		next := b.cur
		if b.cur < len(b.recs) {
			next++ // the current segment is full
		}
		if next == len(b.recs) {
			s, err := b.m.Alloc()
			if err != nil {
				return 0, err
			}
			b.recs = append(b.recs, s)
		}
		b.cur, b.off = next, 0
	}
	ptr := uint64(b.cur)<<b.m.shift | uint64(b.off)
	b.off += putRecord(b.recs[b.cur][b.off:], key, value)
	return ptr, nil
}

// putRecord writes a record: uvarint key length, uvarint value length, key,
// value. It returns the bytes written.
func putRecord(dst, key, value []byte) int {
	var n int
	if len(key) < 0x80 && len(value) < 0x80 {
		dst[0], dst[1] = byte(len(key)), byte(len(value))
		n = 2
	} else {
		n = binary.PutUvarint(dst, uint64(len(key)))
		n += binary.PutUvarint(dst[n:], uint64(len(value)))
	}
	n += copy(dst[n:], key)
	return n + copy(dst[n:], value)
}

// record splits the record at rec into key and value.
func record(rec []byte) (key, value []byte) {
	kl, n := binary.Uvarint(rec)
	vl, m := binary.Uvarint(rec[n:])
	rec = rec[n+m:]
	return rec[:kl:kl], rec[kl : kl+vl : kl+vl]
}

func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}

func (b *SortBuffer) at(ptr uint64) []byte {
	if ptr&largeBit != 0 {
		return b.large[ptr&^largeBit]
	}
	return b.recs[ptr>>b.m.shift][ptr&uint64(b.m.segSize-1):]
}

func (b *SortBuffer) key(ptr uint64) []byte {
	k, _ := record(b.at(ptr))
	return k
}

// Sort orders the records by key. Records with equal keys are in no
// particular order (the sort is not stable); a caller that needs an order
// among them makes it part of the key.
func (b *SortBuffer) Sort() { b.idx.sort() }

// Record returns record i: after Sort the i-th in key order, before it the
// i-th added. key and value alias the buffer's memory and are valid until
// Reset or Release.
func (b *SortBuffer) Record(i int) (key, value []byte) {
	if uint(i) >= uint(b.idx.n) {
		panic(fmt.Sprintf("memseg: record %d of %d", i, b.idx.n))
	}
	return record(b.at(b.idx.ptr(i)))
}

// Iter returns an iterator over the records in the order of Record.
func (b *SortBuffer) Iter() *BufferIter { return &BufferIter{b: b} }

// iterBatch is how many records a BufferIter loads ahead. Records are read
// in random order; loading a batch in a tight loop lets the processor fetch
// them in parallel, which cuts the cost of reading a large sorted buffer by
// more than half (measured in doc.go).
const iterBatch = 32

// BufferIter reads a SortBuffer's records in order. It is valid until the
// buffer changes.
type BufferIter struct {
	b          *SortBuffer
	i          int // the record Key and Value return
	batch      [iterBatch][]byte
	key, value []byte
	sink       byte
}

// Next moves to the next record, the first on the first call, and reports
// whether there is one.
func (it *BufferIter) Next() bool {
	b := it.b
	if it.i >= b.idx.n {
		return false
	}
	j := it.i % iterBatch
	if j == 0 {
		n := min(iterBatch, b.idx.n-it.i)
		for k := range n {
			it.batch[k] = b.at(b.idx.ptr(it.i + k))
		}
		// Touch them all before using any: the loads overlap.
		var s byte
		for _, r := range it.batch[:n] {
			s += r[0]
		}
		it.sink = s
	}
	it.key, it.value = record(it.batch[j])
	it.i++
	return true
}

// Key is the current record's key; it aliases the buffer.
func (it *BufferIter) Key() []byte { return it.key }

// Value is the current record's value; it aliases the buffer.
func (it *BufferIter) Value() []byte { return it.value }

// Reset empties the buffer and keeps its segments for the next records.
func (b *SortBuffer) Reset() {
	b.idx.reset()
	b.cur, b.off = 0, 0
	b.freeLarge()
}

func (b *SortBuffer) freeLarge() {
	for i, r := range b.large {
		b.m.freeBuf(r)
		b.large[i] = nil
	}
	b.large = b.large[:0]
}

// Release empties the buffer and gives all its memory back to the manager.
// The buffer may be used again, and then allocates anew.
func (b *SortBuffer) Release() {
	b.idx.release()
	for i, s := range b.recs {
		b.m.Free(s)
		b.recs[i] = nil
	}
	b.recs = b.recs[:0]
	b.cur, b.off = 0, 0
	b.freeLarge()
}
