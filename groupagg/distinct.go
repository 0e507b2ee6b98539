package groupagg

import (
	"encoding/binary"
	"fmt"

	"github.com/strandsql/strand/memseg"
)

// The DISTINCT entries are cached as the groups are (cache): per
// DISTINCT column a memseg.HashTable from group key | value to an
// accumulator of 8 bytes of header (flags, then the entry's key group)
// and one 8-byte count per aggregate of the column, read from the store
// when first touched and written back, the dirty ones, with the groups.
const (
	entryStored = 1 << iota // the store holds the entry
	entryDirty              // the entry changed since it was written back
)

// distinctEntry returns the cached counts of value key dkey of DISTINCT
// column i, in key group kg, reading them from the store when they are
// not cached.
func (a *Agg) distinctEntry(i int, kg uint16, dkey []byte) ([]byte, error) {
	t := a.dist[i]
	acc, inserted, err := t.FindOrInsert(dkey, memseg.Hash(dkey))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMemory, err)
	}
	if !inserted {
		return acc, nil
	}
	clear(acc)
	binary.LittleEndian.PutUint16(acc[2:], kg)
	d := &a.distinct[i]
	v, ok, err := a.writes.Get(a.spec.UID, kg, d.name, dkey)
	if err != nil || !ok {
		return acc, err
	}
	acc[0] = entryStored
	for j := range d.aggs {
		c, n := binary.Uvarint(v)
		if n <= 0 {
			return nil, fmt.Errorf("%w: DISTINCT entry %x", memseg.ErrCorrupt, v)
		}
		binary.LittleEndian.PutUint64(acc[8+8*j:], c)
		v = v[n:]
	}
	return acc, nil
}

// writeBackDistinct writes the dirty DISTINCT entries to the store; an
// entry whose counts are all 0 is deleted. With evict, the tables are
// emptied.
func (a *Agg) writeBackDistinct(evict bool) error {
	for i, t := range a.dist {
		d := &a.distinct[i]
		for it := t.Iter(); it.Next(); {
			acc := it.Acc()
			if acc[0]&entryDirty == 0 {
				continue
			}
			kg := binary.LittleEndian.Uint16(acc[2:])
			a.buf = a.buf[:0]
			live := false
			for j := range d.aggs {
				c := binary.LittleEndian.Uint64(acc[8+8*j:])
				live = live || c > 0
				a.buf = binary.AppendUvarint(a.buf, c)
			}
			switch {
			case live:
				a.writes.Set(a.spec.UID, kg, d.name, it.Key(), a.buf)
				acc[0] = entryStored
			case acc[0]&entryStored != 0:
				a.writes.Delete(a.spec.UID, kg, d.name, it.Key())
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
