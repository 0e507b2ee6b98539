package state

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A savepoint holds state in strand's own format, not Pebble's, so that it
// does not depend on the Pebble version, the parallelism it was taken at,
// or where it lies. An export file is one operator subtask's entries, in
// key order (key group, state name, key):
//
//	magic "strandkv" | format version uint32 LE
//	then per entry: key group uint16 BE | uvarint len | name | uvarint len | key | uvarint len | value
//
// Its size and CRC32C are kept by the savepoint's _metadata, which is
// checked before any entry is read.
const (
	exportMagic   = "strandkv"
	exportVersion = 1
)

// Export writes the snapshot's entries of operator uid to a new file at
// path and returns its reference (Path is path as given): the
// asynchronous part of a savepoint. The file is synced. The snapshot is
// discarded when Export returns, as after Upload.
func (sn *Snapshot) Export(path, uid string) (ref FileRef, err error) {
	defer func() {
		if derr := sn.Discard(); err == nil && derr != nil {
			err = derr
		}
	}()
	if sn.base != nil {
		if err := sn.live(); err != nil {
			return FileRef{}, fmt.Errorf("state: export %d: %w", sn.id, err)
		}
	}
	db, err := sn.open()
	if err != nil {
		return FileRef{}, fmt.Errorf("state: export %d: open: %w", sn.id, err)
	}
	defer db.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return FileRef{}, fmt.Errorf("state: export %d: %w", sn.id, err)
	}
	crc := newCRC()
	w := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<16)
	n := int64(0)
	put := func(b []byte) {
		m, _ := w.Write(b) // a write error is kept by w and returned by Flush
		n += int64(m)
	}
	var hdr [12]byte
	copy(hdr[:], exportMagic)
	binary.LittleEndian.PutUint32(hdr[8:], exportVersion)
	put(hdr[:])
	var buf []byte
	err = scan(db.DB, uid, 0, ^uint16(0), "", func(kg uint16, name string, key, value []byte) error {
		buf = binary.BigEndian.AppendUint16(buf[:0], kg)
		buf = binary.AppendUvarint(buf, uint64(len(name)))
		buf = append(buf, name...)
		buf = binary.AppendUvarint(buf, uint64(len(key)))
		buf = append(buf, key...)
		buf = binary.AppendUvarint(buf, uint64(len(value)))
		put(buf)
		put(value)
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return FileRef{}, fmt.Errorf("state: export %d: %w", sn.id, err)
	}
	return FileRef{Path: path, Name: path, Size: n, CRC32C: crc.Sum32()}, nil
}

// ReadExport calls fn for each entry of the export file r holds whose key
// group is in [kgLo, kgHi] and whose name is name ("" for any), in file
// order. A malformed file is an error wrapping ErrCorrupt that names
// where; the caller has checked the file's size and checksum first. An
// error reading r is not the file's fault, and a retry may not meet it:
// it fails ReadExport wrapped as it is, never as ErrCorrupt, which a
// restore from a savepoint takes for a refusal no restart cures.
func ReadExport(r io.Reader, where string, kgLo, kgHi uint16, name string, fn ScanFunc) error {
	rr := &readErr{r: r}
	br := bufio.NewReaderSize(rr, 1<<16)
	bad := func(format string, args ...any) error {
		if rr.err != nil {
			return fmt.Errorf("state: read %s: %w", where, rr.err)
		}
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, where, fmt.Sprintf(format, args...))
	}
	var hdr [12]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return bad("no header: %v", err)
	}
	if string(hdr[:8]) != exportMagic {
		return bad("not a strand state file (magic %q)", hdr[:8])
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != exportVersion {
		return bad("state format version %d, this strand reads version %d", v, exportVersion)
	}
	field := func(what string) ([]byte, error) {
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, bad("entry %s length: %v", what, err)
		}
		if n > 1<<31 {
			return nil, bad("entry %s of %d bytes", what, n)
		}
		if n <= 1<<16 {
			b := make([]byte, n)
			if _, err := io.ReadFull(br, b); err != nil {
				return nil, bad("entry %s: %v", what, err)
			}
			return b, nil
		}
		// A long field's length is not trusted until its bytes are there:
		// a corrupt one must not allocate gigabytes before the read fails.
		var b bytes.Buffer
		if m, err := b.ReadFrom(io.LimitReader(br, int64(n))); err != nil {
			return nil, bad("entry %s: %v", what, err)
		} else if uint64(m) != n {
			return nil, bad("entry %s: %d bytes, want %d", what, m, n)
		}
		return b.Bytes(), nil
	}
	for {
		var kgb [2]byte
		if _, err := io.ReadFull(br, kgb[:]); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return bad("entry key group: %v", err)
		}
		kg := binary.BigEndian.Uint16(kgb[:])
		n, err := field("name")
		if err != nil {
			return err
		}
		key, err := field("key")
		if err != nil {
			return err
		}
		value, err := field("value")
		if err != nil {
			return err
		}
		if kg < kgLo || kg > kgHi || (name != "" && string(n) != name) {
			continue
		}
		if err := fn(kg, string(n), key, value); err != nil {
			return err
		}
	}
}

// readErr is a reader that keeps the first error of r other than io.EOF:
// ReadExport's parse errors hide it (a short read looks like a truncated
// entry), and it tells a failed read from a malformed file.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
