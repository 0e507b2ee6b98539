package window

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/memseg"
)

// A pane numbers its groups 0, 1, 2, ... in the order they come, and
// finds a group's number by its key in one of two tables:
//
//   - When the aggregate groups by one integer-like column (BIGINT, INT,
//     DATE, TIMESTAMP), a memseg.IntTable from the key's 8 value bytes
//     (the normalized key without its marker, as a uint64) to the number,
//     with the values in ikeys, per group; the group of the NULL key, if
//     any, is null. A batch's keys are hashed, then looked up together
//     (IntTable.Lookup overlaps their cache misses), then the new ones
//     inserted in one pass (IntTable.Fill).
//   - Otherwise a memseg.HashTable from the normalized key to the number
//     (4 bytes, little-endian), each group's entry address in addrs.
//
// Either way a group's key is its normalized key (keyAt), and both tables
// are keyed by memseg.Hash of it (HashInt64 for integers, the same
// function), so the hashes a hash exchange computed serve both. That hash
// also gives the group's key group, which every path that makes a group
// records then (Aggregate.record), in group order: from the hash at hand,
// or for groups IntTable.Fill made, from their values (recordFilled).

// nullKey and zeroKey are the normalized keys of a NULL and of 0 of an
// integer-like column: a marker alone, and a marker and 8 bytes; nullHash
// is nullKey's hash, which the NULL group has no table entry to take
// from.
var (
	nullKey  = memseg.AppendNull(nil, memseg.Order{})
	zeroKey  = memseg.AppendInt64(nil, 0, memseg.Order{})
	nullHash = memseg.Hash(nullKey)
)

// intKeyed reports whether an aggregate of spec groups by one
// integer-like column: its panes have IntTables.
func intKeyed(spec *Spec) bool {
	if len(spec.Keys) != 1 {
		return false
	}
	switch spec.In[spec.Keys[0]].Type.Arrow().ID() {
	case arrow.INT64, arrow.INT32, arrow.DATE32, arrow.TIMESTAMP:
		return true
	}
	return false
}

// changed forgets what p caches of its groups, which a new group changes:
// their key order, and for a pane with an IntTable their hashes and slots
// in the slider (slide.go), whose memory it keeps.
func (p *pane) changed() {
	p.order, p.keys, p.hashes, p.slots, p.slotGen = nil, nil, p.hashes[:0], p.slots[:0], 0
}

// len is the number of p's groups.
func (p *pane) len() int {
	if p.ints != nil {
		return len(p.ikeys)
	}
	return len(p.addrs)
}

// keyAt returns group g's normalized key: in the table's memory for a
// HashTable, else encoded into *buf, valid until the next use of buf.
func (p *pane) keyAt(g int32, buf *[]byte) []byte {
	if p.ints == nil {
		return p.groups.KeyAt(p.addrs[g])
	}
	*buf = p.appendKey((*buf)[:0], g)
	return *buf
}

// appendKey appends group g's normalized key to dst, for a pane with an
// IntTable.
func (p *pane) appendKey(dst []byte, g int32) []byte {
	if g == p.null {
		return memseg.AppendNull(dst, memseg.Order{})
	}
	return memseg.AppendInt64(dst, int64(p.ikeys[g]^1<<63), memseg.Order{})
}

// groupOf returns the group of key, whose hash is hash, in pane p, made if
// new (inserted). It returns memseg.ErrNoMemory (wrapped) when the budget
// has no room for a new group.
func (a *Aggregate) groupOf(p *pane, key []byte, hash uint64) (g int32, inserted bool, err error) {
	if p.len() == p.cap {
		if err := a.grow(p); err != nil {
			return 0, false, err
		}
	}
	if p.ints != nil {
		switch {
		case bytes.Equal(key, nullKey):
			n := p.null
			g, err := a.nullGroup(p)
			return g, n < 0, err
		case len(key) != len(zeroKey) || key[0] != zeroKey[0]:
			return 0, false, fmt.Errorf("%w: integer group key %x", ErrCorrupt, key)
		}
		return a.intGroup(p, binary.BigEndian.Uint64(key[1:]), hash)
	}
	addr, acc, inserted, err := p.groups.Insert(key, hash)
	if err != nil {
		return 0, false, err
	}
	if !inserted {
		return int32(binary.LittleEndian.Uint32(acc)), false, nil
	}
	g = int32(len(p.addrs))
	binary.LittleEndian.PutUint32(acc, uint32(g))
	p.addrs = append(p.addrs, addr)
	a.record(p, hash)
	p.changed()
	return g, true, nil
}

// intGroup returns the group of the integer key u (value bytes) in pane
// p, made if new. The columns must have room for one more group.
func (a *Aggregate) intGroup(p *pane, u, hash uint64) (int32, bool, error) {
	v, inserted, err := p.ints.Insert(u, hash, uint32(len(p.ikeys)))
	if err != nil {
		return 0, false, err
	}
	if inserted {
		p.ikeys = append(p.ikeys, u)
		a.record(p, hash)
		p.changed()
	}
	return int32(v), inserted, nil
}

// nullGroup returns the group of the NULL key in pane p, made if new. The
// columns must have room for one more group.
func (a *Aggregate) nullGroup(p *pane) (int32, error) {
	if p.null < 0 {
		p.null = int32(len(p.ikeys))
		p.ikeys = append(p.ikeys, 0)
		a.record(p, nullHash)
		p.changed()
	}
	return p.null, nil
}

// lookupInts is lookup for a pane with an IntTable: the keys of rows are
// hashed (or taken from hashes) and looked up as one batch, then the rows
// whose keys are new make their groups, in row order.
func (a *Aggregate) lookupInts(p *pane, b arrow.RecordBatch, rows []int32, hashes []uint64, distinct bool) (int, error) {
	col := b.Column(a.spec.Keys[0])
	vals, _ := memseg.IntValues(col, &a.wide) // intKeyed checked the type
	n := len(rows)
	us := slices.Grow(a.us[:0], n)[:n]
	gs := slices.Grow(a.groups[:0], n)[:n]
	a.us, a.groups = us, gs
	for i, r := range rows {
		us[i] = uint64(vals[r]) ^ 1<<63
	}
	if hashes == nil {
		hs := slices.Grow(a.hs[:0], n)[:n]
		a.hs = hs
		for i, r := range rows {
			hs[i] = memseg.HashInt64(vals[r])
		}
		hashes = hs
	}
	p.ints.Lookup(us, hashes, gs)
	nulls := col.NullN() > 0
	if !nulls && !distinct {
		// The new keys of the batch in one pass, the columns growing
		// when they are full.
		for done := 0; ; {
			from := len(p.ikeys)
			n, added, err := p.ints.Fill(us[done:], hashes[done:], gs[done:], uint32(from), uint32(p.cap), p.ikeys)
			p.ikeys = added
			if len(p.ikeys) > from {
				a.recordFilled(p, from)
				p.changed()
			}
			if done += n; done == len(us) {
				return len(rows), nil
			}
			if err != nil || a.grow(p) != nil {
				// No room: the rows from there on one by one, which
				// stops where they cannot go on.
				break
			}
		}
	}
	// Most rows' groups exist: they need nothing more. New groups' keys
	// gather in ik, which goes back to p.ikeys before anything else
	// reads it and at the end.
	ik := p.ikeys
	added := false
	defer func() {
		p.ikeys = ik
		if added {
			p.changed()
		}
	}()
	for i, r := range rows {
		g := gs[i]
		if g >= 0 && !nulls && !distinct {
			continue
		}
		switch {
		case nulls && col.IsNull(int(r)):
			p.ikeys = ik
			if p.null < 0 && p.len() == p.cap && a.grow(p) != nil {
				a.groups = gs[:i]
				return i, nil
			}
			g, _ = a.nullGroup(p)
			ik = p.ikeys
		case g < 0:
			if len(ik) == p.cap {
				p.ikeys = ik
				err := a.grow(p)
				ik = p.ikeys
				if err != nil {
					a.groups = gs[:i]
					return i, nil
				}
			}
			v, inserted, err := p.ints.Insert(us[i], hashes[i], uint32(len(ik)))
			if err != nil {
				a.groups = gs[:i]
				return i, nil
			}
			if inserted {
				ik = append(ik, us[i])
				a.record(p, hashes[i])
				added = true
			}
			g = int32(v)
		}
		if distinct && !a.distinct(p, b, r, g) {
			a.groups = gs[:i]
			return i, nil
		}
		gs[i] = g
	}
	return n, nil
}

// recordFilled records the key groups of pane p's groups from from on,
// which IntTable.Fill made. Fill keeps no hashes, and finding each new
// group's first row (and so its hash) in the batch costs a scan of every
// row, which mispredicts at each new group: hashing the groups' values
// again (HashInt64, the function that gave their hashes, without encoding
// a key) costs a few nanoseconds per new group instead.
func (a *Aggregate) recordFilled(p *pane, from int) {
	if a.spill.maxPar == 0 {
		return
	}
	for _, u := range p.ikeys[from:] {
		a.record(p, memseg.HashInt64(int64(u^1<<63)))
	}
}

// keyOrder returns p's group numbers in key order: a radix sort of key
// prefixes in managed memory, or on the heap if that has no room; for an
// IntTable, a radix sort of the integer keys.
func (a *Aggregate) keyOrder(p *pane) []int32 {
	// Sized once: appending ~1M groups doubled its way there, copying
	// and faulting in fresh pages at every step.
	order := slices.Grow(a.order[:0], p.len())
	switch {
	case p.ints != nil:
		pairs := slices.Grow(a.pairs[:0], len(p.ikeys))
		for g, u := range p.ikeys {
			if int32(g) != p.null {
				pairs = append(pairs, intPair{u: u, g: int32(g)})
			}
		}
		a.pairTmp = sortPairs(pairs, a.pairTmp)
		a.pairs = pairs
		if p.null >= 0 {
			order = append(order, p.null) // NULL sorts first
		}
		for _, pr := range pairs {
			order = append(order, pr.g)
		}
	default:
		if it, err := p.groups.Sorted(nil); err == nil {
			for it.Next() {
				order = append(order, int32(binary.LittleEndian.Uint32(it.Acc())))
			}
			it.Close()
			break
		}
		for g := range p.addrs {
			order = append(order, int32(g))
		}
		slices.SortFunc(order, func(x, y int32) int {
			return bytes.Compare(p.groups.KeyAt(p.addrs[x]), p.groups.KeyAt(p.addrs[y]))
		})
	}
	a.order = order
	return order
}

// intPair is an integer group key and its group (of slice k of a window,
// when fireMergedInts sorts them).
type intPair struct {
	u    uint64
	g, k int32
}

// sortPairs sorts ps by key: a least-significant-digit radix sort by
// bytes, skipping the bytes every key has alike (most of them, for keys
// such as ids), through tmp, which it returns grown for the next call.
func sortPairs(ps, tmp []intPair) []intPair {
	if len(ps) < 256 {
		slices.SortFunc(ps, func(x, y intPair) int { return cmp.Compare(x.u, y.u) })
		return tmp
	}
	and, or := ^uint64(0), uint64(0)
	for _, p := range ps {
		and &= p.u
		or |= p.u
	}
	diff := and ^ or
	tmp = slices.Grow(tmp[:0], len(ps))[:len(ps)]
	src, dst := ps, tmp
	for shift := uint(0); shift < 64; shift += 8 {
		if byte(diff>>shift) == 0 {
			continue
		}
		var pos [256]int
		for _, p := range src {
			pos[byte(p.u>>shift)]++
		}
		at := 0
		for i, c := range pos {
			pos[i] = at
			at += c
		}
		for _, p := range src {
			d := byte(p.u >> shift)
			dst[pos[d]] = p
			pos[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ps[0] {
		copy(ps, src)
	}
	return tmp
}

// decodedKeys returns emit's writer of n keys, which key returns,
// decoded into the key columns.
func (a *Aggregate) decodedKeys(n int, key func(i int) []byte) func(kb []array.Builder) error {
	return func(kb []array.Builder) error {
		for i := range n {
			if _, err := a.keys.decode(kb, key(i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// paneKeys returns emit's writer of the keys of pane p's groups chunk.
func (a *Aggregate) paneKeys(p *pane, chunk []int32) func(kb []array.Builder) error {
	if p.ints == nil {
		return a.decodedKeys(len(chunk), func(i int) []byte { return p.groups.KeyAt(p.addrs[chunk[i]]) })
	}
	return func(kb []array.Builder) error {
		us := slices.Grow(a.us[:0], len(chunk))[:len(chunk)]
		a.us = us
		var valid []bool
		if p.null >= 0 {
			valid = slices.Grow(a.valid[:0], len(chunk))[:len(chunk)]
			a.valid = valid
		}
		for i, g := range chunk {
			us[i] = p.ikeys[g]
			if valid != nil {
				valid[i] = g != p.null
			}
		}
		a.appendInts(kb[0], us, valid)
		return nil
	}
}

// appendInts appends integer keys to b, the builder of an integer-like
// key column: the values whose value bytes are us, NULL where valid
// (if not nil) is false.
func (a *Aggregate) appendInts(b array.Builder, us []uint64, valid []bool) {
	vs := slices.Grow(a.wide[:0], len(us))[:len(us)]
	a.wide = vs
	for i, u := range us {
		vs[i] = int64(u ^ 1<<63)
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.AppendValues(vs, valid)
	case *array.TimestampBuilder:
		b.AppendValues(unsafe.Slice((*arrow.Timestamp)(unsafe.SliceData(vs)), len(vs)), valid)
	case *array.Int32Builder:
		b.Reserve(len(vs))
		for i, v := range vs {
			if valid != nil && !valid[i] {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			b.UnsafeAppend(int32(v))
		}
	case *array.Date32Builder:
		b.Reserve(len(vs))
		for i, v := range vs {
			if valid != nil && !valid[i] {
				b.UnsafeAppendBoolToBitmap(false)
				continue
			}
			b.UnsafeAppend(arrow.Date32(v))
		}
	}
}
