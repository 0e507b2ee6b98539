package exec

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/strandsql/strand/checkpoint"
)

// Scratch is a run's private directory for state that outlives no run: the
// spill stores of a job that does not checkpoint. It is made on first use
// as run-<random>/ under Parent (the job's work directory), locked by the
// run so that the next start of the job, or a concurrent run of it, can
// tell a live run's directory from one a kill -9 left (see Sweep), and
// removed at the end of the run. A nil Scratch is os.TempDir(), for tests
// and library use.
type Scratch struct {
	Parent string

	mu   sync.Mutex
	dir  string
	lock *checkpoint.Lock
}

const runPrefix = "run-"

// Dir returns the run's directory, making it on the first call.
func (s *Scratch) Dir() (string, error) {
	if s == nil {
		return os.TempDir(), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		return s.dir, nil
	}
	dir := filepath.Join(s.Parent, runPrefix+strings.ToLower(rand.Text()[:10]))
	// The lock comes first: a directory whose lock nobody holds is a dead
	// run's to Sweep.
	lock, err := checkpoint.Acquire(dir + ".lock")
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		lock.Release()
		return "", fmt.Errorf("scratch: %w", err)
	}
	s.dir, s.lock = dir, lock
	return dir, nil
}

// Remove deletes the run's directory, if it made one.
func (s *Scratch) Remove() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.lock.Release()
	s.dir, s.lock = "", nil
	if err != nil {
		return fmt.Errorf("scratch: %w", err)
	}
	return nil
}

// Sweep removes what dead runs left in the work directory dir: every
// run-* directory whose lock no live process holds. With all, it removes
// everything else in dir as well, for a checkpointing job, which holds the
// job's lock and rebuilds its stores from the checkpoint.
func Sweep(dir string, all bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sweeping %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case strings.HasPrefix(name, runPrefix) && strings.HasSuffix(name, ".lock"):
			// Held removes a lock nobody holds: its run died before it
			// made its directory, or after removing it.
			checkpoint.Held(p)
		case strings.HasPrefix(name, runPrefix):
			if checkpoint.Held(p + ".lock") {
				continue
			}
			errs = append(errs, os.RemoveAll(p))
		case all:
			errs = append(errs, os.RemoveAll(p))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sweeping %s: %w", dir, err)
	}
	return nil
}
