package session

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
)

// throttled is a windowed query over a generator slow enough to be
// running while the test talks to it.
const throttled = `CREATE TABLE g (ts TIMESTAMP(3), k BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '100000', 'rows-per-second' = '2000',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.k.min' = '1', 'fields.k.max' = '5');
CREATE TABLE o (ws TIMESTAMP(3), k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;`

// run is the outcome of a session's script: err once done is closed.
type run struct {
	done chan struct{}
	err  error
}

// startJob runs throttled in a session, with checkpoints if interval is
// set, and returns the session, its running job and the run.
func startJob(t testing.TB, interval string) (*Session, *Job, *run) {
	t.Helper()
	s := New(io.Discard, io.Discard)
	s.Parallelism = 2
	s.Durable = Durability{StateDir: t.TempDir(), Name: "h"}
	if interval != "" {
		s.Config[KeyCheckpointInterval] = interval
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{done: make(chan struct{})}
	go func() {
		r.err = s.ExecScript(ctx, throttled)
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if js := s.Jobs.List(); len(js) == 1 && js[0].Metrics.RowsRead.Load() > 0 {
			return s, js[0], r
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func get(t *testing.T, url string, want int) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %s, want %d\n%s", url, resp.Status, want, b)
	}
	return b
}

// TestServerJobs checks the job list and a job's details, looked up by a
// prefix of its id, and the error JSON for a job that does not exist.
func TestServerJobs(t *testing.T) {
	s, job, _ := startJob(t, "100ms")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	c := &Client{Addr: srv.URL}
	ctx := t.Context()

	deadline := time.Now().Add(30 * time.Second)
	for job.Checkpoints().LastID == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint completed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	jobs, err := c.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != job.ID || jobs[0].Status != "RUNNING" || jobs[0].Name != "h_1" ||
		jobs[0].RowsRead == 0 || jobs[0].End != -1 || jobs[0].LastCheckpoint == nil || jobs[0].Start != job.Started.UnixMilli() {
		t.Fatalf("GET /jobs: %+v", jobs)
	}
	d, err := c.Job(ctx, job.ID[:5])
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != job.ID || !strings.HasPrefix(d.Statement, "INSERT INTO") || d.Metrics.RowsRead == 0 || d.Metrics.CheckpointsCompleted == 0 {
		t.Fatalf("GET /jobs/<prefix>: %+v", d)
	}
	if len(d.Vertices) != 2 || d.Vertices[0].RowsOut == 0 || d.Vertices[1].RowsIn == 0 || d.Vertices[1].Watermark == nil {
		t.Fatalf("GET /jobs/<prefix> vertices: %+v", d.Vertices)
	}

	var e struct{ Errors []string }
	if err := json.Unmarshal(get(t, srv.URL+"/jobs/ffffffff", http.StatusNotFound), &e); err != nil || len(e.Errors) != 1 || e.Errors[0] != "no job ffffffff" {
		t.Errorf("unknown job: %v %+v", err, e)
	}
	if _, err := c.Job(ctx, "fff"); !errors.Is(err, ErrAPI) || !strings.Contains(err.Error(), "no job fff") {
		t.Errorf("client on an unknown job: %v", err)
	}
	if err := json.Unmarshal(get(t, srv.URL+"/nowhere", http.StatusNotFound), &e); err != nil || len(e.Errors) != 1 {
		t.Errorf("unknown endpoint: %v %+v", err, e)
	}
	resp, err := http.Post(srv.URL+"/jobs/"+job.ID+"/savepoints", "application/json", strings.NewReader(`{"target_directory": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `"errors"`) || !strings.Contains(string(b), "target_directory") {
		t.Errorf("misspelt body field: %s %s", resp.Status, b)
	}
}

// TestServerSavepointAndStop takes a savepoint of a running job, which
// keeps running, then stops it with a drain, and checks the metrics, a
// request to the stopped job, and that the server's Close waits for the
// stop's outcome to be fetched.
func TestServerSavepointAndStop(t *testing.T) {
	s, job, done := startJob(t, "1h")
	api := NewServer(&s.Jobs)
	srv := httptest.NewServer(api)
	defer srv.Close()
	c := &Client{Addr: srv.URL}
	ctx := t.Context()

	dir := t.TempDir()
	path, err := c.Savepoint(ctx, job.ID, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, dir) {
		t.Errorf("savepoint %s is not under %s", path, dir)
	}
	if _, err := checkpoint.LoadSavepoint(path); err != nil {
		t.Fatalf("the savepoint does not load: %v", err)
	}
	if st, _, _ := job.Status(); st != exec.Running {
		t.Fatalf("after a savepoint the job is %s", st)
	}

	m := string(get(t, srv.URL+"/metrics", http.StatusOK))
	for _, want := range []string{`strand_job_rows_read_total{job_id="` + job.ID + `",job_name="h_1"}`, "strand_job_checkpoints_failed_total{", "strand_job_spills_total{"} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, m)
		}
	}

	path, err = c.Stop(ctx, job.ID[:6], "", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkpoint.LoadSavepoint(path); err != nil {
		t.Fatalf("the stop's savepoint does not load: %v", err)
	}
	<-done.done
	if done.err != nil {
		t.Fatalf("the stopped run returned %v", done.err)
	}
	if st, _, _ := job.Status(); st != exec.Stopped {
		t.Fatalf("after a stop the job is %s", st)
	}
	if _, err := c.Savepoint(ctx, job.ID, dir); !errors.Is(err, ErrAPI) || !strings.Contains(err.Error(), "not running") {
		t.Errorf("savepoint of a stopped job: %v", err)
	}
	start := time.Now()
	if err := api.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("Close waited %s though every outcome had been fetched", time.Since(start))
	}
}

// TestServerSavepointNeedsCheckpoints checks that a savepoint of a job
// without checkpointing fails with the reason.
func TestServerSavepointNeedsCheckpoints(t *testing.T) {
	s, job, _ := startJob(t, "")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	_, err := (&Client{Addr: srv.URL}).Savepoint(t.Context(), job.ID, t.TempDir())
	if !errors.Is(err, ErrAPI) || !strings.Contains(err.Error(), "savepoints need checkpointing") {
		t.Fatalf("savepoint without checkpoints: %v", err)
	}
}

// TestListenLoopbackOnly checks that only loopback addresses are served
// unless remote access is allowed.
func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		if l, err := Listen(addr, false); !errors.Is(err, ErrRemote) {
			if l != nil {
				l.Close()
			}
			t.Errorf("Listen(%s): %v, want ErrRemote", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		l, err := Listen(addr, false)
		if err != nil {
			t.Fatalf("Listen(%s): %v", addr, err)
		}
		l.Close()
	}
	l, err := Listen("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Listen("nonsense", false); err == nil {
		t.Error("Listen accepted an address without a port")
	}
}

// TestRegistry checks entries by id and prefix, and that an entry of a
// dead process is skipped and removed.
func TestRegistry(t *testing.T) {
	r := Registry{Dir: t.TempDir() + "/jobs"}
	now := time.Now()
	live := Entry{ID: "abcd1234", Name: "q_1", PID: os.Getpid(), HTTP: "127.0.0.1:1", Started: now}
	other := Entry{ID: "abce5678", Name: "q_2", PID: os.Getpid(), HTTP: "127.0.0.1:2", Started: now.Add(time.Second)}
	dead := Entry{ID: "dead0000", Name: "q_3", PID: 1 << 30, HTTP: "127.0.0.1:3", Started: now}
	for _, e := range []Entry{other, live, dead} {
		if err := r.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	es, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].ID != live.ID || es[1].ID != other.ID || es[0].HTTP != live.HTTP {
		t.Fatalf("List: %+v", es)
	}
	if _, err := os.Stat(r.path(dead.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dead process's entry is still there: %v", err)
	}
	if e, err := r.Find("abcd"); err != nil || e.ID != live.ID {
		t.Errorf("Find(abcd): %+v %v", e, err)
	}
	if _, err := r.Find("abc"); err == nil {
		t.Error("Find took a three-character prefix")
	}
	if _, err := r.Find("abc1"); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("Find(abc1): %v", err)
	}
	if err := r.Remove(live.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Find("abcd"); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("Find after Remove: %v", err)
	}
	if err := r.Remove(live.ID); err != nil {
		t.Errorf("a second Remove: %v", err)
	}
	if err := (Registry{Dir: t.TempDir()}).Add(Entry{ID: "x"}); err != nil {
		t.Fatal(err)
	}
}

// TestServerCancelJob checks the wire format of a savepoint request with
// cancel-job, Flink's savepoint-then-cancel: a request id at once, its
// status, and a job that has stopped once the status says COMPLETED.
func TestServerCancelJob(t *testing.T) {
	s, job, done := startJob(t, "1h")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	dir := t.TempDir()
	body, _ := json.Marshal(map[string]any{"target-directory": dir, "cancel-job": true})
	resp, err := http.Post(srv.URL+"/jobs/"+job.ID+"/savepoints", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	var trig map[string]string
	err = json.NewDecoder(resp.Body).Decode(&trig)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted || len(trig["request-id"]) != 32 {
		t.Fatalf("POST savepoints: %s %v %v", resp.Status, err, trig)
	}
	var st map[string]map[string]any
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := json.Unmarshal(get(t, srv.URL+"/jobs/"+job.ID+"/savepoints/"+trig["request-id"], http.StatusOK), &st); err != nil {
			t.Fatal(err)
		}
		if id := st["status"]["id"]; id == "COMPLETED" {
			break
		} else if id != "IN_PROGRESS" {
			t.Fatalf("status %v", st)
		}
		if time.Now().After(deadline) {
			t.Fatal("the savepoint did not complete")
		}
		time.Sleep(10 * time.Millisecond)
	}
	loc, _ := st["operation"]["location"].(string)
	if !strings.HasPrefix(loc, dir) {
		t.Fatalf("completed without a location under %s: %v", dir, st)
	}
	<-done.done
	if st, _, _ := job.Status(); st != exec.Stopped || done.err != nil {
		t.Fatalf("after savepoint with cancel-job the job is %s (%v)", st, done.err)
	}
	get(t, srv.URL+"/jobs/"+job.ID+"/savepoints/"+strings.Repeat("0", 32), http.StatusNotFound)
}
