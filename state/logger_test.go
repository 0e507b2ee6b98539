package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestRemovedTableFailsTheRead: a read that meets a table removed from
// under the store (Pebble's DataCorruption) fails with an error naming
// the file, and does not end the process as Pebble's default does.
func TestRemovedTableFailsTheRead(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, vfs.Default, dir)
	b := s.NewBatch()
	b.Set("u", 0, "n", []byte("k"), []byte("v"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	tables, err := filepath.Glob(filepath.Join(dir, dbDir, "*.sst"))
	if err != nil || len(tables) != 1 {
		t.Fatalf("tables after one flush: %v, %v", tables, err)
	}
	if err := os.Remove(tables[0]); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Get("u", 0, "n", []byte("k"))
	if err == nil || !strings.Contains(err.Error(), tables[0]) {
		t.Fatalf("reading a removed table: %v, want an error naming %s", err, tables[0])
	}
}
