package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
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

// TestFullDiskFlushRetriesQuietly: a flush that fails for want of space
// is retried with pauses and logged once, then once per interval, and
// goes through when space comes back, losing nothing. Pebble alone
// retries it at once, for ever, logging each failure.
func TestFullDiskFlushRetriesQuietly(t *testing.T) {
	s, full := fullDiskStore(t)
	l := s.opts.Logger.(*logger)
	var mu sync.Mutex
	var lines []string
	l.errorf = func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, a...))
	}
	l.every = 500 * time.Millisecond
	full.On()
	flushed := flushing(s)
	time.Sleep(1600 * time.Millisecond)
	l.mu.Lock()
	failures := l.mu.failures
	l.mu.Unlock()
	full.Off()
	select {
	case err := <-flushed:
		if err != nil {
			t.Fatalf("the flush once space came back: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the flush did not go through once space came back")
	}
	mu.Lock()
	defer mu.Unlock()
	// Paused 10, 20, 40, ... ms, 1.6 s hold about 8 retries; without
	// pauses, thousands.
	if failures < 2 || failures > 20 {
		t.Errorf("%d failed flushes in 1.6 s, want a few", failures)
	}
	if len(lines) < 2 || len(lines) > 5 || !strings.Contains(lines[0], "no space left") || !strings.Contains(lines[1], " since ") {
		t.Errorf("%d lines logged for %d failures, want the first and one per 500 ms:\n%s", len(lines), failures, strings.Join(lines, "\n"))
	}
	if v, ok, err := s.Get("u", 0, "n", []byte("k")); err != nil || !ok || string(v) != "v" {
		t.Errorf("after the flush: %q, %v, %v", v, ok, err)
	}
}

// TestFullDiskRetryLeavesTheDBFree: while a flush fails for want of
// space, what needs the DB's lock (Metrics, a memtable rotation, a
// checkpoint, Close) still gets it at once. Pebble calls BackgroundError
// holding that lock, so the pause between retries must not be taken
// there: each caller would wait out up to a second of it.
func TestFullDiskRetryLeavesTheDBFree(t *testing.T) {
	s, full := fullDiskStore(t)
	s.opts.Logger.(*logger).errorf = func(string, ...any) {}
	full.On()
	flushed := flushing(s)
	// By now the pauses are at hundreds of milliseconds.
	time.Sleep(1200 * time.Millisecond)
	var slowest time.Duration
	for range 5 {
		start := time.Now()
		s.DiskUsage()
		slowest = max(slowest, time.Since(start))
		time.Sleep(50 * time.Millisecond)
	}
	full.Off()
	if err := <-flushed; err != nil {
		t.Fatalf("the flush once space came back: %v", err)
	}
	if slowest > 200*time.Millisecond {
		t.Errorf("DiskUsage took up to %v while the flush was retried, want it at once", slowest)
	}
}

// fullDiskStore returns a store holding one key in its memtable, on a
// file system whose disk is full (no table can be created) while the
// toggle is on.
func fullDiskStore(t *testing.T) (*Store, *errorfs.Toggle) {
	t.Helper()
	full := &errorfs.Toggle{Injector: errorfs.InjectorFunc(func(op errorfs.Op) error {
		if op.Kind == errorfs.OpCreate && strings.HasSuffix(op.Path, ".sst") {
			return &os.PathError{Op: "create", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	})}
	s := openStore(t, errorfs.Wrap(vfs.Default, full), t.TempDir())
	b := s.NewBatch()
	b.Set("u", 0, "n", []byte("k"), []byte("v"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	return s, full
}

// flushing flushes s in the background, reporting on the channel.
func flushing(s *Store) <-chan error {
	flushed := make(chan error, 1)
	go func() { flushed <- s.db.Flush() }()
	return flushed
}
