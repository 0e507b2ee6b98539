package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/strandsql/strand/exec"
)

// ErrNotRegistered is returned for a job id that no entry of the registry
// has.
var ErrNotRegistered = errors.New("no running job with that id is serving HTTP")

// Entry is a running job whose process serves the HTTP API.
type Entry struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	PID     int       `json:"pid"`
	HTTP    string    `json:"http"`
	Started time.Time `json:"started"`
}

// Registry is a directory of entries, one file <job-id>.json each, through
// which the CLI finds a job's HTTP address.
type Registry struct{ Dir string }

// DefaultRegistry is the user's registry: $STRAND_HOME/jobs, else
// $XDG_RUNTIME_DIR/strand/jobs (private to the user, emptied at logout),
// else ~/.strand/jobs.
func DefaultRegistry() (Registry, error) {
	if h := os.Getenv("STRAND_HOME"); h != "" {
		return Registry{filepath.Join(h, "jobs")}, nil
	}
	if r := os.Getenv("XDG_RUNTIME_DIR"); r != "" {
		return Registry{filepath.Join(r, "strand", "jobs")}, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return Registry{}, fmt.Errorf("job registry: %w (set STRAND_HOME)", err)
	}
	return Registry{filepath.Join(home, ".strand", "jobs")}, nil
}

// Add writes e's file, replacing it atomically.
func (r Registry) Add(e Entry) error {
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return fmt.Errorf("job registry: %w", err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(r.Dir, ".tmp-"+e.ID+"-*")
	if err != nil {
		return fmt.Errorf("job registry: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), r.path(e.ID))
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("job registry: %w", err)
	}
	return nil
}

// Remove removes job id's entry, if any.
func (r Registry) Remove(id string) error {
	if err := os.Remove(r.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("job registry: %w", err)
	}
	return nil
}

func (r Registry) path(id string) string { return filepath.Join(r.Dir, id+".json") }

// List returns the entries of live processes, oldest first. An entry
// whose process is gone (killed before it could remove it) is removed.
// Unreadable entries are skipped.
func (r Registry) List() ([]Entry, error) {
	files, err := os.ReadDir(r.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("job registry: %w", err)
	}
	var out []Entry
	for _, f := range files {
		id, ok := strings.CutSuffix(f.Name(), ".json")
		if !ok || strings.HasPrefix(id, ".") {
			continue
		}
		b, err := os.ReadFile(r.path(id))
		if err != nil {
			continue // removed since ReadDir
		}
		var e Entry
		if json.Unmarshal(b, &e) != nil || e.ID != id {
			continue
		}
		if !alive(e.PID) {
			_ = os.Remove(r.path(id))
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.Started.Compare(b.Started) })
	return out, nil
}

// Find returns the entry whose job id is id or starts with it (at least
// four characters).
func (r Registry) Find(id string) (Entry, error) {
	if len(id) < 4 {
		return Entry{}, fmt.Errorf("job id %q: give at least four characters", id)
	}
	es, err := r.List()
	if err != nil {
		return Entry{}, err
	}
	var found []Entry
	for _, e := range es {
		if e.ID == id {
			return e, nil
		}
		if strings.HasPrefix(e.ID, id) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return Entry{}, fmt.Errorf("job %s: %w (registry %s; give --http ADDR for a job elsewhere)", id, ErrNotRegistered, r.Dir)
	case 1:
		return found[0], nil
	}
	return Entry{}, fmt.Errorf("job id %s is ambiguous: %s and %s", id, found[0].ID, found[1].ID)
}

// alive reports whether process pid exists (EPERM: it does, another
// user's).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Track keeps an entry for each running job of jobs, served at addr by
// this process, from its start to its end. Failures to write the registry
// are reported on log: they do not stop the job.
func (r Registry) Track(jobs *Jobs, addr string, log io.Writer) {
	jobs.Watch(func(j *Job) {
		var err error
		if st, _, _ := j.Status(); st == exec.Running {
			err = r.Add(Entry{ID: j.ID, Name: j.Name, PID: os.Getpid(), HTTP: addr, Started: j.Started})
		} else {
			err = r.Remove(j.ID)
		}
		if err != nil {
			fmt.Fprintf(log, "strand: %v\n", err)
		}
	})
}
