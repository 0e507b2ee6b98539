package state

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Source is checkpoint storage as a restore reads it.
type Source interface {
	// Open opens the file at path, relative to the job's checkpoint root,
	// for reading.
	Open(path string) (io.ReadCloser, error)
}

// Reader is a read-only view of one handle's state.
type Reader struct {
	fs  vfs.FS
	dir string
	db  *pebble.DB
}

// OpenHandle copies h's files from src into localDir on fs, replacing
// whatever localDir held, and opens them read-only. Every file is checked
// against its size and CRC32C as it is copied, before Pebble reads any of
// it; a file that is missing, short, long or does not match fails
// OpenHandle with an error that wraps ErrCorrupt and names the file.
//
// A restore at a new parallelism opens the handles of every old subtask
// whose key groups overlap its own and scans only its range from each.
func OpenHandle(fs vfs.FS, src Source, h Handle, localDir string) (*Reader, error) {
	if err := fs.RemoveAll(localDir); err != nil {
		return nil, fmt.Errorf("state: restore: %w", err)
	}
	if err := fs.MkdirAll(localDir, 0o755); err != nil {
		return nil, fmt.Errorf("state: restore: %w", err)
	}
	var deltas []string
	for _, f := range h.Files {
		path := fs.PathJoin(localDir, f.Name)
		if err := copyIn(fs, src, f, path); err != nil {
			_ = fs.RemoveAll(localDir)
			return nil, fmt.Errorf("state: restore: %w", err)
		}
		if isDelta(f.Name) {
			deltas = append(deltas, path)
		}
	}
	db, err := openDeltas(fs, localDir, deltas)
	if err != nil {
		_ = fs.RemoveAll(localDir)
		return nil, fmt.Errorf("state: restore: open %s: %w", localDir, err)
	}
	return &Reader{fs: fs, dir: localDir, db: db}, nil
}

// copyIn copies f from src to path, verifying it.
func copyIn(fs vfs.FS, src Source, f FileRef, path string) error {
	r, err := src.Open(f.Path)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("%w: %s: missing", ErrCorrupt, f.Path)
		}
		return err
	}
	defer r.Close()
	w, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	sum := f.summer(r)
	_, err = io.Copy(w, sum)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	return f.check(sum)
}

// Verify reads r to its end and reports whether it holds exactly f's
// bytes. A difference is an error that wraps ErrCorrupt, names f.Path and
// says how the content differs: truncated, too long, checksum mismatch.
func (f FileRef) Verify(r io.Reader) error {
	sum := f.summer(r)
	if _, err := io.Copy(io.Discard, sum); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	return f.check(sum)
}

// summer reads r through a checksum, stopping one byte past f's size: far
// enough to tell a long file from a good one without reading all of it.
func (f FileRef) summer(r io.Reader) *summer {
	return &summer{r: io.LimitReader(r, f.Size+1), crc: newCRC()}
}

func (f FileRef) check(s *summer) error {
	switch crc := s.crc.Sum32(); {
	case s.n < f.Size:
		return fmt.Errorf("%w: %s: truncated: %d bytes, want %d", ErrCorrupt, f.Path, s.n, f.Size)
	case s.n > f.Size:
		return fmt.Errorf("%w: %s: longer than its %d bytes", ErrCorrupt, f.Path, f.Size)
	case crc != f.CRC32C:
		return fmt.Errorf("%w: %s: checksum mismatch: crc32c %08x, want %08x", ErrCorrupt, f.Path, crc, f.CRC32C)
	}
	return nil
}

// Scan is Store.Scan over the handle's state.
func (r *Reader) Scan(uid string, kgLo, kgHi uint16, name string, fn ScanFunc) error {
	return scan(r.db, uid, kgLo, kgHi, name, fn)
}

// Close closes the view and removes its local directory.
func (r *Reader) Close() error {
	err := r.db.Close()
	if rerr := r.fs.RemoveAll(r.dir); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("state: close restore %s: %w", r.dir, err)
	}
	return nil
}
