package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLock: a held lock refuses a second holder, naming the holder's pid
// and the path; Release frees it and removes the file; Held tells a live
// lock from a stale file.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "q_1.lock")
	l, err := Acquire(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(path)
	want := fmt.Sprintf("%s is held by process %d", path, os.Getpid())
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second Acquire = %v, want %q", err, want)
	}
	if !Held(path) {
		t.Error("Held = false for a held lock")
	}
	l.Release()
	l.Release()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("lock file after Release: %v", err)
	}
	// A file left by a process that died holds nothing.
	if err := os.WriteFile(path, []byte("999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Held(path) {
		t.Error("Held = true for a stale lock file")
	}
	l, err = Acquire(path)
	if err != nil {
		t.Fatalf("Acquire over a stale file: %v", err)
	}
	b, _ := os.ReadFile(path)
	if strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file holds %q", b)
	}
	l.Release()
}
