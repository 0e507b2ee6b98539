package state

import (
	"hash/crc32"
	"path/filepath"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestFileSums checks that a Store's file system takes the size and
// CRC32C of an SST written front to back, carries it to a hard link and
// a new name, and has none for a file written otherwise, removed, or not
// an SST: a wrong sum would make a checkpoint that no restore accepts.
func TestFileSums(t *testing.T) {
	dir := t.TempDir()
	sums := newFileSums()
	fs := scratchFS{FS: vfs.Default, sums: sums}
	path := func(n string) string { return filepath.Join(dir, n) }
	want := func(name, content string) {
		t.Helper()
		sum, ok := sums.get(path(name))
		if !ok {
			t.Fatalf("%s: no sum", name)
		}
		if crc := crc32.Checksum([]byte(content), castagnoli); sum.size != int64(len(content)) || sum.crc != crc {
			t.Fatalf("%s: sum %d bytes crc %08x, want %d bytes crc %08x", name, sum.size, sum.crc, len(content), crc)
		}
	}
	none := func(name string) {
		t.Helper()
		if _, ok := sums.get(path(name)); ok {
			t.Fatalf("%s has a sum", name)
		}
	}
	write := func(name string, parts ...string) vfs.File {
		t.Helper()
		f, err := fs.Create(path(name), vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if _, err := f.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	f := write("1.sst", "table ", "one")
	none("1.sst") // not until it is closed
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want("1.sst", "table one")
	if err := fs.Link(path("1.sst"), path("2.sst")); err != nil {
		t.Fatal(err)
	}
	want("2.sst", "table one")
	if err := fs.Remove(path("1.sst")); err != nil {
		t.Fatal(err)
	}
	none("1.sst")
	want("2.sst", "table one")
	if err := fs.Rename(path("2.sst"), path("3.sst")); err != nil {
		t.Fatal(err)
	}
	none("2.sst")
	want("3.sst", "table one")
	// Written again: the old sum goes at once, the new one comes at Close.
	f = write("3.sst", "table three")
	none("3.sst")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want("3.sst", "table three")
	// Opened for writing: no sum, whatever is written.
	rw, err := fs.OpenReadWrite(path("3.sst"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	none("3.sst")
	if _, err := rw.WriteAt([]byte("T"), 0); err != nil {
		t.Fatal(err)
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	none("3.sst")
	// WriteAt on a new SST: no sum.
	f = write("4.sst", "table four")
	if _, err := f.WriteAt([]byte("T"), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	none("4.sst")
	if err := write("MANIFEST-000001", "manifest").Close(); err != nil {
		t.Fatal(err)
	}
	none("MANIFEST-000001")
	if err := fs.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if len(sums.sums) != 0 {
		t.Fatalf("sums left after RemoveAll: %v", sums.sums)
	}
}
