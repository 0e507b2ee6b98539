package window

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
)

// DISTINCT aggregates in sessions. A session's DISTINCT aggregate is an
// accumulator over the session's distinct values, which it must keep to
// know whether a row's value is new, and which must merge when sessions
// do: the values of two sessions that merge are counted once.
//
// A session's values are a list of sets, each set a chain of entries in
// one memseg.HashTable per aggregate, keyed by set number and value (the
// value's normalized key, NULLs and rows its FILTER drops left out). A
// new session has a set of its own, where its new values go; a merge
// appends the other session's sets to its list, so that it needs no
// memory: a merge happens while rows are placed, where running out of
// memory could not be undone. The accumulator of the merged session is
// that of the session with more values, updated with the other's values
// it does not have (probed in the larger one's sets), so a value in both
// counts once; a value in two sets of one session is found in the first.
// A row's value is new when none of its session's sets has it; adding it
// is the one step that takes memory, and is undone when another of the
// row's DISTINCT values then does not fit, so that the row can come back
// after a spill with nothing of it counted.
//
// The sets of sessions that fired or merged away are garbage in the
// table: once they hold more values than the live sets, collect rebuilds
// the table with one set per session, or spills if that does not fit.
type distinct struct {
	values *memseg.HashTable // key: set (4 bytes big-endian) | value; acc: link
	// first and last are per slot: its list of sets.
	first, last []int32
	// next, head and n are per set: the next set of its session's list
	// (-1 ends it), its newest linked entry + 1 (0: none), and its values.
	next   []int32
	head   []uint64
	n      []int32
	setCap int
	// live counts the values of live sets, dead those of sets gone.
	live, dead int

	enc   memseg.KeyEncoder
	dec   *keyDecoder
	typ   arrow.DataType
	alloc memory.Allocator
	key   []byte
	probe []byte
	val   []byte // a row's value
	// Scratch of merge.
	rows, slots []int32
}

// An entry's accumulator links it into its set's chain: linked | (next
// entry's address + 1), or 0 for an entry left behind by a row undone.
const (
	linked = uint64(1) << 63
	// setBytes per set and slotSetBytes per slot are what the lists take.
	setBytes     = 4 + 8 + 4
	slotSetBytes = 4 + 4
)

func newDistinct(m *memseg.Manager, t arrow.DataType, alloc memory.Allocator) (*distinct, error) {
	dec, err := newKeyDecoder([]arrow.DataType{t})
	if err != nil {
		return nil, err
	}
	return &distinct{values: memseg.NewHashTable(m, 8), dec: dec, typ: t, alloc: alloc}, nil
}

// use makes the values' table take its memory from m.
func (d *distinct) use(m *memseg.Manager) {
	d.values.Release()
	d.values = memseg.NewHashTable(m, 8)
}

// grow makes room for n sets.
func (d *distinct) grow(n int) {
	d.next, d.head, d.n = growTo(d.next, n), growTo(d.head, n), growTo(d.n, n)
	d.setCap = n
}

func growTo[T any](s []T, n int) []T { return append(make([]T, 0, n), s...) }

// newSet gives slot a list of one new, empty set. The caller has made
// room for it (grow).
func (d *distinct) newSet(slot int32) {
	set := int32(len(d.next))
	d.next, d.head, d.n = append(d.next, -1), append(d.head, 0), append(d.n, 0)
	d.first[slot], d.last[slot] = set, set
}

// setKey is the table key of value in set.
func setKey(dst []byte, set int32, value []byte) []byte {
	return append(binary.BigEndian.AppendUint32(dst, uint32(set)), value...)
}

// has reports whether one of slot's sets holds value.
func (d *distinct) has(slot int32, value []byte) bool {
	return d.hasIn(d.first[slot], -1, value)
}

// hasIn reports whether a set of the list from set from up to (not
// including) set stop holds value.
func (d *distinct) hasIn(from, stop int32, value []byte) bool {
	for set := from; set >= 0 && set != stop; set = d.next[set] {
		d.probe = setKey(d.probe[:0], set, value)
		if _, acc, ok := d.values.Find(d.probe, memseg.Hash(d.probe)); ok && binary.LittleEndian.Uint64(acc)&linked != 0 {
			return true
		}
	}
	return false
}

// add adds value to slot's values unless it has it, and reports whether
// it was new. It returns ErrNoMemory, having changed nothing, when the
// value does not fit.
func (d *distinct) add(slot int32, value []byte) (bool, error) {
	if d.has(slot, value) {
		return false, nil
	}
	set := d.first[slot]
	d.key = setKey(d.key[:0], set, value)
	addr, acc, _, err := d.values.Insert(d.key, memseg.Hash(d.key))
	if err != nil {
		return false, err
	}
	binary.LittleEndian.PutUint64(acc, linked|d.head[set])
	d.head[set] = addr + 1
	d.n[set]++
	d.live++
	return true, nil
}

// unlinkNewest takes back the value add added last to slot.
func (d *distinct) unlinkNewest(slot int32) {
	set := d.first[slot]
	acc := d.values.AccAt(d.head[set] - 1)
	d.head[set] = binary.LittleEndian.Uint64(acc) &^ linked
	binary.LittleEndian.PutUint64(acc, 0)
	d.n[set]--
	d.live--
}

// count is the number of values in slot's sets, a value in two of them
// counted twice.
func (d *distinct) count(slot int32) int {
	n := 0
	for set := d.first[slot]; set >= 0; set = d.next[set] {
		n += int(d.n[set])
	}
	return n
}

// each calls fn with each of slot's values once. The value aliases the
// table.
func (d *distinct) each(slot int32, fn func(value []byte) error) error {
	for set := d.first[slot]; set >= 0; set = d.next[set] {
		for a := d.head[set]; a != 0; {
			v := d.values.KeyAt(a - 1)[4:]
			if set == d.first[slot] || !d.hasIn(d.first[slot], set, v) {
				if err := fn(v); err != nil {
					return err
				}
			}
			a = binary.LittleEndian.Uint64(d.values.AccAt(a-1)) &^ linked
		}
	}
	return nil
}

// merge folds session from's values and its accumulator ac into session
// into's, appending from's sets to into's list. It takes no memory.
func (d *distinct) merge(ac agg.Acc, into, from int32) {
	small, big := from, into
	if d.count(from) > d.count(into) {
		// into takes from's accumulator, and its own values not in
		// from's sets are added to it.
		ac.Reset(into)
		ac.Merge(into, from)
		small, big = into, from
	}
	bld := array.NewBuilder(d.alloc, d.typ)
	defer bld.Release()
	bs := []array.Builder{bld}
	d.rows, d.slots = d.rows[:0], d.slots[:0]
	// The values decode: they were encoded by the same types.
	_ = d.each(small, func(v []byte) error {
		if d.has(big, v) {
			return nil
		}
		if _, err := d.dec.decode(bs, v); err != nil {
			return err
		}
		d.rows = append(d.rows, int32(len(d.rows)))
		d.slots = append(d.slots, into)
		return nil
	})
	if len(d.rows) > 0 {
		col := bld.NewArray()
		ac.Update(col, d.rows, d.slots)
		col.Release()
	}
	d.next[d.last[into]] = d.first[from]
	d.last[into] = d.last[from]
	d.first[from], d.last[from] = -1, -1
}

// release drops slot's sets: their values are garbage now.
func (d *distinct) release(slot int32) {
	for set := d.first[slot]; set >= 0; set = d.next[set] {
		d.live -= int(d.n[set])
		d.dead += int(d.n[set])
	}
	d.first[slot], d.last[slot] = -1, -1
}

// distinctRows adds the DISTINCT values of s.rows (their sessions in
// s.slots) and records in s.dRows and s.dSlots the rows whose value is new
// to their session. It returns how many rows it did that for: fewer than
// all when a value does not fit, the row it stopped at leaving nothing
// behind.
func (s *Sessions) distinctRows(b arrow.RecordBatch) int {
	for i := range s.dist {
		s.dRows[i], s.dSlots[i] = s.dRows[i][:0], s.dSlots[i][:0]
	}
	for j, r := range s.rows {
		slot := s.slots[j]
		for i, d := range s.dist {
			ag := s.spec.Aggs[i]
			if d == nil || b.Column(ag.Arg).IsNull(int(r)) {
				continue
			}
			if ag.Filter >= 0 {
				f := b.Column(ag.Filter).(*array.Boolean)
				if !f.IsValid(int(r)) || !f.Value(int(r)) {
					continue
				}
			}
			d.val = d.enc.Append(d.val[:0], int(r))
			added, err := d.add(slot, d.val)
			if err != nil {
				// The row comes back after a spill: what it added goes.
				for i2 := range i {
					if n := len(s.dRows[i2]); n > 0 && s.dRows[i2][n-1] == r {
						s.dRows[i2], s.dSlots[i2] = s.dRows[i2][:n-1], s.dSlots[i2][:n-1]
						s.dist[i2].unlinkNewest(slot)
					}
				}
				return j
			}
			if added {
				s.dRows[i] = append(s.dRows[i], r)
				s.dSlots[i] = append(s.dSlots[i], slot)
			}
		}
	}
	return len(s.rows)
}

// collect rebuilds the tables of DISTINCT values whose garbage outgrows
// their live values, with one set per session; when a rebuild does not
// fit in memory, everything spills instead.
func (s *Sessions) collect() error {
	for _, d := range s.dist {
		if d == nil || d.dead < 4096 || d.dead < d.live {
			continue
		}
		if err := s.rebuild(d); err != nil {
			return s.spillAll()
		}
	}
	return nil
}

// rebuild copies the values of d's live sessions into a new table, one
// set per session. It leaves d as it was if the new table does not fit.
func (s *Sessions) rebuild(d *distinct) error {
	nd := &distinct{values: memseg.NewHashTable(s.mem, 8), dec: d.dec, typ: d.typ, alloc: d.alloc, setCap: d.setCap}
	nd.first, nd.last = make([]int32, len(d.first), cap(d.first)), make([]int32, len(d.last), cap(d.last))
	nd.next, nd.head, nd.n = make([]int32, 0, d.setCap), make([]uint64, 0, d.setCap), make([]int32, 0, d.setCap)
	for slot := range d.first {
		nd.first[slot], nd.last[slot] = -1, -1
		if d.first[slot] < 0 {
			continue
		}
		nd.newSet(int32(slot))
		err := d.each(int32(slot), func(v []byte) error {
			_, err := nd.add(int32(slot), v)
			return err
		})
		if err != nil {
			nd.values.Release()
			return err
		}
	}
	d.values.Release()
	d.values, d.first, d.last, d.next, d.head, d.n = nd.values, nd.first, nd.last, nd.next, nd.head, nd.n
	d.live, d.dead = nd.live, 0
	return nil
}
