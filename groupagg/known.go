package groupagg

import "github.com/strandsql/strand/memseg"

// known is the set of the groups the store may hold, so that a new group
// the store surely does not hold costs no store read (most new groups of
// an append-only input: q17's (auction, day)). It holds a 32-bit
// fingerprint of each group key's hash (memseg.Hash), in an
// open-addressing table with linear probing indexed by the fingerprint
// itself, so it can be rehashed. A fingerprint is added for every group
// the store gets (written back: writeBack) or held when the operator
// opened (restored: Open scans the store); it is never removed, since a
// group deleted from the store only costs a read when it comes back. So
// a key that is not in the set is surely not in the store; one that is
// may be (a fingerprint shared by two keys only costs a read).
//
// The table is charged to the managed memory, up to a knownShare of the
// budget; a set that would grow past that, or that the budget cannot
// hold, is dropped for good (off), and every new group is read from the
// store as before.
type known struct {
	mem     *memseg.Manager
	slots   []uint32 // 0: empty
	n       int
	charged int
	off     bool
}

// knownShare is the share of the managed memory the set may take at
// most (1/knownShare of the budget).
const knownShare = 8

// fingerprint is the set's entry of hash h, never 0.
func fingerprint(h uint64) uint32 {
	return max(uint32(h>>32), 1)
}

// mayHold reports whether the store may hold the group of hash h.
func (k *known) mayHold(h uint64) bool {
	if k.off {
		return true
	}
	if k.n == 0 {
		return false
	}
	f, mask := fingerprint(h), uint32(len(k.slots)-1)
	for i := f & mask; ; i = (i + 1) & mask {
		switch k.slots[i] {
		case f:
			return true
		case 0:
			return false
		}
	}
}

// add records that the store may hold the group of hash h.
func (k *known) add(h uint64) {
	if k.off {
		return
	}
	if 2*(k.n+1) > len(k.slots) && !k.grow() {
		k.drop()
		return
	}
	if k.insert(fingerprint(h)) {
		k.n++
	}
}

func (k *known) insert(f uint32) bool {
	mask := uint32(len(k.slots) - 1)
	for i := f & mask; ; i = (i + 1) & mask {
		switch k.slots[i] {
		case f:
			return false
		case 0:
			k.slots[i] = f
			return true
		}
	}
}

// grow doubles the table, if the budget lets it.
func (k *known) grow() bool {
	size := max(2*len(k.slots), 256)
	bytes := 4 * size
	if int64(bytes) > k.mem.Budget()/knownShare || k.mem.Reserve(bytes) != nil {
		return false
	}
	old := k.slots
	k.slots = make([]uint32, size)
	for _, f := range old {
		if f != 0 {
			k.insert(f)
		}
	}
	k.mem.Unreserve(k.charged)
	k.charged = bytes
	return true
}

// drop gives the set up: every group may be in the store.
func (k *known) drop() {
	k.release()
	k.off = true
}

func (k *known) release() {
	k.slots, k.n = nil, 0
	if k.charged > 0 {
		k.mem.Unreserve(k.charged)
		k.charged = 0
	}
}
