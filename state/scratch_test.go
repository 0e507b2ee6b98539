package state

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// TestScratchNeverSyncs runs a Store through everything a window's store
// does (a commit, an ingested SST, a snapshot, its upload) and a restore
// of what it uploaded, on a file system where every sync fails: none is
// asked for. (The test's storage, dirTarget, syncs nothing either;
// checkpoint.Storage syncs what it receives.)
func TestScratchNeverSyncs(t *testing.T) {
	var syncs atomic.Int64
	inj := errorfs.InjectorFunc(func(op errorfs.Op) error {
		switch op.Kind {
		case errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo:
			syncs.Add(1)
			return fmt.Errorf("sync of %s: %w", op.Path, errorfs.ErrInjected)
		}
		return nil
	})
	fs := errorfs.Wrap(vfs.NewMem(), inj)
	s, err := OpenIngesting(fs, "/work/w")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	b.Set("op", 1, "g", []byte("a"), []byte("1"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	w := s.NewSorted()
	w.Set("op", 2, "g", []byte("b"), []byte("2"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	r := restored(t, fs, s, "/work/restore")
	n := 0
	err = r.Scan("op", 0, 127, "g", func(uint16, string, []byte, []byte) error { n++; return nil })
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil || n != 2 {
		t.Fatalf("restored %d entries, %v; want 2", n, err)
	}
	if c := syncs.Load(); c != 0 {
		t.Errorf("%d syncs, want none", c)
	}
}
