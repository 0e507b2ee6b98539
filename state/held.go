package state

import "math/bits"

// held is what a Cache's store may hold under its names, by prefix: a
// prefix it surely does not hold starts complete and empty in the cache,
// with no store read (most of a join's probes are of join keys never seen,
// most of a deduplication's reads of keys never seen).
//
// It is a blocked Bloom filter of the prefixes' hashes (memseg.Hash of
// key group, name and prefix, as the cache's index uses): a prefix added
// is always found, one never added is found by mistake about once in a
// hundred (a mistake costs the store read there was without the filter).
// A prefix is added whenever the store may get an entry under it: the
// cache writes an entry back or writes it to the store directly (a
// bypassed prefix). Prefixes are never removed: a prefix deleted from the
// store only costs a read when it comes back. The store's other writers
// for the cache's names rewrite or delete entries it holds already (a TTL
// sweep), so they add nothing.
//
// Its size is fixed when the cache is made (1/heldShare of the cache's
// limit, charged to it: it must not wait for the first write-back, which
// comes when the cache is full). Once it holds more prefixes than it answers well for
// (heldBits per prefix) it is dropped for good (off), and every new
// prefix is read from the store as without it. It is off from the start
// when the store held entries of the cache's names when the cache was
// made (a restore): their prefixes are not known (the cache knows a
// prefix's length only from its caller), and scanning them to find out
// would read the whole restored state.
type held struct {
	words []uint64 // blocks of 8 words
	n     int      // prefixes added that set a bit
	max   int      // prefixes past which the filter is dropped
	bytes int      // bytes charged for words
	off   bool     // the store may hold any prefix
}

const (
	heldShare = 32 // the filter takes 1/heldShare of the cache's limit
	heldBits  = 10 // bits per prefix: about 1% false positives
	heldProbe = 6  // bits set per prefix, in one block of 512
)

// may reports whether the store may hold entries under the prefix of
// hash h.
func (f *held) may(h uint64) bool {
	if f.off {
		return true
	}
	b, m := f.block(h)
	for i := range heldProbe {
		p := m >> (64 - 9*(i+1)) & 511
		if b[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// block returns h's block and the bits that choose its positions there.
func (f *held) block(h uint64) ([]uint64, uint64) {
	nb := uint64(len(f.words) / 8)
	i, _ := bits.Mul64(h, nb)
	return f.words[8*i : 8*i+8 : 8*i+8], bits.RotateLeft64(h, 32) * 0x9e3779b97f4a7c15
}

// add records that the store may hold entries under the prefix of hash
// h; c charges the filter's memory to its limit.
func (f *held) add(c *Cache, h uint64) {
	if f.off {
		return
	}
	b, m := f.block(h)
	set := false
	for i := range heldProbe {
		p := m >> (64 - 9*(i+1)) & 511
		if b[p>>6]&(1<<(p&63)) == 0 {
			b[p>>6] |= 1 << (p & 63)
			set = true
		}
	}
	if set {
		f.n++
		if f.n > f.max {
			f.drop(c)
		}
	}
}

// open takes the filter's memory from the new cache c, or turns it off
// when that does not fit.
func (f *held) open(c *Cache) {
	n := int(c.limit/heldShare) &^ 63
	if n < 64 || c.used+int64(n) > c.limit || c.mem.Reserve(n) != nil {
		f.off = true
		return
	}
	c.used += int64(n)
	f.words, f.bytes, f.max = make([]uint64, n/8), n, n*8/heldBits
}

// drop gives the filter up, and its memory back.
func (f *held) drop(c *Cache) {
	f.release(c)
	f.off = true
}

func (f *held) release(c *Cache) {
	if f.bytes > 0 {
		c.mem.Unreserve(f.bytes)
		c.used -= int64(f.bytes)
	}
	f.words, f.bytes, f.n = nil, 0, 0
}
