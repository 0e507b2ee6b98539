package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// TestShowAndStopJobs runs SHOW JOBS and STOP JOB ... WITH SAVEPOINT
// against a session whose job is running, as the REPL will, and checks the
// errors a user sees for a job that does not exist and a drain without a
// savepoint.
func TestShowAndStopJobs(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 2
	s.Durable = session.Durability{StateDir: ".strand", Name: "q"}
	s.Config[session.KeyCheckpointInterval] = "100ms"
	query := fmt.Sprintf(crashQuery, 200000, 5000)
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), query) }()
	for !strings.Contains(log.String(), "checkpoint 1 completed") {
		select {
		case err := <-errc:
			t.Fatalf("the job ended: %v\n%s", err, log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Only SHOW JOBS and STOP JOB may run while a job runs, through Exec.
	run := func(sql string) (string, error) {
		before := len(out.String())
		st, err := parser.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Exec(context.Background(), st[0])
		return out.String()[before:], err
	}
	shown, err := run("SHOW JOBS;")
	id := s.Jobs.List()[0].ID
	if err != nil || !regexp.MustCompile(`\| `+id+` \| q_1 +\| RUNNING `).MatchString(shown) {
		t.Fatalf("SHOW JOBS: %v\n%s", err, shown)
	}
	for _, c := range []struct{ sql, want string }{
		{"STOP JOB 'feedbeef' WITH SAVEPOINT;", "1:10: no such job: 'feedbeef'"},
		{"STOP JOB '" + id + "' WITH DRAIN;", "1:1: STOP JOB ... WITH DRAIN needs WITH SAVEPOINT"},
	} {
		_, err := run(c.sql)
		var perr *planner.Error
		if !errors.As(err, &perr) || !strings.HasPrefix(err.Error(), c.want) {
			t.Fatalf("%s: %v, want %s", c.sql, err, c.want)
		}
		if f := planner.FormatError("q.sql", c.sql, err); !strings.Contains(f, "^") {
			t.Fatalf("%s: no caret in\n%s", c.sql, f)
		}
	}
	stopped, err := run("STOP JOB '" + id[:6] + "' WITH SAVEPOINT;")
	if err != nil {
		t.Fatalf("STOP JOB: %v\n%s", err, log.String())
	}
	m := regexp.MustCompile(`\| (/\S+savepoint-\S+) +\|`).FindStringSubmatch(stopped)
	if m == nil {
		t.Fatalf("STOP JOB printed no savepoint path:\n%s", stopped)
	}
	if _, err := checkpoint.LoadSavepoint(m[1]); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("the stopped job: %v", err)
	}
	if shown, _ := run("SHOW JOBS;"); !strings.Contains(shown, "| STOPPED ") {
		t.Fatalf("SHOW JOBS after the stop:\n%s", shown)
	}
	if _, err := run("STOP JOB '" + id + "' WITH SAVEPOINT;"); err == nil || !strings.Contains(err.Error(), "is not running") {
		t.Fatalf("STOP JOB of a stopped job: %v", err)
	}
	st, err := parser.Parse("STOP JOB 'x' WITH SAVEPOINT WITH DRAIN")
	if err != nil || st[0].String() != "STOP JOB 'x' WITH SAVEPOINT WITH DRAIN" {
		t.Fatalf("round trip: %v %v", st, err)
	}
}

// TestFailedSavepointLeavesJobRunning asks for savepoints that fail (a
// target that is a file, a savepoint that times out) and checks that the
// caller gets the error, nothing that looks like a savepoint is left, and
// the job runs on. (With a 1 ms timeout its final checkpoint could not
// complete either, so the test cancels it.)
func TestFailedSavepointLeavesJobRunning(t *testing.T) {
	t.Chdir(t.TempDir())
	var log syncBuffer
	s := session.New(io.Discard, &log)
	s.Parallelism = 2
	s.Durable = session.Durability{StateDir: ".strand", Name: "q"}
	s.Config[session.KeyCheckpointInterval] = "1h"
	s.Config[session.KeyCheckpointTimeout] = "1 ms"
	query := fmt.Sprintf(crashQuery, 30000, 10000)
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), query) }()
	var j *session.Job
	for j == nil || j.Metrics.RowsRead.Load() == 0 {
		time.Sleep(10 * time.Millisecond)
		if js := s.Jobs.List(); len(js) > 0 {
			j = js[0]
		}
	}
	writeFile(t, "afile", "x")
	ctx := context.Background()
	if _, err := j.Savepoint(ctx, "afile"); err == nil {
		t.Fatal("a savepoint into a file succeeded")
	}
	if _, err := j.Savepoint(ctx, "sp"); err == nil || !strings.Contains(err.Error(), "not complete after") {
		t.Fatalf("a savepoint that times out: %v", err)
	}
	if entries, _ := os.ReadDir("sp"); len(entries) != 0 {
		t.Fatalf("a failed savepoint left %v", entries)
	}
	if st, _, _ := j.Status(); st != "RUNNING" {
		t.Fatalf("after failed savepoints the job is %s", st)
	}
	if !strings.Contains(log.String(), "savepoint 1 failed") || strings.Contains(log.String(), "restarting") {
		t.Fatalf("the failure is not reported, or the job restarted:\n%s", log.String())
	}
	if err := j.Cancel(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, exec.ErrCanceled) {
		t.Fatalf("the canceled job: %v", err)
	}
}
