package state

import (
	"hash/crc32"
	"os"
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

// TestFileSumsSharedFile checks that a sum belongs to the file, not to a
// name: a file written anew through one of its hard links, or a name
// that was moved or removed while its file was being written, leaves no
// sum that no longer matches the bytes another name reads.
func TestFileSumsSharedFile(t *testing.T) {
	dir := t.TempDir()
	sums := newFileSums()
	fs := scratchFS{FS: vfs.Default, sums: sums}
	path := func(n string) string { return filepath.Join(dir, n) }
	write := func(name, content string) vfs.File {
		t.Helper()
		f, err := fs.Create(path(name), vfs.WriteCategoryUnspecified)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
		return f
	}
	closeFile := func(f vfs.File) {
		t.Helper()
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// check fails if name has a sum that does not match its bytes.
	check := func(name string) {
		t.Helper()
		sum, ok := sums.get(path(name))
		if !ok {
			return
		}
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		if crc := crc32.Checksum(b, castagnoli); sum.size != int64(len(b)) || sum.crc != crc {
			t.Fatalf("%s: sum %d bytes crc %08x, file %d bytes crc %08x", name, sum.size, sum.crc, len(b), crc)
		}
	}
	link := func(a, b string) {
		t.Helper()
		if err := fs.Link(path(a), path(b)); err != nil {
			t.Fatal(err)
		}
	}

	// Written anew through the other name of a hard link, to the same size.
	closeFile(write("a.sst", "table one"))
	link("a.sst", "b.sst")
	closeFile(write("a.sst", "TABLE ONE"))
	check("a.sst")
	check("b.sst")

	// Opened for writing through the other name.
	closeFile(write("c.sst", "table two"))
	link("c.sst", "d.sst")
	rw, err := fs.OpenReadWrite(path("c.sst"), vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.WriteAt([]byte("T"), 0); err != nil {
		t.Fatal(err)
	}
	closeFile(rw)
	check("d.sst")

	// Renamed while being written: the sum follows the file.
	f := write("e.sst", "table three")
	if err := fs.Rename(path("e.sst"), path("f.sst")); err != nil {
		t.Fatal(err)
	}
	closeFile(f)
	check("f.sst")
	if _, ok := sums.get(path("e.sst")); ok {
		t.Fatal("e.sst, renamed away, has a sum")
	}

	// Removed while being written: no sum is left behind.
	f = write("g.sst", "table four")
	if err := fs.Remove(path("g.sst")); err != nil {
		t.Fatal(err)
	}
	closeFile(f)
	if _, ok := sums.get(path("g.sst")); ok {
		t.Fatal("g.sst, removed, has a sum")
	}
	for _, n := range []string{"a.sst", "b.sst", "c.sst", "d.sst", "f.sst"} {
		if err := fs.Remove(path(n)); err != nil {
			t.Fatal(err)
		}
	}
	if len(sums.sums) != 0 {
		t.Fatalf("sums left after every file is removed: %v", sums.sums)
	}
}

// TestFileSumsRemoveAllSpelling: RemoveAll drops the sums of the files in
// a directory however its name is spelled (a trailing separator, a dot
// component), and not those of a sibling whose name it prefixes.
func TestFileSumsRemoveAllSpelling(t *testing.T) {
	dir := t.TempDir()
	sums := newFileSums()
	fs := scratchFS{FS: vfs.Default, sums: sums}
	for _, spelling := range []string{"sub/", "./sub//"} {
		for _, name := range []string{"sub/1.sst", "sub/2.sst", "sub2/3.sst"} {
			p := filepath.Join(dir, name)
			if err := fs.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := fs.Create(p, vfs.WriteCategoryUnspecified)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte(name)); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := fs.RemoveAll(dir + string(os.PathSeparator) + spelling); err != nil {
			t.Fatal(err)
		}
		if len(sums.sums) != 1 {
			t.Fatalf("RemoveAll(%q): sums left %v, want only sub2/3.sst's", spelling, sums.sums)
		}
		if _, ok := sums.get(filepath.Join(dir, "sub2", "3.sst")); !ok {
			t.Fatalf("RemoveAll(%q) dropped the sum of a sibling directory's file", spelling)
		}
	}
}
