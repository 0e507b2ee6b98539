package groupagg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// ErrMemory is returned when the groups of one input batch (or one
// mini-batch) do not fit in the subtask's managed memory even after every
// other group went back to the store.
var ErrMemory = errors.New("group aggregate: the groups of one batch do not fit in memory.managed.size")

// cache holds the groups in use in managed memory: a hash table from a
// group's key to its slot, and the accumulators' columns with one slot
// per group. The store (Pebble) holds every group; the cache holds the
// ones touched since it was last written back, each read from the store
// when first touched (unless known says the store cannot hold it), and written back, dirty ones only, at a checkpoint
// and when the cache is full (then emptied). So a hot group costs no
// store access per row, and the state is bounded by the store's disk, not
// by memory.
type cache struct {
	mem   *memseg.Manager
	table *memseg.HashTable // key -> slot, 4 bytes
	// dist caches the entries of each DISTINCT column (distinct.go);
	// distBytes estimates the bytes a row's new values take in them.
	dist      []*memseg.HashTable
	distBytes int
	accs      []agg.Acc
	// known is the set of the groups the store may hold (known.go).
	known known
	// Per slot: its table entry and key group, its group's rows, when it
	// was last written (its TTL stamp; unstamped for a group restored
	// without one), whether the store holds an entry for it, whether it
	// changed since, and of its DISTINCT entries (distinct.go) their
	// generation and whether dist holds all of them (only with DISTINCT
	// aggregates).
	addrs  []uint64
	kgs    []uint16
	cnt    []int64
	at     []int64
	stored []bool
	dirty  []bool
	gen    []uint32
	full   []bool
	n      int // slots in use
	// charged is the bytes of the columns reserved in mem.
	charged   int
	slotBytes int
	buf       []byte
	dkey      []byte // a DISTINCT entry's cache key, as loadDistinct reads it
	skey      []byte // a DISTINCT entry's store key (storeKey)
}

func (c *cache) init(mem *memseg.Manager, accs []agg.Acc) {
	c.mem, c.accs = mem, accs
	c.known.mem = mem
	c.table = memseg.NewHashTable(mem, 4)
	c.slotBytes = 8 + 2 + 8 + 8 + 2
	for _, a := range accs {
		c.slotBytes += a.Size()
	}
}

// perGroup estimates a cached group's bytes: its slot and its table
// entry, with a key of a few words.
func (c *cache) perGroup() int {
	return c.slotBytes + 64 + c.distBytes
}

// heap is the bytes the accumulators hold outside their columns.
func (c *cache) heap() int {
	n := 0
	for _, a := range c.accs {
		n += a.Heap()
	}
	return n
}

// makeRoom writes the cache back and empties it if rows new groups might
// not fit in it.
func (a *Agg) makeRoom(rows int) error {
	budget := int(a.mem.Budget())
	if a.n == 0 || a.mem.Used()+int64((rows)*a.perGroup()+a.heap()) <= int64(budget) {
		return nil
	}
	return a.writeBack(a, true)
}

// slot returns the slot of the group of key, reading it from the store
// if it is not cached.
func (c *cache) slot(a *Agg, key []byte) (int32, error) {
	h := memseg.Hash(key)
	addr, acc, inserted, err := c.table.Insert(key, h)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	if !inserted {
		return int32(binary.LittleEndian.Uint32(acc)), nil
	}
	g := int32(c.n)
	if err := c.grow(c.n + 1); err != nil {
		return 0, err
	}
	c.n++
	binary.LittleEndian.PutUint32(acc, uint32(g))
	kg := uint16(h % uint64(a.maxPar)) // exec.KeyGroup, from the hash at hand
	c.addrs[g], c.kgs[g], c.dirty[g] = addr, kg, false
	if len(c.dist) > 0 {
		c.gen[g] = 0
	}
	var v []byte
	ok := false
	if c.known.mayHold(h) {
		if v, ok, err = a.writes.Get(a.spec.UID, kg, groupName, key); err != nil {
			return 0, err
		}
	}
	c.stored[g] = ok
	if !ok {
		// A group the store does not hold has no DISTINCT entries there
		// either: they go when it does (clearDistinct).
		c.cnt[g], c.at[g] = 0, unstamped
		if len(c.dist) > 0 {
			c.full[g] = true
		}
		for _, ac := range c.accs {
			ac.Reset(g)
		}
		return g, nil
	}
	if err := c.decode(g, v); err != nil {
		return 0, err
	}
	return g, a.loadDistinct(g, key)
}

// grow makes room for n slots, charging their columns to the budget. It
// takes room for at least 64 when the budget has it, so that a cache of a
// few groups does not grow slot by slot, and else for as many as the
// columns take when they grow: they double (agg.Grow, the accumulators'
// Grow), so that is double, or n if more. Charging n alone would leave
// the rest of what they took outside the budget.
func (c *cache) grow(n int) error {
	if n <= len(c.cnt) {
		return nil
	}
	took := max(n, 2*len(c.cnt)) // what the columns take
	size := max(took, 64)
	err := c.mem.Reserve((size - len(c.cnt)) * c.slotBytes)
	if err != nil && size > took {
		size = took
		err = c.mem.Reserve((size - len(c.cnt)) * c.slotBytes)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMemory, err)
	}
	c.charged += (size - len(c.cnt)) * c.slotBytes
	for _, ac := range c.accs {
		ac.Grow(size)
	}
	c.addrs = agg.Grow(c.addrs, size)
	c.kgs = agg.Grow(c.kgs, size)
	if len(c.dist) > 0 {
		c.gen = agg.Grow(c.gen, size)
		c.full = agg.Grow(c.full, size)
	}
	c.cnt = agg.Grow(c.cnt, size)
	c.at = agg.Grow(c.at, size)
	c.stored = agg.Grow(c.stored, size)
	c.dirty = agg.Grow(c.dirty, size)
	return nil
}

// A group entry's value: its TTL stamp (state.TTL), the group's row
// count (a varint), then each accumulator's state (agg.Acc.Put) in the
// order of the aggregates.
func (c *cache) decode(g int32, v []byte) error {
	at, stamped, v, err := state.Split(v)
	if err != nil {
		return err
	}
	c.at[g] = unstamped
	if stamped {
		c.at[g] = at
	}
	cnt, n := binary.Varint(v)
	if n <= 0 {
		return fmt.Errorf("%w: group entry %x", memseg.ErrCorrupt, v)
	}
	c.cnt[g] = cnt
	rest := v[n:]
	for _, ac := range c.accs {
		if rest, err = ac.Get(rest, g); err != nil {
			return fmt.Errorf("group entry: %w", err)
		}
	}
	if len(rest) != 0 {
		return fmt.Errorf("%w: group entry has %d bytes too many", memseg.ErrCorrupt, len(rest))
	}
	return nil
}

func (c *cache) encode(g int32, ttl state.TTL) []byte {
	c.buf = binary.AppendVarint(ttl.Stamp(c.buf[:0], c.at[g]), c.cnt[g])
	for _, ac := range c.accs {
		c.buf = ac.Put(c.buf, g)
	}
	return c.buf
}

// writeBack writes the dirty groups to the store: a group without rows
// is deleted. With evict, the cache is emptied.
func (c *cache) writeBack(a *Agg, evict bool) error {
	for g := range int32(c.n) {
		if !c.dirty[g] {
			continue
		}
		key, kg := c.table.KeyAt(c.addrs[g]), c.kgs[g]
		switch {
		case c.cnt[g] > 0:
			if !c.stored[g] { // a stored group is known already
				c.known.add(memseg.Hash(key))
			}
			a.writes.Set(a.spec.UID, kg, groupName, key, c.encode(g, a.spec.TTL.TTL))
			c.stored[g] = true
		case c.stored[g]:
			a.writes.Delete(a.spec.UID, kg, groupName, key)
			c.stored[g] = false
		}
		c.dirty[g] = false
		if err := a.commitSome(); err != nil {
			return err
		}
	}
	if err := a.writeBackDistinct(evict); err != nil {
		return err
	}
	if !evict {
		return nil
	}
	for g := range int32(c.n) {
		for _, ac := range c.accs {
			ac.Reset(g) // gives back what a slot holds on the heap
		}
	}
	c.table.Reset()
	c.n = 0
	return nil
}

// unstamped is the time of a slot whose group has no TTL stamp: new, or
// restored from state written without a TTL. It never expires before its
// next write stamps it.
const unstamped = math.MinInt64

// expire starts group g afresh, its DISTINCT values too, if it has
// expired at now, which is then the time it was last written; a group
// touched earlier in the segment (of a mini-batch) was written then and
// lives on.
func (c *cache) expire(a *Agg, g int32, touched bool, now int64) {
	ttl := a.spec.TTL.TTL
	if !ttl.On() {
		return
	}
	if !touched && c.cnt[g] > 0 && c.at[g] != unstamped && !ttl.Live(c.at[g], now) {
		c.cnt[g] = 0
		for _, ac := range c.accs {
			ac.Reset(g)
		}
		c.dirty[g] = true
		a.clearDistinct(g)
	}
	c.at[g] = max(c.at[g], now)
}

func (c *cache) release() {
	c.known.release()
	if c.table != nil {
		c.table.Release()
		c.table = nil
	}
	for _, t := range c.dist {
		t.Release()
	}
	c.dist = nil
	if c.charged > 0 {
		c.mem.Unreserve(c.charged)
		c.charged = 0
	}
}
