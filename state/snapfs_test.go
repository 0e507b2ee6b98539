package state

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSnapFSLinks checks what a snapshot directory in memory must keep of
// a hard link's meaning: a linked file that is removed stays readable
// through the link until the snapshot goes, and is removed from disk
// then; the snapshot's own files never reach the disk.
func TestSnapFSLinks(t *testing.T) {
	dir := t.TempDir()
	fs := newSnapFS(scratchFS{FS: vfs.Default}, dir)
	db, snap := filepath.Join(dir, dbDir), filepath.Join(dir, snapPrefix+"1")
	if err := fs.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	sst := filepath.Join(db, "000001.sst")
	writeFile(t, fs, sst, "table")
	if err := fs.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fs.Link(sst, filepath.Join(snap, "000001.sst")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, fs, filepath.Join(snap, "MANIFEST-000001"), "manifest")
	if _, err := os.Stat(snap); !os.IsNotExist(err) {
		t.Fatalf("the snapshot directory is on disk (%v)", err)
	}
	names, err := fs.List(snap)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"000001.sst", "MANIFEST-000001"}; !slices.Equal(names, want) {
		t.Fatalf("snapshot lists %q, want %q", names, want)
	}
	// A compaction removes the table while the snapshot links to it.
	if err := fs.Remove(sst); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, fs, filepath.Join(snap, "000001.sst")); got != "table" {
		t.Fatalf("the linked table reads %q", got)
	}
	if _, err := os.Stat(sst); err != nil {
		t.Fatalf("a linked table is gone before its snapshot: %v", err)
	}
	if err := fs.RemoveAll(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sst); !os.IsNotExist(err) {
		t.Fatalf("the removed table outlives its last snapshot (%v)", err)
	}
	// A table that no snapshot links to any more is removed at once.
	writeFile(t, fs, sst, "table")
	if err := fs.Remove(sst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sst); !os.IsNotExist(err) {
		t.Fatalf("an unlinked table is not removed (%v)", err)
	}
}

func writeFile(t *testing.T, fs vfs.FS, name, content string) {
	t.Helper()
	f, err := fs.Create(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, fs vfs.FS, name string) string {
	t.Helper()
	f, err := fs.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSnapFSDiskUsage: the disk usage of a snapshot directory, which is
// in memory, is that of the store's directory, not an error (which
// Pebble logs as a background error when a savepoint's export opens the
// snapshot).
func TestSnapFSDiskUsage(t *testing.T) {
	dir := t.TempDir()
	fs := newSnapFS(scratchFS{FS: vfs.Default}, dir)
	snap := filepath.Join(dir, snapPrefix+"1")
	if err := fs.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := fs.GetDiskUsage(snap)
	if err != nil {
		t.Fatalf("disk usage of a snapshot: %v", err)
	}
	want, err := vfs.Default.GetDiskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalBytes != want.TotalBytes {
		t.Fatalf("a snapshot's disk has %d bytes, the store's %d", got.TotalBytes, want.TotalBytes)
	}
}
