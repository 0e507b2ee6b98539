package groupagg

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// The DISTINCT entries are cached with their groups (cache): per DISTINCT
// column a memseg.HashTable from the group's slot (4 bytes) | value (a
// short key, whatever the group key's length; the store's key is group
// key | value) to an accumulator of
// distHeader bytes (flags, the entry's key group, its group's slot and
// generation, its TTL stamp) and one 8-byte count per aggregate of the
// column. When a group is first touched, one prefix scan per column
// reads all of its entries (loadDistinct), so that a value the cache does
// not hold is known to be new without a store read; a group the store
// does not hold has none. The dirty entries are written back with the
// groups.
//
// A group's DISTINCT entries go when it does (clearDistinct): when its
// last row is taken back and when it expires, as Flink's GroupAggFunction
// clears its accumulators' MapViews with them. Its generation then moves
// on, which makes its cached entries stale at once: a stale entry counts
// as empty, and is deleted from the store when written back.
//
// With a state TTL each entry has a stamp of its own, as Flink's MapView
// state has (StateTtlConfig on each MapState entry, OnCreateAndWrite): the
// time of the last row that counted its value. An entry not written for
// the TTL has expired: the value counts as new again, though its group
// lives on. A group's entries are never written after it, so an expired
// group's entries have all expired too.
const (
	entryStored = 1 << iota // the store holds the entry
	entryDirty              // the entry changed since it was written back
)

// Accumulator layout: flags (1 byte, 1 spare), key group (2), slot (4),
// generation (4, 4 spare), TTL stamp (8), then the counts.
const (
	distKG     = 2
	distSlot   = 4
	distGen    = 8
	distAt     = 16
	distHeader = 24
)

// unstampedBits is unstamped as an entry's stamp bytes hold it.
const unstampedBits = 1 << 63

// distAccSize is the accumulator size of a DISTINCT column of n
// aggregates.
func distAccSize(n int) int { return distHeader + 8*n }

// loadCap is the share of the managed memory up to which loadDistinct
// reads a group's entries: the rest is left for the batches' new groups
// and values. A group whose entries do not fit is read value by value.
const loadCap = 2

var errLoadFull = errors.New("group aggregate: DISTINCT entries over the load cap")

// loadDistinct reads the DISTINCT entries of group g, of key, into the
// cache, and marks the group full if they all fit.
func (a *Agg) loadDistinct(g int32, key []byte) error {
	if len(a.distinct) == 0 {
		return nil
	}
	a.full[g] = false
	budget := a.mem.Budget() / loadCap
	for i := range a.distinct {
		d, t := &a.distinct[i], a.dist[i]
		n := 0
		err := a.writes.ScanPrefix(a.spec.UID, a.kgs[g], d.name, key, func(skey, v []byte) error {
			if n++; n%64 == 1 && a.mem.Used() > budget {
				return errLoadFull
			}
			a.dkey = append(binary.BigEndian.AppendUint32(a.dkey[:0], uint32(g)), skey[len(key):]...)
			acc, inserted, err := t.FindOrInsert(a.dkey, memseg.Hash(a.dkey))
			if err != nil {
				return errLoadFull
			}
			if !inserted {
				return nil // cached already (loaded value by value before)
			}
			a.newEntry(acc, g)
			acc[0] = entryStored
			return a.decodeDistinct(d, acc, v)
		})
		if errors.Is(err, errLoadFull) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	a.full[g] = true
	return nil
}

// newEntry initializes a new entry's accumulator for group g.
func (a *Agg) newEntry(acc []byte, g int32) {
	binary.LittleEndian.PutUint16(acc[distKG:], a.kgs[g])
	binary.LittleEndian.PutUint32(acc[distSlot:], uint32(g))
	binary.LittleEndian.PutUint32(acc[distGen:], a.gen[g])
	binary.LittleEndian.PutUint64(acc[distAt:], unstampedBits)
}

// decodeDistinct reads a stored entry's value into acc: its TTL stamp,
// then one uvarint count per aggregate of d.
func (a *Agg) decodeDistinct(d *distinctCol, acc, v []byte) error {
	at, stamped, v, err := state.Split(v)
	if err != nil {
		return fmt.Errorf("DISTINCT entry: %w", err)
	}
	if stamped {
		binary.LittleEndian.PutUint64(acc[distAt:], uint64(at))
	}
	for j := range d.aggs {
		c, n := binary.Uvarint(v)
		if n <= 0 {
			return fmt.Errorf("%w: DISTINCT entry %x", memseg.ErrCorrupt, v)
		}
		binary.LittleEndian.PutUint64(acc[distHeader+8*j:], c)
		v = v[n:]
	}
	if len(v) != 0 {
		return fmt.Errorf("%w: DISTINCT entry has %d bytes too many", memseg.ErrCorrupt, len(v))
	}
	return nil
}

// distinctEntry returns the counts of cache key dkey (g | value) of
// DISTINCT column i in group g, as a row at time now finds them: a value new to the
// group, or whose entry expired, counts 0. The caller writes the entry.
func (a *Agg) distinctEntry(i int, g int32, dkey []byte, now int64) ([]byte, error) {
	acc, inserted, err := a.dist[i].FindOrInsert(dkey, memseg.Hash(dkey))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	switch {
	case inserted:
		a.newEntry(acc, g)
		if !a.full[g] {
			d := &a.distinct[i]
			v, ok, err := a.writes.Get(a.spec.UID, a.kgs[g], d.name, a.storeKey(g, dkey))
			if err != nil {
				return nil, err
			}
			if ok {
				acc[0] = entryStored
				if err := a.decodeDistinct(d, acc, v); err != nil {
					return nil, err
				}
			}
		}
	case binary.LittleEndian.Uint32(acc[distGen:]) != a.gen[g]:
		// Cleared with its group: empty, and gone from the store once
		// written back.
		clear(acc[distHeader:])
		binary.LittleEndian.PutUint32(acc[distGen:], a.gen[g])
		binary.LittleEndian.PutUint64(acc[distAt:], unstampedBits)
	}
	if ttl := a.spec.TTL.TTL; ttl.On() {
		at := int64(binary.LittleEndian.Uint64(acc[distAt:]))
		if at != unstamped && !ttl.Live(at, now) {
			clear(acc[distHeader:])
		}
		binary.LittleEndian.PutUint64(acc[distAt:], uint64(max(at, now)))
	}
	acc[0] |= entryDirty
	return acc, nil
}

// storeKey is the store's key of cache key dkey of group g: the group
// key | the value.
func (a *Agg) storeKey(g int32, dkey []byte) []byte {
	a.skey = append(append(a.skey[:0], a.table.KeyAt(a.addrs[g])...), dkey[4:]...)
	return a.skey
}

// clearDistinct drops the DISTINCT entries of group g: its cached ones go
// stale, and, unless the cache holds them all, the store's are deleted
// by prefix. The group then has none.
func (a *Agg) clearDistinct(g int32) {
	if len(a.distinct) == 0 {
		return
	}
	a.gen[g]++
	if !a.full[g] {
		key := a.table.KeyAt(a.addrs[g])
		for _, d := range a.distinct {
			a.writes.DeletePrefix(a.spec.UID, a.kgs[g], d.name, key)
		}
	}
	a.full[g] = true
}

// writeBackDistinct writes the dirty DISTINCT entries to the store; an
// entry whose counts are all 0, or that went stale, is deleted. With
// evict, the tables are emptied.
func (a *Agg) writeBackDistinct(evict bool) error {
	ttl := a.spec.TTL.TTL
	for i, t := range a.dist {
		d := &a.distinct[i]
		for it := t.Iter(); it.Next(); {
			acc := it.Acc()
			g := binary.LittleEndian.Uint32(acc[distSlot:])
			stale := binary.LittleEndian.Uint32(acc[distGen:]) != a.gen[g]
			if acc[0]&entryDirty == 0 && !(stale && acc[0]&entryStored != 0) {
				continue
			}
			kg, key := binary.LittleEndian.Uint16(acc[distKG:]), a.storeKey(int32(g), it.Key())
			a.buf = ttl.Stamp(a.buf[:0], int64(binary.LittleEndian.Uint64(acc[distAt:])))
			live := false
			for j := range d.aggs {
				c := binary.LittleEndian.Uint64(acc[distHeader+8*j:])
				live = live || c > 0
				a.buf = binary.AppendUvarint(a.buf, c)
			}
			switch {
			case live && !stale:
				a.writes.Set(a.spec.UID, kg, d.name, key, a.buf)
				acc[0] = entryStored
			case acc[0]&entryStored != 0:
				a.writes.Delete(a.spec.UID, kg, d.name, key)
				acc[0] = 0
			default:
				acc[0] = 0
			}
			if err := a.commitSome(); err != nil {
				return err
			}
		}
		if evict {
			t.Reset()
		}
	}
	return nil
}
