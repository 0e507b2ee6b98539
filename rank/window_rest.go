package rank

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// restFile holds the rows of the windows that a partial fire leaves
// pending while it reads the sorter they are in: they come out of the
// merge after the rows that fire, go to a temporary file, and are read
// back into a new sorter once the old one has given its memory back. The
// merge of a large window may use every segment the manager has, so the
// rows cannot go into a second sorter while it runs; the file costs a
// small fixed buffer instead. It is unlinked when created, as sort runs
// are, so nothing is left behind whatever happens.
type restFile struct {
	f    *os.File
	path string // set while the file is still linked
	w    *bufio.Writer
	n    int // rows
	max  int // the longest row's length
}

func newRestFile(dir string) (*restFile, error) {
	f, err := os.CreateTemp(dir, "strand-topn-*.rows")
	if err != nil {
		return nil, fmt.Errorf("top-n: %w", err)
	}
	r := &restFile{f: f, path: f.Name(), w: bufio.NewWriterSize(f, 64<<10)}
	if os.Remove(r.path) == nil {
		r.path = ""
	}
	return r, nil
}

// add appends a row's key.
func (r *restFile) add(key []byte) error {
	var hdr [binary.MaxVarintLen64]byte
	if _, err := r.w.Write(hdr[:binary.PutUvarint(hdr[:], uint64(len(key)))]); err != nil {
		return fmt.Errorf("top-n: writing rows: %w", err)
	}
	if _, err := r.w.Write(key); err != nil {
		return fmt.Errorf("top-n: writing rows: %w", err)
	}
	r.n++
	r.max = max(r.max, len(key))
	return nil
}

// each calls fn with every row's key, in the order they were added. The
// key is valid only during the call.
func (r *restFile) each(fn func(key []byte) error) error {
	if err := r.w.Flush(); err != nil {
		return fmt.Errorf("top-n: writing rows: %w", err)
	}
	if _, err := r.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("top-n: reading rows back: %w", err)
	}
	br := bufio.NewReaderSize(r.f, 64<<10)
	key := make([]byte, r.max)
	for i := 0; i < r.n; i++ {
		n, err := binary.ReadUvarint(br)
		if err == nil && n > uint64(r.max) {
			err = fmt.Errorf("a row of %d bytes, longest written %d", n, r.max)
		}
		if err == nil {
			_, err = io.ReadFull(br, key[:n])
		}
		if err != nil {
			return fmt.Errorf("top-n: reading row %d of %d back from %s: %w", i, r.n, r.f.Name(), err)
		}
		if err := fn(key[:n]); err != nil {
			return err
		}
	}
	return nil
}

// close closes and removes the file; a nil restFile is fine.
func (r *restFile) close() {
	if r == nil {
		return
	}
	r.f.Close()
	if r.path != "" {
		os.Remove(r.path)
	}
}
