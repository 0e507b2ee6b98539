package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2/sstable"
)

// ingestBytes is the size, in bytes of the dirty units' records, from
// which a Cache writes back by ingesting an SST rather than committing
// batches: an eviction's write-back (tens of MiB) then skips the copy
// into batches, the memtable's skiplist and the flush that reads it out
// again (together about a quarter of Nexmark q7's CPU), and lands as one
// L0 file, where the flushes made one per memtable. Smaller write-backs
// (most checkpoints') keep the batch: an ingestion costs a file, a sync
// and a MANIFEST edit however small it is.
const ingestBytes = 4 << 20

// writeSST writes the dirty units of c.order, which sortDirty left in the
// store's key order, to an SST and ingests it: the store then holds what
// committing them in batches would have left there. Pebble gives the
// ingested file a sequence number above every write committed before, so
// it overrides them as a later batch would; it flushes first a memtable
// that overlaps it.
func (c *Cache) writeSST() error {
	err := c.st.ingestSST(0, func(sw *sstable.Writer) (int, error) {
		w := &sstWriter{w: sw}
		for _, d := range c.order {
			c.writeEntries(w, d.u, uint16(d.hi>>48), c.byRank[d.hi>>40&0xff])
		}
		return w.n, w.err
	})
	if err != nil {
		return fmt.Errorf("state: write-back: %w", err)
	}
	return nil
}

// sstWriter is a writer to an SST, for writeSST: keys must come in
// increasing order, each once. It keeps its first error.
type sstWriter struct {
	w   *sstable.Writer
	key []byte
	n   int // entries written
	err error
}

func (s *sstWriter) Set(uid string, kg uint16, name string, key, value []byte) {
	if s.err == nil {
		s.key = encodeKey(s.key[:0], uid, kg, name, key)
		s.err = s.w.Set(s.key, value)
		s.n++
	}
}

func (s *sstWriter) Delete(uid string, kg uint16, name string, key []byte) {
	if s.err == nil {
		s.key = encodeKey(s.key[:0], uid, kg, name, key)
		s.err = s.w.Delete(s.key)
		s.n++
	}
}
