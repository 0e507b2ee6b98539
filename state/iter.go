package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Iter walks the entries of one state name in one key group whose keys
// start with a prefix, in key order: what a k-way merge over key groups
// reads, where Scan's callback cannot be interleaved with other scans.
type Iter struct {
	it     *pebble.Iterator
	head   []byte // the Pebble key before the state's own key
	ok     bool
	closed bool
	buf    []byte
}

// NewIter returns an iterator over the entries of state name in key
// group kg of operator uid whose keys start with prefix. It reads a
// consistent view taken now. The caller must Close it.
func (s *Store) NewIter(uid string, kg uint16, name string, prefix []byte) (*Iter, error) {
	lower := encodeKey(nil, uid, kg, name, prefix)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: successor(lower)})
	if err != nil {
		return nil, fmt.Errorf("state: iterate: %w", err)
	}
	return &Iter{it: it, head: encodeKey(nil, uid, kg, name, nil)}, nil
}

// First moves to the first entry and reports whether there is one.
func (i *Iter) First() bool {
	i.ok = i.it.First()
	return i.ok
}

// SeekGE moves to the first entry whose key is key or after it, and
// reports whether there is one.
func (i *Iter) SeekGE(key []byte) bool {
	i.buf = append(append(i.buf[:0], i.head...), key...)
	i.ok = i.it.SeekGE(i.buf)
	return i.ok
}

// Next moves to the next entry and reports whether there is one.
func (i *Iter) Next() bool {
	i.ok = i.it.Next()
	return i.ok
}

// Key is the current entry's key (prefix included); it is valid until the
// iterator moves.
func (i *Iter) Key() []byte { return i.it.Key()[len(i.head):] }

// Value is the current entry's value; it is valid until the iterator
// moves.
func (i *Iter) Value() ([]byte, error) {
	v, err := i.it.ValueAndErr()
	if err != nil {
		return nil, fmt.Errorf("state: iterate: %w", err)
	}
	return v, nil
}

// Close releases the iterator and returns the first error it met. It is
// idempotent.
func (i *Iter) Close() error {
	if i.closed {
		return nil
	}
	i.closed = true
	err := i.it.Error()
	if cerr := i.it.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("state: iterate: %w", err)
	}
	return nil
}
