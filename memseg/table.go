package memseg

import (
	"bytes"
	"encoding/binary"
)

// HashTable maps binary keys to fixed-size accumulators, all in segments
// from a Manager: the state of a group aggregation (one entry per group,
// the accumulator holding e.g. a SUM and a COUNT) without Go maps, so
// without per-key heap objects and within the manager's budget.
//
// Entries (key and accumulator) are appended to entry segments and never
// move. Buckets are an open-addressing (linear probing) array of 8-byte
// slots in bucket segments, doubled when three quarters full; a slot holds
// 24 bits of the hash, to skip most foreign entries without touching them,
// and the entry's address.
//
// A HashTable is not safe for concurrent use. Its owner must Release it.
type HashTable struct {
	m       *Manager
	accSize int
	accPad  int  // accSize rounded up to 8
	shift   uint // log2 of the segment size, copied from m for the hot path
	sshift  uint // log2 of the slots per bucket segment

	buckets [][]byte // bucket segments
	spare   [][]byte // the previous bucket list, reused by the next grow
	bits    uint     // log2 of the number of slots
	n       int

	ents [][]byte // entry segments and large entries, in insertion order
	used []int    // bytes used in each of ents
	hint int      // entries before the last Reset: the next fill likely holds as many
}

// Entry layout: key length (4 bytes), 4 spare bytes so the accumulator is
// 8-byte aligned, accumulator (accPad), key, padding to 8. The hash is not
// kept: the slot's tag rejects nearly every foreign entry, growing
// recomputes it, and leaving it out makes the entry of a BIGINT key and an
// 8-byte accumulator 32 bytes, so that no entry spans two cache lines.
const entHeader = 8

// Slot layout.
const (
	addrBits = 40
	addrMask = 1<<addrBits - 1
)

// fib is 2^64 / golden ratio: multiplying by it spreads every bit of a hash
// into the top bits, which pick the bucket. Callers route keys to key
// groups (and so to this table) by bits of the same hash; those bits are
// nearly constant within one table and must not pick the bucket alone.
const fib = 0x9E3779B97F4A7C15

// NewHashTable returns an empty table whose accumulators have accSize
// bytes. It takes no memory until the first insert.
func NewHashTable(m *Manager, accSize int) *HashTable {
	if accSize < 0 {
		panic("memseg: negative accumulator size")
	}
	return &HashTable{m: m, accSize: accSize, accPad: (accSize + 7) &^ 7, shift: m.shift, sshift: m.shift - 3}
}

// Expect sizes the table's first buckets for n entries, if it has none
// yet, as Reset does for the entries the table held: for a caller that
// makes one table after another of similar size. If the budget cannot
// take that many, the table starts small.
func (t *HashTable) Expect(n int) {
	if len(t.buckets) == 0 {
		t.hint = n
	}
}

// Len is the number of entries.
func (t *HashTable) Len() int { return t.n }

// FindOrInsert returns the accumulator of key, inserting the key with a
// zeroed accumulator if it is new (inserted reports which). hash must be
// Hash(key), which callers have computed already to route the key; the
// table recomputes it when it grows.
//
// acc aliases the table's memory. It stays valid, and keeps its contents,
// until Reset or Release: growing the table moves only bucket slots, never
// entries. The caller updates the accumulator in place; the table never
// looks at it. FindOrInsert copies key.
//
// It returns ErrNoMemory, and leaves the table as it was, when the manager
// cannot give the memory a new key needs; the caller spills state and
// retries, or fails.
func (t *HashTable) FindOrInsert(key []byte, hash uint64) (acc []byte, inserted bool, err error) {
	_, acc, inserted, err = t.Insert(key, hash)
	return acc, inserted, err
}

// Insert is FindOrInsert that also returns the entry's address, which
// stays valid, like the accumulator, until Reset: KeyAt and AccAt turn it
// back into the entry's key and accumulator. A caller that numbers its
// groups keeps one address per group instead of a copy of the key.
func (t *HashTable) Insert(key []byte, hash uint64) (addr uint64, acc []byte, inserted bool, err error) {
	tag := slotTag(hash)
	for {
		if len(t.buckets) == 0 {
			if err := t.grow(); err != nil {
				return 0, nil, false, err
			}
		}
		i := t.home(hash)
		for {
			s := t.slot(i)
			if s == 0 {
				break
			}
			if s>>addrBits == tag {
				e := t.entry(s&addrMask - 1)
				if bytes.Equal(t.key(e), key) {
					return s&addrMask - 1, e[entHeader : entHeader+t.accSize : entHeader+t.accSize], false, nil
				}
			}
			i = (i + 1) & (1<<t.bits - 1)
		}
		if (t.n+1)*4 <= 3<<t.bits {
			a, e, err := t.alloc(len(key))
			if err != nil {
				if t.n == 0 && t.hint > 0 {
					// The buckets sized for the hint took the memory of
					// the first entry: start small instead.
					t.hint = 0
					t.dropBuckets()
					continue
				}
				return 0, nil, false, err
			}
			binary.LittleEndian.PutUint32(e, uint32(len(key)))
			acc = e[entHeader : entHeader+t.accSize : entHeader+t.accSize]
			clear(acc)
			copy(e[entHeader+t.accPad:], key)
			t.setSlot(i, tag<<addrBits|(a+1))
			t.n++
			return a, acc, true, nil
		}
		if err := t.grow(); err != nil {
			return 0, nil, false, err
		}
	}
}

// Find returns the address and accumulator of key, and whether the table
// holds it, without inserting it: a lookup that takes no memory. hash must
// be Hash(key).
func (t *HashTable) Find(key []byte, hash uint64) (addr uint64, acc []byte, ok bool) {
	if len(t.buckets) == 0 {
		return 0, nil, false
	}
	tag := slotTag(hash)
	for i := t.home(hash); ; i = (i + 1) & (1<<t.bits - 1) {
		s := t.slot(i)
		if s == 0 {
			return 0, nil, false
		}
		if s>>addrBits == tag {
			e := t.entry(s&addrMask - 1)
			if bytes.Equal(t.key(e), key) {
				return s&addrMask - 1, e[entHeader : entHeader+t.accSize : entHeader+t.accSize], true
			}
		}
	}
}

// KeyAt returns the key of the entry at addr (from Insert); it aliases the
// table.
func (t *HashTable) KeyAt(addr uint64) []byte { return t.key(t.entry(addr)) }

// AccAt returns the accumulator of the entry at addr (from Insert).
func (t *HashTable) AccAt(addr uint64) []byte {
	return t.entry(addr)[entHeader : entHeader+t.accSize : entHeader+t.accSize]
}

func (t *HashTable) home(hash uint64) uint64 { return (hash * fib) >> (64 - t.bits) }

// slotTag returns the hash bits a slot keeps: bits 16..39 of the mixed
// hash, which depend on the low 40 bits of hash, whichever bits the key
// groups took.
func slotTag(hash uint64) uint64 { return (hash * fib) >> 16 & (1<<(64-addrBits) - 1) }

func (t *HashTable) slot(i uint64) uint64 {
	return binary.LittleEndian.Uint64(t.buckets[i>>t.sshift][(i&(1<<t.sshift-1))*8:])
}

func (t *HashTable) setSlot(i, v uint64) {
	binary.LittleEndian.PutUint64(t.buckets[i>>t.sshift][(i&(1<<t.sshift-1))*8:], v)
}

// entry returns the memory from the entry at address a to the end of its
// segment.
func (t *HashTable) entry(a uint64) []byte {
	return t.ents[a>>t.shift][a&(1<<t.shift-1):]
}

func (t *HashTable) key(e []byte) []byte {
	n := int(binary.LittleEndian.Uint32(e))
	return e[entHeader+t.accPad : entHeader+t.accPad+n : entHeader+t.accPad+n]
}

func (t *HashTable) entSize(keyLen int) int { return entHeader + t.accPad + (keyLen+7)&^7 }

// alloc returns the address and memory of a new entry.
func (t *HashTable) alloc(keyLen int) (uint64, []byte, error) {
	size := t.entSize(keyLen)
	last := len(t.ents) - 1
	if last >= 0 && len(t.ents[last]) == t.m.segSize && t.used[last]+size <= t.m.segSize {
		off := t.used[last]
		t.used[last] += size
		return uint64(last)<<t.shift | uint64(off), t.ents[last][off : off+size], nil
	}
	var (
		b   []byte
		err error
	)
	if size > t.m.segSize {
		b, err = t.m.allocLarge(size)
	} else {
		b, err = t.m.Alloc()
	}
	if err != nil {
		return 0, nil, err
	}
	if uint64(len(t.ents))<<t.shift >= addrMask {
		t.m.freeBuf(b)
		return 0, nil, ErrNoMemory // 1 TiB of entries: no address left
	}
	t.ents = append(t.ents, b)
	t.used = append(t.used, size)
	return uint64(len(t.ents)-1) << t.shift, b[:size], nil
}

// grow doubles the buckets (or makes the first of them, enough for the
// hint) and reinserts every entry, walking the entries in the order they
// lie in memory.
func (t *HashTable) grow() error {
	bits := t.bits + 1
	if len(t.buckets) == 0 {
		bits = t.sshift
		for t.hint*4 > 3<<bits {
			bits++
		}
	}
	nb := t.spare[:0]
	for range 1 << (bits - t.sshift) {
		s, err := t.m.Alloc()
		if err != nil {
			for _, s := range nb {
				t.m.Free(s)
			}
			t.spare = nb[:0]
			if len(t.buckets) == 0 && t.hint > 0 {
				t.hint = 0 // the hint is only a guess: start small
				return t.grow()
			}
			return err
		}
		clear(s)
		nb = append(nb, s)
	}
	for i, s := range t.buckets {
		t.m.Free(s)
		t.buckets[i] = nil
	}
	t.spare = t.buckets[:0]
	t.buckets, t.bits = nb, bits
	for it := t.Iter(); it.Next(); {
		h := Hash(it.key)
		i := t.home(h)
		for t.slot(i) != 0 {
			i = (i + 1) & (1<<t.bits - 1)
		}
		t.setSlot(i, slotTag(h)<<addrBits|(it.addr+1))
	}
	return nil
}

// Reset empties the table and gives its segments back to the manager.
// Accumulators returned before become invalid. The table may be used again:
// its first insert then sizes the buckets for as many entries as it held
// before Reset, so a table reused for window after window of similar size
// does not grow through every size each time.
func (t *HashTable) Reset() {
	t.hint = t.n
	t.dropBuckets()
	for i, e := range t.ents {
		t.m.freeBuf(e)
		t.ents[i] = nil
	}
	t.ents, t.used, t.n = t.ents[:0], t.used[:0], 0
}

// dropBuckets gives the buckets back.
func (t *HashTable) dropBuckets() {
	for i, s := range t.buckets {
		t.m.Free(s)
		t.buckets[i] = nil
	}
	t.buckets, t.bits = t.buckets[:0], 0
}

// Release gives all memory back; the table must not be used afterwards.
func (t *HashTable) Release() {
	t.Reset()
	t.ents, t.used, t.buckets, t.spare, t.hint = nil, nil, nil, nil, 0
}

// Iter returns an iterator over the entries in insertion order. It is
// valid until the table changes.
func (t *HashTable) Iter() *TableIter { return &TableIter{t: t, seg: -1} }

// End returns a position in the table's insertion order: entries inserted
// before the call have addresses below it, later ones at or above it, as
// entries are appended in address order. IterFrom(End()) walks the entries
// inserted since; Reset starts the addresses again.
func (t *HashTable) End() uint64 {
	last := len(t.ents) - 1
	if last < 0 {
		return 0
	}
	if t.used[last] >= t.m.segSize { // full, or a large entry's own buffer
		return uint64(last+1) << t.shift
	}
	return uint64(last)<<t.shift | uint64(t.used[last])
}

// IterFrom returns an iterator, in insertion order, over the entries at or
// after position from (End's). It is valid until the table changes.
func (t *HashTable) IterFrom(from uint64) *TableIter {
	seg, off := int(from>>t.shift), int(from&(1<<t.shift-1))
	switch {
	case from == 0 || len(t.ents) == 0:
		return t.Iter()
	case seg >= len(t.ents):
		seg, off = len(t.ents)-1, t.used[len(t.ents)-1]
	}
	return &TableIter{t: t, seg: seg, off: off}
}

// Sorted returns an iterator over the entries in key order. It sorts an
// index of key prefixes (of layout, which must describe every key, or raw
// ones if layout is nil) and entry addresses, taking its segments from the
// manager; it returns ErrNoMemory if they do not fit. The iterator is valid
// until the table changes, and must be closed.
func (t *HashTable) Sorted(layout *Layout) (*TableIter, error) {
	it := &TableIter{t: t, idx: new(index)}
	if err := it.idx.init(t.m, layout, func(a uint64) []byte { return t.key(t.entry(a)) }); err != nil {
		return nil, err
	}
	for all := t.Iter(); all.Next(); {
		e, err := it.idx.slot()
		if err == nil {
			var trunc bool
			if trunc, err = it.idx.prefix(e, all.Key()); err == nil {
				it.idx.push(e, all.addr, trunc)
			}
		}
		if err != nil {
			it.Close()
			return nil, err
		}
	}
	it.idx.sort()
	return it, nil
}

// TableIter walks a HashTable's entries.
type TableIter struct {
	t   *HashTable
	idx *index // sorted iteration; nil for insertion order

	i        int // next index entry
	seg, off int // insertion order: the current entry
	size     int // of the current entry

	addr     uint64
	key, acc []byte
}

// Next moves to the next entry, the first on the first call, and reports
// whether there is one.
func (it *TableIter) Next() bool {
	t := it.t
	if it.idx != nil {
		if it.i >= it.idx.n {
			return false
		}
		it.addr = it.idx.ptr(it.i)
		it.i++
	} else {
		it.off += it.size
		if it.seg < 0 || it.off >= t.used[it.seg] {
			it.seg++
			it.off = 0
			if it.seg >= len(t.ents) {
				it.seg = len(t.ents)
				return false
			}
		}
		it.addr = uint64(it.seg)<<t.shift | uint64(it.off)
	}
	e := t.entry(it.addr)
	it.key = t.key(e)
	it.size = t.entSize(len(it.key))
	it.acc = e[entHeader : entHeader+t.accSize : entHeader+t.accSize]
	return true
}

// Addr is the current entry's address, as Insert returned it.
func (it *TableIter) Addr() uint64 { return it.addr }

// Key is the current entry's key; it aliases the table.
func (it *TableIter) Key() []byte { return it.key }

// Acc is the current entry's accumulator; it aliases the table.
func (it *TableIter) Acc() []byte { return it.acc }

// Close gives back the memory of a sorted iteration. It is idempotent,
// and a no-op for insertion order.
func (it *TableIter) Close() {
	if it.idx != nil {
		it.idx.release()
	}
}
