package state

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// syncTarget is dirTarget safe for concurrent uploads.
type syncTarget struct {
	mu sync.Mutex
	d  dirTarget
}

func (s *syncTarget) HasShared(id int64, f FileRef) bool { return s.d.HasShared(id, f) }
func (s *syncTarget) PutShared(id int64, name string, r io.Reader) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d.PutShared(id, name, r)
}
func (s *syncTarget) PutOwned(id int64, name string, r io.Reader) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d.PutOwned(id, name, r)
}
func (s *syncTarget) Open(path string) (io.ReadCloser, error) { return s.d.Open(path) }

// TestReviewExportsOfSharedBase: a full snapshot and the snapshot after it
// with no writes (no delta: its directory is the base's) are both exported,
// as two savepoints whose exports overlap in time (the first timed out and
// still runs in the background when the next savepoint is taken). Before
// delta snapshots each had its own directory; now both open the base's
// directory read-only, and Pebble's directory lock (LOCK, in snapFS's
// MemFS) refuses the second.
func TestReviewExportsOfSharedBase(t *testing.T) {
	d := newDeltaStore(t, vfs.Default, filepath.Join(t.TempDir(), "store"))
	sn1, want := d.snapshot(t, 1, true)
	sn2, err := d.s.SnapshotDelta(2, d.w) // no writes: no delta
	if err != nil {
		t.Fatal(err)
	}
	if sn2.dir != sn1.dir || len(sn2.deltas) != 0 {
		t.Fatalf("snapshot 2: dir %s (base %s), %d deltas", sn2.dir, sn1.dir, len(sn2.deltas))
	}
	// Export 1 under way: its DB is open.
	db1, err := sn1.open()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		db1.Close()
		sn1.Discard()
	}()
	got := exported(t, sn2)
	if !slices.Equal(got, want.scan("agg", 0, 0xffff, "")) {
		t.Fatalf("export of snapshot 2: %d entries, want %d", len(got), len(want))
	}
}

// TestReviewParallelUploads uploads the snapshots of a store taking delta
// snapshots with four goroutines at once (as a job whose uploads outlast a
// checkpoint interval does), some discarded, some exported, on disk, with
// Batch writes now and then: every handle restores to its snapshot's
// state and the store ends holding its DB alone. Run it with -race.
func TestReviewParallelUploads(t *testing.T) {
	root := t.TempDir()
	fs := vfs.Default
	d := newDeltaStore(t, fs, fs.PathJoin(root, "store"))
	dst := &syncTarget{d: dirTarget{fs: fs, root: fs.PathJoin(root, "storage")}}
	if err := fs.MkdirAll(dst.d.root, 0o755); err != nil {
		t.Fatal(err)
	}
	type job struct {
		id int64
		sn *Snapshot
		m  model
	}
	jobs := make(chan job)
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		handles = map[int64]Handle{}
		errs    []error
	)
	for range 4 {
		wg.Go(func() {
			for j := range jobs {
				var err error
				switch {
				case j.id%11 == 0:
					err = j.sn.Discard()
				case j.id%13 == 0:
					path := filepath.Join(root, fmt.Sprintf("export-%d", j.id))
					_, err = j.sn.Export(path, "agg")
				default:
					var h Handle
					h, err = j.sn.Upload(dst)
					mu.Lock()
					handles[j.id] = h
					mu.Unlock()
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("snapshot %d: %w", j.id, err))
					mu.Unlock()
				}
			}
		})
	}
	models := map[int64]model{}
	for id := int64(1); id <= 60; id++ {
		batch := id%17 == 0
		if batch {
			b := d.s.NewBatch()
			deltaWrites(d.rng, b, d.m, int(id), 4)
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		sn := d.take(t, id)
		models[id] = d.m.model()
		jobs <- job{id, sn, models[id]}
	}
	close(jobs)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for id, h := range handles {
		checkRestore(t, fs, dst, h, fs.PathJoin(root, "restore"), models[id], fmt.Sprintf("checkpoint %d", id))
	}
	d.closeClean(t)
}

// TestReviewDiscardTwice: Discard was idempotent before delta snapshots
// (a RemoveAll of the snapshot's own directory). Now each Discard drops a
// reference on the shared base and deltas, so a second Discard of one
// snapshot drops a reference it no longer holds: the base's directory and
// the delta go while the store's chain still uses them, and the next delta
// snapshot cannot be uploaded. (No caller in exec discards twice today;
// this is an API hazard.)
func TestReviewDiscardTwice(t *testing.T) {
	fs := vfs.NewMem()
	d := newDeltaStore(t, fs, "/store")
	dst := newTarget(t, fs, "/storage")
	sn1, _ := d.snapshot(t, 1, true)
	if _, err := sn1.Upload(dst); err != nil {
		t.Fatal(err)
	}
	sn2, _ := d.snapshot(t, 2, false)
	if err := sn2.Discard(); err != nil {
		t.Fatal(err)
	}
	_ = sn2.Discard() // a second Discard: must not touch what others hold
	sn3, want := d.snapshot(t, 3, false)
	h, err := sn3.Upload(dst)
	if err != nil {
		t.Fatalf("upload of snapshot 3 after snapshot 2 was discarded twice: %v", err)
	}
	checkRestore(t, fs, dst, h, "/restore", want, "checkpoint 3")
}
