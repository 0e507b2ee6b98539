package session

import (
	"io"
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
