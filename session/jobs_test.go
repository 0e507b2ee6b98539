package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strandsql/strand/exec"
)

// TestJobsWatch checks that a watcher of the session's jobs hears of a job
// when it starts, still running, and when it ends, and that the job's
// checkpoints are there once it has.
func TestJobsWatch(t *testing.T) {
	s := New(io.Discard, io.Discard)
	s.Durable = Durability{StateDir: t.TempDir(), Name: "w"}
	s.Config[KeyCheckpointInterval] = "1h"
	var mu sync.Mutex
	var seen []exec.Status
	s.Jobs.Watch(func(j *Job) {
		st, _, _ := j.Status()
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})
	err := s.ExecScript(t.Context(), `CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT n FROM g;`)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != exec.Running || seen[1] != exec.Finished {
		t.Fatalf("watcher saw %v, want [RUNNING FINISHED]", seen)
	}
	jobs := s.Jobs.List()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs", len(jobs))
	}
	if c := jobs[0].Checkpoints(); c.Completed != 1 || c.LastID == 0 {
		t.Errorf("a bounded job's final checkpoint is not in its checkpoints: %+v", c)
	}
}

// TestJobOutcomeAcrossRestarts: a job's status is the session's outcome,
// not its last run's (a restart that finds the job finished ends it with
// no error after a failed run), and between a failed run and its restart
// a savepoint is refused as such.
func TestJobOutcomeAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := New(io.Discard, io.Discard)
	err := s.ExecScript(t.Context(), `CREATE TABLE f (n BIGINT) WITH ('connector' = 'filesystem', 'path' = '`+filepath.Join(dir, "bad.csv")+`', 'format' = 'csv');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT n FROM f;`)
	if err == nil {
		t.Fatal("the job over a bad row did not fail")
	}
	j := s.Jobs.List()[0]
	if st, _, _ := j.Status(); st != exec.Failed {
		t.Fatalf("status %s, want FAILED", st)
	}
	j.mu.status = exec.Running // as between the failed run and a restart
	if _, err := j.Savepoint(t.Context(), dir); err == nil || !strings.Contains(err.Error(), "restarting") {
		t.Fatalf("a savepoint between runs: %v", err)
	}
	j.end(nil)
	if st, _, _ := j.Status(); st != exec.Finished {
		t.Fatalf("a job whose restart found it finished has status %s", st)
	}
	j.end(fmt.Errorf("stopped: %w", exec.ErrCanceled))
	if st, _, _ := j.Status(); st != exec.Canceled {
		t.Fatalf("a canceled job has status %s", st)
	}
}
