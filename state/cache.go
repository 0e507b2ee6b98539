package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/strandsql/strand/memseg"
)

// Cache is a write-back cache of an operator's keyed state in managed
// memory, in front of an indexed batch over its Store: the state of a
// regular join, a deduplication or a Top-N, read and written row by row.
// See the package documentation (Caches) for its design.
//
// Its unit is a prefix: all the entries of one state name in one key
// group whose keys start with it (a join key's rows of one side, a
// partition's rows), loaded with one scan when first touched, so that a
// later read of any key under it, present or not, needs no store access.
// The prefixes of one state name must be prefix-free (none a prefix of
// another), as memseg normalized keys of the same columns are. Every
// call names its key's prefix, by length.
//
// A Cache is not safe for concurrent use.
type Cache struct {
	st *Store
	w  *Batch // the operator's indexed batch: loads and bypassed prefixes
	wb *Batch // write-backs, committed at the end of each
	// ingestAt is the size from which a write-back is an ingested SST
	// (ingestBytes; tests take it lower).
	ingestAt int
	uid      string
	names    []string
	// rank[i] is names[i]'s place in the store's order of the names,
	// byRank[r] the name in place r.
	rank, byRank []int
	mem          *memseg.Manager
	lo           int   // the first key group
	limit        int64 // most bytes the cache takes
	// maxUnit is the most bytes of records a prefix may hold in the
	// cache: a larger one is read and written in the store directly.
	maxUnit int

	segs  [][]byte // arena segments, filled in order
	off   int      // bytes used of the last segment
	large [][]byte // records too large for a segment, reserved
	used  int64    // bytes charged: segments, large records, index

	slots   []uint64 // open addressing: hash>>32<<32 | unit+1
	units   []unit
	heads   []int32 // per key group from lo: its last unit, -1 if none
	dirty   []int32 // the units with entries not written back
	charged int     // bytes reserved for slots, units and heads
	held    held    // the prefixes the store may hold
	// direct: w may hold writes of a prefix that had no unit (no room
	// even after an eviction); w is committed before a unit is made, so
	// that a unit's write-back never comes before them.
	direct bool

	key   []byte      // scratch: a unit's key
	order []dirtyUnit // scratch: the dirty units in key order
}

// unit is a cached prefix.
type unit struct {
	hash  uint64
	key   uint64 // address of kg | name | prefix in the arena
	klen  uint32
	n     uint32 // entries, deleted ones included
	cap   uint32 // capacity of refs
	refs  uint64 // address of n entry addresses, in key order
	bytes int    // bytes of records, for maxUnit
	next  int32  // the previous unit of the same key group
	flags uint8
	miss  uint8 // point reads of a partial unit that went to the store
}

// Unit flags.
const (
	unitDirty   = 1 << iota // has entries to write back
	unitBypass              // too large: its entries are in the store only
	unitStale               // written back and forgotten: start afresh on next touch
	unitPartial             // holds some of the prefix's entries, not all
	unitUsed                // touched since the last eviction: kept by the next
)

// An entry record in the arena: flags (1 byte), key length and value
// length (4 bytes each, little-endian), the key (the whole user key,
// prefix included), the value.
const recHeader = 9

// Entry flags.
const (
	entDirty   = 1 << iota // changed since it was loaded or written back
	entDeleted             // absent: deleted (a tombstone until written back), or read as absent
	entStored              // the store may hold an entry of this key
)

// large addresses have this bit; the rest is, as in a segment address,
// record<<32 | offset, so that an offset may be added to either.
const largeAddr = 1 << 63

// errFull means the cache needs room: it writes back and empties itself.
var errFull = errors.New("state: cache full")

// NewCache returns an empty cache over w, the indexed batch of operator
// uid's store st, for the state names names (referred to by index) of
// key groups lo..hi, taking at most limit bytes from mem. With mem nil or
// a limit too small for a few segments, every access goes to w, as
// without a cache.
//
// The cache writes back through a batch of its own, which it commits at
// the end of each write-back: a key's uncommitted write is so in one
// batch only (a prefix is cached or bypassed until the cache is emptied,
// and w is committed before that), and w sees every write-back.
func NewCache(st *Store, w *Batch, mem *memseg.Manager, limit int64, uid string, lo, hi int, names ...string) *Cache {
	c := &Cache{st: st, w: w, wb: st.NewBatch(), ingestAt: ingestBytes, uid: uid, names: names, mem: mem, lo: lo, limit: limit}
	if mem == nil || limit < 4*int64(mem.SegmentSize()) {
		c.mem = nil
		return c
	}
	c.maxUnit = int(limit / 4)
	c.rank, c.byRank = nameRanks(names)
	c.heads = make([]int32, hi-lo+1)
	for i := range c.heads {
		c.heads[i] = -1
	}
	if holds, err := w.Holds(uid, uint16(lo), uint16(hi), names...); err != nil || holds {
		c.held.off = true // a restore's prefixes are not known; an error reads the store
	} else {
		c.held.open(c)
	}
	return c
}

// nameRanks returns each name's place in the store's order of the
// state names (encodeKey's: a uvarint of the length, then the bytes),
// and the name in each place.
func nameRanks(names []string) (rank, order []int) {
	order = make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return bytes.Compare(encodeKey(nil, "", 0, names[a], nil), encodeKey(nil, "", 0, names[b], nil))
	})
	rank = make([]int, len(names))
	for r, i := range order {
		rank[i] = r
	}
	return rank, order
}

// bytes returns n bytes at addr.
func (c *Cache) bytes(addr uint64, n int) []byte { return at(c.segs, c.large, addr, n) }

// at returns n bytes at addr of the arena of segments segs and large
// records large.
func at(segs, large [][]byte, addr uint64, n int) []byte {
	o := int(uint32(addr))
	s := large
	if addr&largeAddr == 0 {
		s = segs
	}
	b := s[addr&^largeAddr>>32]
	return b[o : o+n : o+n]
}

// alloc returns n bytes of arena and their address, or errFull.
func (c *Cache) alloc(n int) (uint64, []byte, error) {
	seg := 0
	if c.mem != nil {
		seg = c.mem.SegmentSize()
	}
	if n > seg {
		if c.used+int64(n) > c.limit || c.mem.Reserve(n) != nil {
			return 0, nil, errFull
		}
		c.used += int64(n)
		c.large = append(c.large, make([]byte, n))
		return largeAddr | uint64(len(c.large)-1)<<32, c.large[len(c.large)-1], nil
	}
	if len(c.segs) == 0 || c.off+n > seg {
		if c.used+int64(seg) > c.limit {
			return 0, nil, errFull
		}
		s, err := c.mem.Alloc()
		if err != nil {
			return 0, nil, errFull
		}
		c.used += int64(seg)
		c.segs, c.off = append(c.segs, s), 0
	}
	a := uint64(len(c.segs)-1)<<32 | uint64(c.off)
	b := c.segs[len(c.segs)-1][c.off : c.off+n : c.off+n]
	c.off += n
	return a, b, nil
}

// reserve grows the charge for the index to n bytes, or returns errFull.
func (c *Cache) reserve(n int) error {
	if n <= c.charged {
		return nil
	}
	d := n - c.charged
	if c.used+int64(d) > c.limit || c.mem.Reserve(d) != nil {
		return errFull
	}
	c.used += int64(d)
	c.charged = n
	return nil
}

// keyHash is the hash of a whole key, as the filter of what the store may
// hold (held) takes it beside the prefixes: a point read of a partial
// unit's key that the store surely does not hold reads nothing.
func (c *Cache) keyHash(kg uint16, name int, key []byte) uint64 {
	return memseg.Hash(c.unitKey(kg, name, key))
}

// unitKey builds the index key of a prefix in c.key.
func (c *Cache) unitKey(kg uint16, name int, prefix []byte) []byte {
	c.key = append(binary.BigEndian.AppendUint16(c.key[:0], kg), byte(name))
	c.key = append(c.key, prefix...)
	return c.key
}

// find returns the unit of c.key (hash h), or -1, and the slot where it
// is or would go.
func (c *Cache) find(h uint64) (u int32, slot int) {
	if len(c.slots) == 0 {
		return -1, -1
	}
	mask := len(c.slots) - 1
	tag := h >> 32 << 32
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := c.slots[i]
		if s == 0 {
			return -1, i
		}
		if s&^0xffffffff == tag {
			x := &c.units[uint32(s)-1]
			if bytes.Equal(c.bytes(x.key, int(x.klen)), c.key) {
				return int32(uint32(s) - 1), i
			}
		}
	}
}

// An access is what a caller of unit does with the prefix's entries.
type access uint8

const (
	accGet   access = iota // reads a key
	accScan                // reads all the entries: a new unit is loaded whole
	accWrite               // changes a key
)

// none is unit's answer to a read of a prefix that has no entries: the
// cache holds none and the store surely none (held). It makes no unit:
// one would answer no faster, and its memory would bring the next
// eviction closer (a join probes, for each row, its join key on the
// other side, most often absent there).
const none = -2

// unit returns the unit of prefix, a new one partial (holding none of
// its entries yet) unless acc is accScan, when all its entries are
// loaded; -1 means the prefix is not cached and lives in the store, none
// that a read (acc not accWrite) finds it has no entries.
func (c *Cache) unit(kg uint16, name int, prefix []byte, acc access) (int32, error) {
	if c.mem == nil {
		return -1, nil
	}
	u, err := c.tryUnit(kg, name, prefix, acc, false)
	if !errors.Is(err, errFull) {
		return u, err
	}
	if err := c.Evict(); err != nil {
		return -1, err
	}
	u, err = c.tryUnit(kg, name, prefix, acc, true)
	if errors.Is(err, errFull) {
		c.direct = true
		return -1, nil // does not fit even in an emptied cache
	}
	return u, err
}

// tryUnit is unit without making room: it fails with errFull, unless
// last, when a prefix that does not fit is left to the store.
func (c *Cache) tryUnit(kg uint16, name int, prefix []byte, acc access, last bool) (int32, error) {
	h := memseg.Hash(c.unitKey(kg, name, prefix))
	u, slot := c.find(h)
	if u < 0 && acc != accWrite && !c.held.may(h) {
		return none, nil
	}
	if u < 0 {
		if c.direct {
			if err := c.w.Commit(); err != nil {
				return -1, err
			}
			c.direct = false
		}
		if (len(c.units)+1)*4 > len(c.slots)*3 {
			if err := c.growIndex(); err != nil {
				return -1, err
			}
			_, slot = c.find(h)
		}
		if len(c.units) == cap(c.units) {
			if err := c.reserve(c.indexBytes(len(c.slots), 2*cap(c.units)+16)); err != nil {
				return -1, err
			}
			c.units = append(make([]unit, 0, 2*cap(c.units)+16), c.units...)
		}
		ka, kb, err := c.alloc(len(c.key))
		if err != nil {
			return -1, err
		}
		copy(kb, c.key)
		g := int(kg) - c.lo
		u = int32(len(c.units))
		c.units = append(c.units, unit{hash: h, key: ka, klen: uint32(len(kb)), next: c.heads[g], flags: unitStale})
		c.heads[g] = u
		c.slots[slot] = h>>32<<32 | uint64(u+1)
	}
	x := &c.units[u]
	if x.flags&unitStale != 0 {
		// A prefix the store surely does not hold is complete, empty.
		x.flags, x.n, x.bytes, x.miss = 0, 0, 8*int(x.cap), 0
		if c.held.may(h) {
			x.flags = unitPartial
		}
	}
	x.flags |= unitUsed
	if acc == accScan && x.flags&unitPartial != 0 {
		err := c.fill(u, kg, name, prefix)
		if errors.Is(err, errFull) && last {
			err = c.bypass(u, kg, name)
		}
		if err != nil {
			return -1, err
		}
	}
	if c.units[u].flags&unitBypass != 0 {
		return -1, nil
	}
	return u, nil
}

func (c *Cache) indexBytes(slots, units int) int { return slots*8 + units*int(unitSize) }

const unitSize = 64 // bytes of a unit, rounded up

// growIndex doubles the slots and places every unit again.
func (c *Cache) growIndex() error {
	n := max(2*len(c.slots), 64)
	if err := c.reserve(c.indexBytes(n, cap(c.units))); err != nil {
		return err
	}
	c.slots = make([]uint64, n)
	for i := range c.units {
		c.place(int32(i))
	}
	return nil
}

func (c *Cache) place(u int32) {
	h := c.units[u].hash
	mask := len(c.slots) - 1
	i := int(h) & mask
	for c.slots[i] != 0 {
		i = (i + 1) & mask
	}
	c.slots[i] = h>>32<<32 | uint64(u+1)
}

// errBig stops the load of a prefix too large to cache.
var errBig = errors.New("state: prefix too large to cache")

// fill reads the entries of partial unit u that it does not hold from
// the store: what it holds (changed, or read before) stays.
func (c *Cache) fill(u int32, kg uint16, name int, prefix []byte) error {
	err := c.w.ScanPrefix(c.uid, kg, c.names[name], prefix, func(key, value []byte) error {
		x := &c.units[u]
		i, found := c.search(x, key)
		if found {
			return nil
		}
		if x.bytes+recHeader+len(key)+len(value) > c.maxUnit {
			return errBig
		}
		a, err := c.record(key, value, entStored)
		if err != nil {
			return err
		}
		return c.insertRef(u, i, a)
	})
	if errors.Is(err, errBig) {
		return c.bypass(u, kg, name)
	}
	if err != nil {
		return err
	}
	c.units[u].flags &^= unitPartial
	return nil
}

// record appends an entry record to the arena.
func (c *Cache) record(key, value []byte, flags byte) (uint64, error) {
	a, b, err := c.alloc(recHeader + len(key) + len(value))
	if err != nil {
		return 0, err
	}
	b[0] = flags
	binary.LittleEndian.PutUint32(b[1:], uint32(len(key)))
	binary.LittleEndian.PutUint32(b[5:], uint32(len(value)))
	copy(b[recHeader:], key)
	copy(b[recHeader+len(key):], value)
	return a, nil
}

// rec returns the record at addr: its header, key and value.
func (c *Cache) rec(addr uint64) (hdr, key, value []byte) {
	hdr = c.bytes(addr, recHeader)
	kl, vl := int(binary.LittleEndian.Uint32(hdr[1:])), int(binary.LittleEndian.Uint32(hdr[5:]))
	r := c.bytes(addr, recHeader+kl+vl)
	return r[:recHeader], r[recHeader : recHeader+kl], r[recHeader+kl:]
}

func (c *Cache) refs(x *unit) []byte { return c.bytes(x.refs, 8*int(x.cap)) }

func (c *Cache) ref(x *unit, i int) uint64 {
	return binary.LittleEndian.Uint64(c.bytes(x.refs+uint64(8*i), 8))
}

// insertRef inserts the address a at position i of unit u's entries,
// growing its array; it may fail with errFull, changing nothing.
func (c *Cache) insertRef(u int32, i int, a uint64) error {
	x := &c.units[u]
	if x.n == x.cap {
		n := max(2*x.cap, 1)
		ra, rb, err := c.alloc(8 * int(n))
		if err != nil {
			return err
		}
		x = &c.units[u]
		if x.cap > 0 {
			copy(rb, c.refs(x)[:8*x.n])
		}
		x.bytes += 8 * int(n-x.cap)
		x.refs, x.cap = ra, n
	}
	r := c.refs(x)
	copy(r[8*(i+1):8*(x.n+1)], r[8*i:8*x.n])
	binary.LittleEndian.PutUint64(r[8*i:], a)
	x.n++
	_, k, v := c.rec(a)
	x.bytes += recHeader + len(k) + len(v)
	return nil
}

// search finds key among unit x's entries: its position and whether it is
// there (as an entry or a tombstone).
func (c *Cache) search(x *unit, key []byte) (int, bool) {
	lo, hi := 0, int(x.n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		_, k, _ := c.rec(c.ref(x, m))
		if bytes.Compare(k, key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < int(x.n) {
		_, k, _ := c.rec(c.ref(x, lo))
		return lo, bytes.Equal(k, key)
	}
	return lo, false
}

// Get returns the value of key, whose first plen bytes are its prefix, of
// state names[name] in key group kg, and whether it exists. The value is
// valid until the cache's next write.
func (c *Cache) Get(kg uint16, name int, key []byte, plen int) (value []byte, ok bool, err error) {
	for attempt := 0; ; attempt++ {
		u, err := c.unit(kg, name, key[:plen], accGet)
		if u == none {
			return nil, false, err
		}
		if err == nil && u >= 0 {
			value, ok, err = c.tryGet(u, kg, name, key)
			if !errors.Is(err, errFull) {
				return value, ok, err
			}
			if attempt == 0 {
				if err := c.Evict(); err != nil {
					return nil, false, err
				}
				continue
			}
			err = c.bypass(u, kg, name)
		}
		if err != nil {
			return nil, false, err
		}
		return c.w.Get(c.uid, kg, c.names[name], key)
	}
}

// tryGet is Get from unit u: a key that a partial unit does not hold is
// read from the store and kept, present or absent.
func (c *Cache) tryGet(u int32, kg uint16, name int, key []byte) ([]byte, bool, error) {
	x := &c.units[u]
	i, found := c.search(x, key)
	if !found && x.flags&unitPartial != 0 && !c.held.may(c.keyHash(kg, name, key)) {
		// Surely not in the store: absent, with no read, and not kept
		// (the filter answers as fast, and a join's read of its new
		// row's entry comes before its write: a record of its absence
		// would be replaced at once, and its memory lost until the
		// cache is emptied).
		return nil, false, nil
	}
	if !found && x.flags&unitPartial != 0 && x.miss > 0 {
		// A second key read from the store: load them all, so that
		// the prefix's next new keys are known absent.
		if err := c.fill(u, kg, name, c.bytes(x.key, int(x.klen))[3:]); err != nil {
			return nil, false, err
		}
		if c.units[u].flags&unitBypass != 0 {
			return c.w.Get(c.uid, kg, c.names[name], key)
		}
		x = &c.units[u]
		i, found = c.search(x, key)
	}
	if !found && x.flags&unitPartial != 0 {
		x.miss++
		v, ok, err := c.w.Get(c.uid, kg, c.names[name], key)
		if err != nil {
			return nil, false, err
		}
		flags := byte(entStored)
		if !ok {
			flags = entDeleted
		}
		a, err := c.record(key, v, flags)
		if err != nil {
			return nil, false, err
		}
		if err := c.insertRef(u, i, a); err != nil {
			return nil, false, err
		}
		found = true
	}
	if !found {
		return nil, false, nil
	}
	hdr, _, v := c.rec(c.ref(&c.units[u], i))
	if hdr[0]&entDeleted != 0 {
		return nil, false, nil
	}
	return v, true, nil
}

// Scan calls fn, in key order, for each entry of state names[name] in key
// group kg whose key starts with prefix, a whole prefix (not a part of
// one). fn must not write to the cache; key and value are valid only
// during the call.
func (c *Cache) Scan(kg uint16, name int, prefix []byte, fn func(key, value []byte) error) error {
	u, err := c.unit(kg, name, prefix, accScan)
	if err != nil || u == none {
		return err
	}
	if u < 0 {
		return c.w.ScanPrefix(c.uid, kg, c.names[name], prefix, fn)
	}
	x := &c.units[u]
	for i := range int(x.n) {
		hdr, k, v := c.rec(c.ref(x, i))
		if hdr[0]&entDeleted != 0 {
			continue
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Set records that key (its prefix the first plen bytes) of state
// names[name] in key group kg holds value. The cache copies both.
func (c *Cache) Set(kg uint16, name int, key []byte, plen int, value []byte) error {
	return c.change(kg, name, key, plen, value, false)
}

// Delete records that key no longer exists.
func (c *Cache) Delete(kg uint16, name int, key []byte, plen int) error {
	return c.change(kg, name, key, plen, nil, true)
}

func (c *Cache) change(kg uint16, name int, key []byte, plen int, value []byte, del bool) error {
	for attempt := 0; ; attempt++ {
		u, err := c.unit(kg, name, key[:plen], accWrite)
		if err != nil {
			return err
		}
		if u >= 0 {
			err = c.tryChange(u, key, value, del)
		}
		switch {
		case u < 0 || errors.Is(err, errFull) && attempt > 0:
			if u >= 0 {
				if err := c.bypass(u, kg, name); err != nil {
					return err
				}
			}
			if del {
				c.w.Delete(c.uid, kg, c.names[name], key)
			} else {
				if c.mem != nil {
					c.held.add(c, memseg.Hash(c.unitKey(kg, name, key[:plen])))
					c.held.add(c, c.keyHash(kg, name, key))
				}
				c.w.Set(c.uid, kg, c.names[name], key, value)
			}
			return CommitLarge(c.w)
		case errors.Is(err, errFull):
			if err := c.Evict(); err != nil {
				return err
			}
		default:
			if err == nil && c.units[u].bytes > c.maxUnit {
				err = c.bypass(u, kg, name)
			}
			return err
		}
	}
}

// CommitBytes bounds the writes an operator holds in an indexed batch
// before it commits them: a batch lives on the heap.
const CommitBytes = 4 << 20

// CommitLarge commits w once it holds CommitBytes or more.
func CommitLarge(w *Batch) error {
	if w.Len() < CommitBytes {
		return nil
	}
	return w.Commit()
}

// tryChange applies a change to unit u, or fails with errFull changing
// nothing.
func (c *Cache) tryChange(u int32, key, value []byte, del bool) error {
	x := &c.units[u]
	i, found := c.search(x, key)
	partial := x.flags&unitPartial != 0
	switch {
	case del && !found && !partial:
		return nil
	case del && !found:
		// The store may hold it: a tombstone.
		a, err := c.record(key, nil, entDeleted|entDirty|entStored)
		if err != nil {
			return err
		}
		if err := c.insertRef(u, i, a); err != nil {
			return err
		}
	case del:
		a := c.ref(x, i)
		hdr, _, _ := c.rec(a)
		if hdr[0]&entStored == 0 {
			// Never stored: forget it.
			r := c.refs(x)
			copy(r[8*i:], r[8*(i+1):8*x.n])
			x.n--
			return nil
		}
		hdr[0] |= entDeleted | entDirty
	case found:
		a := c.ref(x, i)
		hdr, _, v := c.rec(a)
		if len(v) == len(value) {
			copy(v, value)
			hdr[0] = hdr[0]&entStored | entDirty
			break
		}
		na, err := c.record(key, value, hdr[0]&entStored|entDirty)
		if err != nil {
			return err
		}
		x = &c.units[u]
		binary.LittleEndian.PutUint64(c.refs(x)[8*i:], na)
		x.bytes += len(value) - len(v)
	default:
		flags := byte(entDirty)
		if partial {
			flags |= entStored // the store may hold it
		}
		a, err := c.record(key, value, flags)
		if err != nil {
			return err
		}
		if err := c.insertRef(u, i, a); err != nil {
			return err
		}
	}
	x = &c.units[u]
	if x.flags&unitDirty == 0 {
		x.flags |= unitDirty
		if len(c.dirty) > 2*len(c.units)+64 {
			// Units written back by Forget or bypass are still listed.
			c.dirty = slices.DeleteFunc(c.dirty, func(d int32) bool { return c.units[d].flags&unitDirty == 0 })
		}
		c.dirty = append(c.dirty, u)
	}
	return nil
}

// bypass writes unit u back and leaves its prefix to the store until the
// cache is emptied.
func (c *Cache) bypass(u int32, kg uint16, name int) error {
	if err := c.writeUnit(u, kg, name); err != nil {
		return err
	}
	x := &c.units[u]
	x.flags, x.n = unitBypass, 0
	return c.wb.Commit()
}

// unitOf decodes a unit's key group and name.
func (c *Cache) unitOf(x *unit) (kg uint16, name int) {
	k := c.bytes(x.key, int(x.klen))
	return binary.BigEndian.Uint16(k), int(k[2])
}

// writeUnit writes unit u's changed entries to the batch and drops its
// tombstones.
func (c *Cache) writeUnit(u int32, kg uint16, name int) error {
	c.writeEntries(c.wb, u, kg, name)
	if c.wb.Len() < writeBackBytes {
		return nil
	}
	return c.wb.Commit()
}

// writer is where a write-back writes: a Batch, or the SST of an
// ingested one (sstWriter).
type writer interface {
	Set(uid string, kg uint16, name string, key, value []byte)
	Delete(uid string, kg uint16, name string, key []byte)
}

// writeEntries writes unit u's changed entries to w, in key order, and
// drops its tombstones.
func (c *Cache) writeEntries(w writer, u int32, kg uint16, name int) {
	x := &c.units[u]
	if x.flags&unitDirty == 0 {
		return
	}
	x.flags &^= unitDirty
	r := c.refs(x)
	n := 0
	added := false
	for i := range int(x.n) {
		a := binary.LittleEndian.Uint64(r[8*i:])
		hdr, k, v := c.rec(a)
		if hdr[0]&entDirty != 0 {
			if hdr[0]&entDeleted != 0 {
				w.Delete(c.uid, kg, c.names[name], k)
				continue
			}
			if !added {
				c.held.add(c, x.hash)
				added = true
			}
			if len(k) != int(x.klen)-3 { // a key that is its prefix has its hash
				c.held.add(c, c.keyHash(kg, name, k))
			}
			w.Set(c.uid, kg, c.names[name], k, v)
			hdr[0] = entStored
		}
		binary.LittleEndian.PutUint64(r[8*n:], a)
		n++
	}
	x.n = uint32(n)
}

// writeBackBytes is the most a write-back holds before it commits its
// batch: less than the 1 MiB a Pebble batch keeps for reuse across
// commits, so that it does not grow its buffer again from nothing (as
// CommitBytes would: memmove took 6% of q9's CPU).
const writeBackBytes = 768 << 10

// WriteBack writes every changed entry back to the store, where the
// indexed batch reads it (a checkpoint's snapshot commits that batch, and
// then the store holds the state). The cached entries stay.
//
// A large write-back (ingestAt bytes of records or more) goes to the
// store as an ingested SST (writeSST), a smaller one in batches.
func (c *Cache) WriteBack() error {
	if c.sortDirty() >= c.ingestAt {
		c.dirty = c.dirty[:0]
		return c.writeSST()
	}
	for _, d := range c.order {
		kg, name := uint16(d.hi>>48), c.byRank[d.hi>>40&0xff]
		if err := c.writeUnit(d.u, kg, name); err != nil {
			return err
		}
	}
	c.dirty = c.dirty[:0]
	return c.wb.Commit()
}

// sortDirty orders the dirty units as the store orders their keys (key
// group, state name, prefix; prefixes of a name are prefix-free, so the
// units' entries follow one another), so that a write-back reaches the
// memtable in key order: each insertion then starts from the one before,
// where a random order searched the skiplist from the top (the search
// took 25% of Nexmark q7's CPU). It sorts the first 13 bytes of each
// prefix as two integers, read once, and compares the rest only on a
// tie. A unit listed twice in c.dirty (dirtied again after a Forget or
// bypass wrote it back) is there once. It returns the bytes of the units'
// records.
func (c *Cache) sortDirty() int {
	c.order = c.order[:0]
	size := 0
	for _, u := range c.dirty {
		x := &c.units[u]
		if x.flags&unitDirty == 0 {
			continue // written back by Forget or bypass
		}
		size += x.bytes
		k := c.bytes(x.key, int(x.klen))
		var b [16]byte
		b[0], b[1], b[2] = k[0], k[1], byte(c.rank[k[2]])
		copy(b[3:], k[3:])
		c.order = append(c.order, dirtyUnit{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:]), u})
	}
	slices.SortFunc(c.order, func(a, b dirtyUnit) int {
		switch {
		case a.hi != b.hi:
			return cmp.Compare(a.hi, b.hi)
		case a.lo != b.lo:
			return cmp.Compare(a.lo, b.lo)
		}
		ka := c.bytes(c.units[a.u].key, int(c.units[a.u].klen))
		kb := c.bytes(c.units[b.u].key, int(c.units[b.u].klen))
		return bytes.Compare(ka[3:], kb[3:])
	})
	c.order = slices.CompactFunc(c.order, func(a, b dirtyUnit) bool { return a.u == b.u })
	return size
}

// dirtyUnit is a dirty unit and the first bytes of its key as the store
// orders them, for sortDirty.
type dirtyUnit struct {
	hi, lo uint64
	u      int32
}

// Evict commits the indexed batch, writes every changed entry back, and
// empties the cache but for the prefixes used since the last eviction
// (keep).
func (c *Cache) Evict() error {
	if err := c.w.Commit(); err != nil {
		return err
	}
	if err := c.WriteBack(); err != nil {
		return err
	}
	c.keep()
	return nil
}

// keep empties the written-back cache but for the prefixes touched since
// the last eviction (a second chance: a prefix kept must be touched again
// to be kept again), up to half the limit, which it copies into fresh
// segments before it frees the old ones; it keeps fewer if the memory
// manager has no segments to spare for the copy.
func (c *Cache) keep() {
	segs, large := c.segs, c.large
	c.segs, c.large, c.off = nil, nil, 0
	c.used = int64(c.charged + c.held.bytes)
	clear(c.slots)
	for i := range c.heads {
		c.heads[i] = -1
	}
	n, kept, room := 0, 0, int(c.limit/2)
	for i := range c.units {
		x := c.units[i]
		if x.flags&(unitStale|unitBypass) != 0 || x.flags&unitUsed == 0 {
			continue
		}
		if kept += x.bytes + int(x.klen); kept > room {
			break
		}
		y, ok := c.copyUnit(x, segs, large)
		if !ok {
			break
		}
		y.flags &^= unitUsed
		g := int(binary.BigEndian.Uint16(c.bytes(y.key, 2))) - c.lo
		y.next, c.heads[g] = c.heads[g], int32(n)
		c.units[n] = y
		c.place(int32(n))
		n++
	}
	c.units = c.units[:n]
	for _, s := range segs {
		c.mem.Free(s)
	}
	for _, l := range large {
		c.mem.Unreserve(len(l))
	}
	c.dirty = c.dirty[:0]
}

// copyUnit copies unit x, its key, refs and records, from the arena of
// segs and large into the cache's: false if the arena is full.
func (c *Cache) copyUnit(x unit, segs, large [][]byte) (unit, bool) {
	ka, kb, err := c.alloc(int(x.klen))
	if err != nil {
		return x, false
	}
	copy(kb, at(segs, large, x.key, int(x.klen)))
	x.key, x.cap, x.bytes = ka, x.n, 8*int(x.n)
	if x.n == 0 {
		return x, true
	}
	old := at(segs, large, x.refs, 8*int(x.n))
	ra, _, err := c.alloc(8 * int(x.n))
	if err != nil {
		return x, false
	}
	x.refs = ra
	for i := range int(x.n) {
		a := binary.LittleEndian.Uint64(old[8*i:])
		hdr := at(segs, large, a, recHeader)
		size := recHeader + int(binary.LittleEndian.Uint32(hdr[1:])) + int(binary.LittleEndian.Uint32(hdr[5:]))
		na, b, err := c.alloc(size)
		if err != nil {
			return x, false
		}
		copy(b, at(segs, large, a, size))
		binary.LittleEndian.PutUint64(c.bytes(ra+uint64(8*i), 8), na)
		x.bytes += size
	}
	return x, true
}

// Forget writes back the cached prefixes of key group kg and forgets
// their entries, so that the store alone holds the group's state: for a
// sweep (Sweeper.SweepCache) that rewrites it there through the indexed
// batch and commits it. They are read again when next touched.
func (c *Cache) Forget(kg uint16) error {
	if c.mem == nil {
		return nil
	}
	for u := c.heads[int(kg)-c.lo]; u >= 0; u = c.units[u].next {
		if c.units[u].flags&(unitStale|unitBypass) != 0 {
			continue
		}
		_, name := c.unitOf(&c.units[u])
		if err := c.writeUnit(u, kg, name); err != nil {
			return err
		}
		x := &c.units[u]
		x.flags, x.n = unitStale, 0
	}
	return c.wb.Commit()
}

// reset gives the arena back and forgets every unit; the index keeps its
// memory for the next fill.
func (c *Cache) reset() {
	for _, s := range c.segs {
		c.mem.Free(s)
	}
	for _, l := range c.large {
		c.mem.Unreserve(len(l))
	}
	clear(c.segs)
	clear(c.large)
	c.segs, c.large, c.off = c.segs[:0], c.large[:0], 0
	c.used = int64(c.charged + c.held.bytes)
	c.units = c.units[:0]
	clear(c.slots)
	for i := range c.heads {
		c.heads[i] = -1
	}
	c.dirty = c.dirty[:0]
}

// Release gives all the cache's memory back, dropping what was not
// written back; the cache must not be used afterwards.
func (c *Cache) Release() {
	if c.mem == nil {
		return
	}
	c.reset()
	c.held.release(c)
	c.mem.Unreserve(c.charged)
	c.charged, c.used = 0, 0
	c.slots, c.units, c.mem = nil, nil, nil
}
