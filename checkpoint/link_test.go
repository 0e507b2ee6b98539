package checkpoint

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/state"
)

// TestUploadLinks checkpoints a store whose working directory is on the
// same file system as checkpoint storage, twice: each checkpoint's new
// SST goes into storage as a hard link to the store's file (it is not
// written a second time), and each checkpoint restores to the rows it was
// taken of, its files verified against their checksums.
func TestUploadLinks(t *testing.T) {
	dir := t.TempDir()
	st := openStorage(t, vfs.Default, filepath.Join(dir, "checkpoints"))
	store, err := state.OpenIngesting(vfs.Default, filepath.Join(dir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	write := func(from, to, version uint64) {
		w := store.NewSorted()
		for i := from; i < to; i++ {
			w.Set(uid, uint16(i%maxPar), "acc", keyOf(i), valueOf(i, version))
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 5000, 1)
	h1 := snapshot(t, store, st, 1)
	write(100, 200, 2)
	h2 := snapshot(t, store, st, 2)
	for i, h := range []state.Handle{h1, h2} {
		linked := 0
		for _, f := range h.Files {
			if !strings.HasSuffix(f.Name, ".sst") {
				continue
			}
			fi, err := vfs.Default.Stat(st.path(f.Path))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Sys().(*syscall.Stat_t).Nlink >= 2 {
				linked++
			}
		}
		if linked == 0 {
			t.Fatalf("checkpoint %d: no SST in storage is linked to the store's", i+1)
		}
	}
	for i, h := range []state.Handle{h1, h2} {
		r, err := state.OpenHandle(vfs.Default, st, h, filepath.Join(dir, "restore"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = r.Scan(uid, 0, maxPar-1, "acc", func(kg uint16, name string, key, value []byte) error {
			k := uint64(0)
			for _, b := range key {
				k = k<<8 | uint64(b)
			}
			version := uint64(1)
			if i == 1 && k >= 100 && k < 200 {
				version = 2
			}
			if string(value) != string(valueOf(k, version)) {
				t.Errorf("checkpoint %d: row %d is not version %d", i+1, k, version)
			}
			n++
			return nil
		})
		if cerr := r.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if n != 5000 {
			t.Fatalf("checkpoint %d restored %d rows, want 5000", i+1, n)
		}
	}
}

// TestFailedLinkUnclaims: a link that fails (its source is gone) or a put
// whose reader fails leaves no claim behind on the shared path it would
// have made, so that the claims hold only files a checkpoint uses.
func TestFailedLinkUnclaims(t *testing.T) {
	dir := t.TempDir()
	st := openStorage(t, vfs.Default, filepath.Join(dir, "checkpoints"))
	p, err := st.LinkShared(1, "000001.sst", vfs.Default, filepath.Join(dir, "gone.sst"))
	if err != nil || p != "" {
		t.Fatalf("linking a missing file: %q, %v; want no path and no error (the caller copies)", p, err)
	}
	if _, err := st.PutShared(1, "000002.sst", iotest.ErrReader(errors.New("read failed"))); err == nil {
		t.Fatal("a put whose reader fails succeeded")
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.claimed) != 0 {
		t.Fatalf("claims left by a failed link and a failed put: %v", st.claimed)
	}
}
