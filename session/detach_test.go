package session

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
)

// lockedBuffer is a bytes.Buffer that jobs and the caller may write to
// and read from at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestDetachConcurrent submits INSERTs whose jobs run in the background
// and, while they run, executes SHOW JOBS, SET, CREATE TABLE and a SELECT
// from another goroutine as well, as the REPL and its HTTP API do; run it
// with -race. Exec returns from each INSERT at once, and the jobs end when
// canceled.
func TestDetachConcurrent(t *testing.T) {
	var out, log lockedBuffer
	s := New(&out, &log)
	s.Detach = true
	s.Parallelism = 2
	run := func(sql string) {
		t.Helper()
		if err := s.ExecScript(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	run(`CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');`)
	start := time.Now()
	run(`INSERT INTO o SELECT n FROM g;`)
	run(`INSERT INTO o SELECT n + 1 FROM g;`)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("submitting two unbounded INSERTs took %s", d)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 5 {
				if err := s.ExecScript(t.Context(), `SHOW JOBS; SET 'parallelism.default' = '1';`); err != nil {
					t.Error(err)
				}
				if err := s.ExecScript(t.Context(), fmt.Sprintf(
					`CREATE TABLE t%d_%d (n BIGINT) WITH ('connector' = 'blackhole');`, i, k)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	run(`CREATE TABLE b (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3'); SELECT n FROM b;`)
	jobs := s.Jobs.List()
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3", len(jobs))
	}
	for _, j := range jobs[:2] {
		if st, _, _ := j.Status(); st != exec.Running {
			t.Fatalf("job %s is %s while detached, want RUNNING", j.ID, st)
		}
		if !strings.Contains(out.String(), "[INFO] Job "+j.ID+" submitted.\n") {
			t.Errorf("no submitted message for %s in:\n%s", j.ID, out.String())
		}
	}
	for _, j := range jobs[:2] {
		if err := j.Cancel(); err != nil {
			t.Fatal(err)
		}
	}
	s.Wait()
	for _, j := range jobs[:2] {
		if st, _, _ := j.Status(); st == exec.Running {
			t.Errorf("job %s still running after Wait", j.ID)
		}
	}
	if got := strings.Count(out.String(), "+I["); got != 3 {
		t.Errorf("SELECT printed %d rows, want 3:\n%s", got, out.String())
	}
}

// TestDetachSavepointOnce sets a savepoint to restore and submits two
// INSERTs: the first restores it, the second, started while the first
// runs, starts afresh.
func TestDetachSavepointOnce(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, log lockedBuffer
	s := New(&out, &log)
	s.Detach = true
	s.Parallelism = 1
	s.Durable = Durability{StateDir: ".strand", Name: "sp"}
	const insert = `INSERT INTO o SELECT n FROM g;`
	if err := s.ExecScript(t.Context(), `SET 'execution.checkpointing.interval' = '50ms';
CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');`+insert); err != nil {
		t.Fatal(err)
	}
	j := s.Jobs.List()[0]
	var path string
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if path, err = j.Stop(t.Context(), "", false); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no savepoint: %v\n%s", err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.ExecScript(t.Context(), fmt.Sprintf("SET 'execution.savepoint.path' = '%s';\n%s\n%s", path, insert, insert)); err != nil {
		t.Fatal(err)
	}
	for _, j := range s.Jobs.List()[1:] {
		for j.Cancel() != nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	s.Wait()
	if n := strings.Count(log.String(), "resuming from savepoint "+path); n != 1 {
		t.Errorf("the savepoint was restored %d times, want once:\n%s", n, log.String())
	}
}

// TestCancelBeforeRun cancels a detached INSERT's job as soon as it is
// submitted, before its run has (usually) started, as a REPL ending right
// after its script does: the run is canceled as it starts, and Wait
// returns.
func TestCancelBeforeRun(t *testing.T) {
	var out, log lockedBuffer
	s := New(&out, &log)
	s.Detach = true
	if err := s.ExecScript(t.Context(), `CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT n FROM g;`); err != nil {
		t.Fatal(err)
	}
	j := s.Jobs.List()[0]
	if err := j.Cancel(); err != nil {
		t.Fatalf("cancel right after the submit: %v", err)
	}
	waited := make(chan struct{})
	go func() { s.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(time.Minute):
		t.Fatal("the canceled job still runs")
	}
	if st, _, _ := j.Status(); st != exec.Canceled {
		t.Errorf("status %s, want CANCELED", st)
	}
	if err := j.Cancel(); err == nil {
		t.Error("canceling an ended job succeeded")
	}
}
