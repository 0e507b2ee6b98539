package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// export exports operator "agg" of a snapshot of s and returns the
// file's bytes.
func export(t testing.TB, s *Store) []byte {
	t.Helper()
	sn, err := s.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	return exportOf(t, sn)
}

// exportOf exports operator "agg" of sn and returns the file's bytes,
// checked against the reference Export returned.
func exportOf(t testing.TB, sn *Snapshot) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agg-0.state")
	ref, err := sn.Export(path, "agg")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := ref.Verify(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return b
}

func readAll(b []byte, lo, hi uint16, name string) ([]string, error) {
	var out []string
	err := ReadExport(bytes.NewReader(b), "f", lo, hi, name, func(kg uint16, n string, key, value []byte) error {
		out = append(out, entry{"agg", kg, n, string(key), string(value)}.String())
		return nil
	})
	return out, err
}

func TestExportRoundTrip(t *testing.T) {
	s := openStore(t, vfs.NewMem(), "/store")
	m := fill(t, s)
	b := export(t, s)
	for _, r := range []struct {
		lo, hi uint16
		name   string
	}{{0, 0xffff, ""}, {2, 128, "acc"}, {0xffff, 0xffff, "a"}} {
		got, err := readAll(b, r.lo, r.hi, r.name)
		if err != nil {
			t.Fatal(err)
		}
		if want := m.scan("agg", r.lo, r.hi, r.name); !slices.Equal(got, want) {
			t.Fatalf("key groups %d-%d, name %q: read back\n%v\nwant\n%v", r.lo, r.hi, r.name, got, want)
		}
	}
}

// A corrupt length must be an error, not an allocation of up to 2 GiB
// before the read finds the file too short.
func TestReadExportHugeLength(t *testing.T) {
	b := []byte(exportMagic)
	b = binary.LittleEndian.AppendUint32(b, exportVersion)
	b = binary.BigEndian.AppendUint16(b, 1)
	b = binary.AppendUvarint(b, 1<<31)
	b = append(b, "short"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readAll(b, 0, 0xffff, "")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("reading a 27-byte file allocated %d bytes", n)
	}
}

// FuzzReadExport checks that no file makes ReadExport panic or return an
// error other than ErrCorrupt, and that it never reports more entries
// than the file could hold.
func FuzzReadExport(f *testing.F) {
	s, err := Open(vfs.NewMem(), "/store")
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	w := s.NewBatch()
	w.Set("agg", 3, "acc", []byte("k"), []byte("v"))
	w.Set("agg", 9, "a", nil, []byte("w"))
	if err := w.Commit(); err != nil {
		f.Fatal(err)
	}
	b := export(f, s)
	f.Add(b)
	f.Add(b[:len(b)-1])
	f.Add(b[:12])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		err := ReadExport(bytes.NewReader(data), "f", 0, 0xffff, "", func(uint16, string, []byte, []byte) error {
			n++
			return nil
		})
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		// An entry is at least 5 bytes: key group and three lengths.
		if n > 0 && 12+5*n > len(data) {
			t.Fatalf("%d entries from %d bytes", n, len(data))
		}
	})
}

// TestReadExportReadError checks that a failed read (a directory's read
// fails with EISDIR, as a disk's with EIO) is not taken for a malformed
// file: a restore from a savepoint marks ErrCorrupt permanent, and a read
// error is not.
func TestReadExportReadError(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = ReadExport(f, dir, 0, 1<<15, "", func(uint16, string, []byte, []byte) error { return nil })
	if err == nil || errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadExport of an unreadable file: %v, want a read error that does not wrap ErrCorrupt", err)
	}
	if !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("ReadExport of an unreadable file: %v, want its cause EISDIR kept", err)
	}
}
