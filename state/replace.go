package state

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

// Replacing commits. A writer that rewrites all its state from time to
// time (a window aggregate compacting its checkpointed entries) makes
// the older versions garbage at once. Pebble would drop them only by
// compacting them, which rewrites the whole state a second time: the
// rewritten state lands in L0 over the files it supersedes. A replacing
// commit (Sorted.Replace) instead writes one SST of the store's whole
// content after the commit and swaps it in for every file the store has
// (Pebble's IngestAndExcise over all keys): the files go, nothing is
// rewritten twice, and the SST lands in the last level. It is never a
// delta: the next snapshot is full.
//
// The excise needs Pebble's virtual-SST format, to which a store moves at
// its first replacing commit (the stores that never replace, a join's,
// keep the older format, which served their lookups a few percent faster
// in Nexmark q6). The span excised is the whole key space, not the
// span of the live keys: a file that also holds tombstones beyond them
// (a spill's range delete, a fired window's deletes) would otherwise be
// cut into a virtual SST that keeps its whole backing file alive.

// replaced names the entries a replacing commit replaces: those of state
// name (any, if "") under uid (uvarint-length-prefixed, as in a key), in
// every key group.
type replaced struct {
	uid  []byte
	name string
}

// Replace makes the commit replace the entries the store holds under uid
// and state name, in every key group, with those w sets: after it the
// store holds under them what w set and nothing else, and its other
// entries as before, with w's writes applied. With name "", it replaces
// every entry under uid, which is cheaper: the commit reads the store's
// other entries to write them again, and skips each replaced name key
// group by key group, seeking in every file. Replace applies to the next
// commit only.
func (w *Sorted) Replace(uid, name string) {
	w.replace = append(w.replace, replaced{uid: appendUID(nil, uid), name: name})
}

// under returns, if key is under an entry w replaces, the prefix of key
// that all such entries of its key group share.
func (w *Sorted) under(key []byte) []byte {
	for _, r := range w.replace {
		if !bytes.HasPrefix(key, r.uid) {
			continue
		}
		if r.name == "" {
			return r.uid
		}
		_, name, _, err := decodeKey(key, len(r.uid))
		if err == nil && string(name) == r.name {
			n := len(r.uid) + 2
			return key[:n+uvarintLen(len(name))+len(name)]
		}
	}
	return nil
}

func uvarintLen(n int) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(n))
}

// writeReplacing adds to sw the store's content after w's commit: its
// entries that w does not replace, merged in key order with w's sorted
// writes (the last of each key; a delete writes nothing, as the excise
// removes what it deletes).
func (w *Sorted) writeReplacing(sw *sstable.Writer) (int, error) {
	it, err := w.s.db.NewIter(nil)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	ok := it.First()
	k := w.key
	n, i := 0, 0
	for ok || i < len(w.ents) {
		if ok {
			if p := w.under(it.Key()); p != nil {
				ok = it.SeekGE(successor(p))
				continue
			}
		}
		c := 1
		if ok && i < len(w.ents) {
			c = bytes.Compare(it.Key(), k(w.ents[i]))
		} else if ok {
			c = -1
		}
		if c < 0 {
			v, err := it.ValueAndErr()
			if err != nil {
				return n, err
			}
			if err := sw.Set(it.Key(), v); err != nil {
				return n, err
			}
			n++
			ok = it.Next()
			continue
		}
		if c == 0 {
			ok = it.Next() // superseded by w's write
		}
		for i+1 < len(w.ents) && bytes.Equal(k(w.ents[i]), k(w.ents[i+1])) {
			i++ // a later write of the same key wins
		}
		if e := w.ents[i]; !e.del {
			if err := sw.Set(k(e), w.chunks[e.chunk][e.end:e.next]); err != nil {
				return n, err
			}
			n++
		}
		i++
	}
	if err := it.Error(); err != nil {
		return n, err
	}
	return n, nil
}

// everything is the whole key space: every key starts with a uvarint
// (its uid's length), and ten 0xff bytes sort after any uvarint.
var everything = pebble.KeyRange{Start: []byte{}, End: bytes.Repeat([]byte{0xff}, binary.MaxVarintLen64)}

// replaceWith swaps the SST at path (n entries) in for every file of the
// store; with no entries it only removes them.
func (s *Store) replaceWith(path string, n int) error {
	if s.db.FormatMajorVersion() < pebble.FormatVirtualSSTables {
		if err := s.db.RatchetFormatMajorVersion(pebble.FormatVirtualSSTables); err != nil {
			return fmt.Errorf("replace: %w", err)
		}
	}
	var err error
	if n == 0 {
		err = s.db.Excise(context.Background(), everything)
	} else {
		_, err = s.db.IngestAndExcise(context.Background(), []string{path}, nil, nil, everything)
	}
	if err != nil {
		return fmt.Errorf("replace: %w", err)
	}
	return nil
}
