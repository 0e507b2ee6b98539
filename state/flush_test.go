package state

import (
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSnapshotFlushesWrites checks that Snapshot flushes the memtable
// when a Batch wrote to it, and only then: a snapshot of a store written
// by ingested SSTs alone adds no edit to the MANIFEST, which every later
// checkpoint uploads, while a Batch's write is in the next snapshot.
func TestSnapshotFlushesWrites(t *testing.T) {
	fs := vfs.NewMem()
	s, err := OpenIngesting(fs, "/work")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dst := &dirTarget{fs: fs, root: "/storage"}
	if err := fs.MkdirAll("/storage", 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := func(id int64) int64 {
		t.Helper()
		sn, err := s.Snapshot(id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := sn.Upload(dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range h.Files {
			if strings.HasPrefix(f.Name, "MANIFEST-") {
				return f.Size
			}
		}
		t.Fatal("no MANIFEST in the snapshot")
		return 0
	}
	w := s.NewSorted()
	w.Set("op", 1, "a", []byte("k"), []byte("v"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	first := manifest(1)
	if again := manifest(2); again != first {
		t.Fatalf("a snapshot with nothing written grew the MANIFEST from %d to %d bytes", first, again)
	}
	b := s.NewBatch()
	b.Set("op", 2, "a", []byte("k"), []byte("w"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	manifest(3)
	r := restored(t, fs, s, "/restore")
	defer r.Close()
	var got []string
	if err := r.Scan("op", 0, 3, "a", func(kg uint16, _ string, key, value []byte) error {
		got = append(got, string(value))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "v,w" {
		t.Fatalf("restored %q, want the ingested and the batch's values", got)
	}
}
