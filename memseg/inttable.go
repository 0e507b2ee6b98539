package memseg

import "unsafe"

// IntTable maps 8-byte keys to 32-bit values: the group table of an
// operator whose group key is one integer-like column (BIGINT, INT, DATE,
// TIMESTAMP), whose normalized key is a marker and 8 bytes. The key is
// kept in the slot with its value, so a lookup reads one slot, where a
// HashTable reads a slot and then the entry that holds the key: one cache
// miss per lookup instead of two when the table is larger than the cache.
//
// Slots are 16 bytes, open addressing with linear probing, doubled at
// three quarters full: the key, the value plus one (zero marks an empty
// slot), and the top 32 bits of the mixed hash, which pick the slot's home
// (so growing rehashes nothing). The slots are one typed slice, charged to
// the Manager's budget rather than cut into segments: the hot path indexes
// it directly. It holds no pointers; a large one is a block of the
// Manager's mapped memory (allocBlock), outside the Go heap.
//
// An IntTable is not safe for concurrent use. Its owner must Release it.
type IntTable struct {
	m     *Manager
	slots []intSlot
	bits  uint // log2 of len(slots), at most 32
	n     int
	hint  int // entries before the last Reset
	// sink keeps Lookup's prefetching loads from being optimized away.
	sink uint32
}

type intSlot struct {
	key uint64
	val uint32 // the value + 1; 0 for an empty slot
	tag uint32 // (hash * fib) >> 32
}

const intSlotSize = int(unsafe.Sizeof(intSlot{}))

// minIntBits is the smallest table: 1 KiB of slots.
const minIntBits = 6

// NewIntTable returns an empty table. It takes no memory until the first
// insert.
func NewIntTable(m *Manager) *IntTable { return &IntTable{m: m} }

// Expect sizes the table's first slots for n keys, if it has none yet: a
// caller that makes one table after another of similar size (a window's
// slices) saves the table growing through every size. If the budget
// cannot take that many, the table starts small.
func (t *IntTable) Expect(n int) {
	if len(t.slots) == 0 {
		t.hint = n
	}
}

// Len is the number of keys.
func (t *IntTable) Len() int { return t.n }

// Bytes is the memory the table holds, charged to its manager.
func (t *IntTable) Bytes() int { return len(t.slots) * intSlotSize }

func intTag(hash uint64) uint32 { return uint32((hash * fib) >> 32) }

func (t *IntTable) home(tag uint32) uint64 { return uint64(tag) >> (32 - t.bits) }

// Find returns key's value; false if the table does not hold key. hash is
// the caller's hash of the key (any fixed function of it, the same for
// every call on the table; callers pass HashInt64, which they have
// computed for key groups already).
func (t *IntTable) Find(key, hash uint64) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(intTag(hash)); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.val == 0 {
			return 0, false
		}
		if s.key == key {
			return s.val - 1, true
		}
	}
}

// Insert returns key's value, inserting key with value val if it is new
// (inserted reports which). val must be below 1<<32 - 1. It returns
// ErrNoMemory, and leaves the table as it was, when the manager cannot
// give the memory the table needs to grow; the caller spills and retries,
// or fails.
func (t *IntTable) Insert(key, hash uint64, val uint32) (v uint32, inserted bool, err error) {
	if val == ^uint32(0) {
		panic("memseg: IntTable value out of range")
	}
	tag := intTag(hash)
	for {
		if len(t.slots) > 0 {
			mask := uint64(len(t.slots) - 1)
			i := t.home(tag)
			for ; t.slots[i].val != 0; i = (i + 1) & mask {
				if s := &t.slots[i]; s.key == key {
					return s.val - 1, false, nil
				}
			}
			if (t.n+1)*4 <= 3*len(t.slots) {
				t.slots[i] = intSlot{key: key, val: val + 1, tag: tag}
				t.n++
				return val, true, nil
			}
		}
		if err := t.grow(); err != nil {
			return 0, false, err
		}
	}
}

// Lookup sets vals[i] to the value of keys[i], or -1 if the table does
// not hold it, for every i; hashes[i] is keys[i]'s hash (as for Find).
// It first loads the home slot of every key, loads that do not depend on
// each other and so overlap their cache misses, then probes: for a table
// larger than the cache, a batch costs about one miss's latency per
// handful of keys rather than one per key. When the keys are at least a
// quarter as many as the slots it reads the slots in address order
// instead. vals must be as long as keys.
func (t *IntTable) Lookup(keys, hashes []uint64, vals []int32) {
	vals = vals[:len(keys)]
	hashes = hashes[:len(keys)]
	if t.n == 0 {
		for i := range vals {
			vals[i] = -1
		}
		return
	}
	slots := t.slots
	mask := uint64(len(slots) - 1)
	shift := 32 - t.bits
	var sink uint32
	if len(keys)*4 >= len(slots) {
		// Keys at least a quarter as many as the slots: read every line
		// of the slots in address order instead, which the hardware
		// prefetches, where the home slots' loads are at random (a window
		// subtask at parallelism 2 looks up batches in tables that have
		// left the cache since the other source's rows went there).
		for i := 0; i < len(slots); i += 64 / intSlotSize {
			sink += slots[i].val
		}
	} else {
		for _, h := range hashes {
			sink += slots[uint64(intTag(h))>>shift&mask].val
		}
	}
	t.sink = sink
	for j, key := range keys {
		v := int32(-1)
		for i := uint64(intTag(hashes[j])) >> shift & mask; ; i = (i + 1) & mask {
			s := &slots[i]
			if s.val == 0 {
				break
			}
			if s.key == key {
				v = int32(s.val - 1)
				break
			}
		}
		vals[j] = v
	}
}

// Fill completes a Lookup: for every i with vals[i] < 0 it inserts
// keys[i] (hash hashes[i]) with the value next, next+1, ... (each new key
// the next one, in the order of keys), or finds it if an earlier key of
// the batch inserted it, and sets vals[i] to its value; it appends the
// keys it inserts to added. It stops before a new key that would take
// the value limit (the caller has room for values below it), or that the
// table cannot grow for (ErrNoMemory), and returns how many of keys it
// completed, len(keys) when all.
func (t *IntTable) Fill(keys, hashes []uint64, vals []int32, next, limit uint32, added []uint64) (int, []uint64, error) {
	hashes, vals = hashes[:len(keys)], vals[:len(keys)]
	for i, key := range keys {
		if vals[i] >= 0 {
			continue
		}
		if next == limit || (t.n+1)*4 > 3*len(t.slots) {
			if v, ok := t.Find(key, hashes[i]); ok {
				vals[i] = int32(v)
				continue
			}
			if next == limit {
				return i, added, nil
			}
			if err := t.grow(); err != nil {
				return i, added, err
			}
		}
		tag := intTag(hashes[i])
		mask := uint64(len(t.slots) - 1)
		j := t.home(tag)
		for ; t.slots[j].val != 0 && t.slots[j].key != key; j = (j + 1) & mask {
		}
		d := &t.slots[j]
		if d.val == 0 {
			*d = intSlot{key: key, val: next + 1, tag: tag}
			t.n++
			next++
			added = append(added, key)
		}
		vals[i] = int32(d.val - 1)
	}
	return len(keys), added, nil
}

// Union inserts keys into t, whose hashes are hashes (as for Find), each
// new key with the value t.Len() at its insertion (0, 1, 2, ... in an
// empty table, in the order of keys), sets to[i] to the value of keys[i]
// in t, and appends the keys new to t to added. hashes and to must be as
// long as keys. It returns ErrNoMemory, t holding the keys it inserted
// before, when t cannot grow. A window aggregate unites its slices' keys
// so into the window's groups.
func (t *IntTable) Union(keys, hashes []uint64, to []int32, added []uint64) ([]uint64, error) {
	to = to[:len(keys)]
	for i := range to {
		to[i] = -1
	}
	_, added, err := t.Fill(keys, hashes, to, uint32(t.n), ^uint32(0), added)
	return added, err
}

// grow doubles the slots (or makes the first, enough for the hint) and
// moves every key to its home in the new slots.
func (t *IntTable) grow() error {
	bits := t.bits + 1
	if len(t.slots) == 0 {
		bits = minIntBits
		for t.hint*4 > 3<<bits {
			bits++
		}
	}
	if bits > 32 {
		return ErrNoMemory
	}
	slots, err := t.alloc(1 << bits)
	if err != nil {
		if len(t.slots) == 0 && t.hint > 0 {
			t.hint = 0 // the hint is only a guess: start small
			return t.grow()
		}
		return err
	}
	old := t.slots
	t.slots, t.bits = slots, bits
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.val == 0 {
			continue
		}
		i := t.home(s.tag)
		for t.slots[i].val != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
	t.free(old)
	return nil
}

// tableBlock is the least size of slots that alloc takes from a block;
// smaller tables' slots come from the Go heap.
const tableBlock = 64 << 10

// alloc returns n empty slots charged to the budget: a large table's in a
// block of mapped memory (Manager.allocBlock), a small one's from the Go
// heap.
func (t *IntTable) alloc(n int) ([]intSlot, error) {
	size := n * intSlotSize
	if size < tableBlock {
		if err := t.m.Reserve(size); err != nil {
			return nil, err
		}
		return make([]intSlot, n), nil
	}
	b, err := t.m.allocBlock(size)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*intSlot)(unsafe.Pointer(unsafe.SliceData(b))), n), nil
}

// free gives back slots from alloc.
func (t *IntTable) free(slots []intSlot) {
	size := len(slots) * intSlotSize
	switch {
	case size == 0:
	case size < tableBlock:
		t.m.Unreserve(size)
	default:
		t.m.freeBlock(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(slots))), size))
	}
}

// Reset empties the table and gives its memory back. The table may be
// used again: its first insert then sizes the slots for as many keys as
// it held before Reset.
func (t *IntTable) Reset() {
	t.hint = t.n
	t.free(t.slots)
	t.slots, t.bits, t.n = nil, 0, 0
}

// Clear empties the table and keeps its slots, for a table filled again
// and again to about the same size.
func (t *IntTable) Clear() {
	clear(t.slots)
	t.n = 0
}

// Release gives all memory back; the table must not be used afterwards.
func (t *IntTable) Release() {
	t.Reset()
	t.hint = 0
}
