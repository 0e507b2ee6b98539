package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is wrapped by the error of a Lock that another process holds.
var ErrLocked = errors.New("locked by another process")

// Lock is an exclusive OS file lock (flock) on a lock file: a job holds one
// on its state directory and one on each filesystem sink directory for as
// long as it runs, so that a second process cannot delete or duplicate the
// first one's files. The kernel drops the lock with the process, so a
// kill -9 leaves no stale lock; the file itself records the holder's pid
// for the message that refuses the next one.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock at path, creating the file and its directory, or
// fails at once with an error wrapping ErrLocked that names the holder's
// pid and the path.
func Acquire(path string) (*Lock, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b, _ := os.ReadFile(path)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				holder := "another process"
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					holder = fmt.Sprintf("process %d", pid)
				}
				return nil, fmt.Errorf("%w: %s is held by %s", ErrLocked, path, holder)
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// A holder removes the file before it lets go: a lock taken on a
		// file no longer at path guards nothing, so take the new one.
		if same(f, path) {
			l := &Lock{f: f, path: path}
			if err := l.record(); err != nil {
				l.Release()
				return nil, err
			}
			return l, nil
		}
		f.Close()
	}
}

func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

func (l *Lock) record() error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return fmt.Errorf("lock %s: %w", l.path, err)
	}
	return nil
}

// Release removes the lock file and lets go of the lock. It may be called
// on a nil Lock and more than once.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = l.f.Close()
	l.f = nil
}

// Held reports whether the lock at path is held by a live process, without
// taking it for longer than the check.
func Held(path string) bool {
	l, err := Acquire(path)
	if err != nil {
		return errors.Is(err, ErrLocked)
	}
	l.Release()
	return false
}
