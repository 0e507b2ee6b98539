package session

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
)

func getJSON(t *testing.T, url string, want int, v any) {
	t.Helper()
	if err := json.Unmarshal(get(t, url, want), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// ended cancels the session's job and waits until it has ended, so that
// its metrics no longer move.
func ended(t *testing.T, job *Job) {
	t.Helper()
	if err := job.Cancel(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, _, _ := job.Status(); st != exec.Running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the job did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDashboardPlan checks GET /jobs/<id>/plan against the job's graph:
// its vertices, chains with uids, edges with their hashed columns, and
// the statement and EXPLAIN text.
func TestDashboardPlan(t *testing.T) {
	s, job, _ := startJob(t, "100ms")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	var p Plan
	getJSON(t, srv.URL+"/jobs/"+job.ID+"/plan", http.StatusOK, &p)
	g := job.run().Graph
	if p.Plan.JobID != job.ID || p.Plan.Name != "h_1" || p.Explain != g.String() || p.Statement != job.Statement {
		t.Fatalf("plan %+v", p)
	}
	if len(p.Plan.Nodes) != 2 {
		t.Fatalf("nodes %+v", p.Plan.Nodes)
	}
	src, agg := p.Plan.Nodes[0], p.Plan.Nodes[1]
	if src.ID != 1 || src.Parallelism != 2 || len(src.Inputs) != 0 || src.Operators[0].Name != "source: g" || src.Operators[0].UID != "source-g" {
		t.Errorf("source node %+v", src)
	}
	if agg.ID != 2 || agg.Parallelism != 2 || len(agg.Inputs) != 1 || agg.Inputs[0].ID != 1 || agg.Inputs[0].Strategy != "HASH" ||
		strings.Join(agg.Inputs[0].Keys, ",") != "k" {
		t.Errorf("aggregate node %+v", agg)
	}
	last := agg.Operators[len(agg.Operators)-1]
	if last.Name != "sink: o" || last.UID == "" || !strings.HasPrefix(agg.Operators[0].UID, "window-") {
		t.Errorf("aggregate chain %+v", agg.Operators)
	}
}

// TestDashboardVertex checks GET /jobs/<id>/vertices/<vid> of an ended
// job against its metrics: each subtask's counters and watermark, and the
// window aggregate's state in memory; and the error for a vertex the job
// does not have.
func TestDashboardVertex(t *testing.T) {
	s, job, _ := startJob(t, "100ms")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	// The source has read rows; on a busy machine the window may not have
	// received any yet, so wait until it holds some and has a watermark.
	var live VertexDetail
	for deadline := time.Now().Add(30 * time.Second); ; {
		live = VertexDetail{}
		getJSON(t, srv.URL+"/jobs/"+job.ID+"/vertices/2", http.StatusOK, &live)
		if live.Name != "WindowAggregate" || len(live.Subtasks) != 2 || live.Now < job.Started.UnixMilli() {
			t.Fatalf("vertex 2 while running: %+v", live)
		}
		var memory int64
		for _, sub := range live.Subtasks {
			memory += sub.StateMemory
		}
		if memory > 0 && live.Watermark != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window aggregate holds no state in memory or has no watermark while running: %+v", live)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A cancelled job may leave batches in its channels, so the fill, and
	// the backpressure level shown, need not be zero once it has ended.
	ended(t, job)
	for _, v := range job.Vertices() {
		var d VertexDetail
		getJSON(t, srv.URL+"/jobs/"+job.ID[:6]+"/vertices/"+string(rune('0'+v.ID)), http.StatusOK, &d)
		if d.ID != v.ID || d.Parallelism != 2 || d.RowsIn != v.RowsIn.Load() || d.RowsOut != v.RowsOut.Load() || d.RowsIn == 0 {
			t.Errorf("vertex %d: %+v", v.ID, d.Vertex)
		}
		if d.Watermark == nil {
			t.Errorf("vertex %d has no watermark", v.ID)
		}
		for i, sub := range d.Subtasks {
			m := &v.Subtasks[i]
			if sub.Subtask != i || sub.RowsIn != m.RowsIn.Load() || sub.RowsOut != m.RowsOut.Load() || sub.LateRows != m.LateRows.Load() ||
				sub.BadRows != m.BadRows.Load() || sub.Spills != m.Spills.Load() || sub.StateSpilled != m.StateSpilled.Load() ||
				(sub.Watermark == nil) != (watermark(m.Watermark()) == nil) || sub.Watermark != nil && *sub.Watermark != m.Watermark() ||
				sub.OutputFill != m.OutputFill() || sub.Backpressure != level(sub.OutputFill) {
				t.Errorf("vertex %d subtask %d: %+v", v.ID, i, sub)
			}
		}
	}
	var e struct{ Errors []string }
	getJSON(t, srv.URL+"/jobs/"+job.ID+"/vertices/9", http.StatusNotFound, &e)
	if len(e.Errors) != 1 || !strings.Contains(e.Errors[0], "no vertex 9") {
		t.Errorf("unknown vertex: %+v", e)
	}
}

// TestDashboardCheckpoints checks GET /jobs/<id>/checkpoints after
// periodic checkpoints and a savepoint: the counts are the job's, the
// history is newest first with the savepoint's path, and the latest
// entries point into it.
func TestDashboardCheckpoints(t *testing.T) {
	s, job, _ := startJob(t, "100ms")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	for job.Checkpoints().Completed < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	path, err := job.Savepoint(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ended(t, job)
	var c Checkpoints
	getJSON(t, srv.URL+"/jobs/"+job.ID+"/checkpoints", http.StatusOK, &c)
	st := job.Checkpoints()
	if c.Counts.Completed != st.Completed || c.Counts.Failed != st.Failed || c.Counts.Total != st.Completed+st.Failed+c.Counts.InProgress {
		t.Errorf("counts %+v, job %+v", c.Counts, st)
	}
	if c.Latest.Completed == nil || c.Latest.Completed.ID != st.LastID || c.Latest.Savepoint == nil || c.Latest.Savepoint.Path != path {
		t.Fatalf("latest %+v %+v, job's last %d, savepoint %s", c.Latest.Completed, c.Latest.Savepoint, st.LastID, path)
	}
	var savepoints int
	for i, e := range c.History {
		if i > 0 && e.ID >= c.History[i-1].ID {
			t.Errorf("history not newest first: %+v", c.History)
		}
		if e.Status == exec.Completed && (e.StateSize == 0 || e.CheckpointedSize > e.StateSize || e.Trigger < job.Started.UnixMilli()) {
			t.Errorf("entry %+v", e)
		}
		if e.Savepoint {
			savepoints++
		}
	}
	if savepoints != 1 || int64(len(c.History)) < st.Completed {
		t.Errorf("%d savepoints, %d entries, %d completed checkpoints", savepoints, len(c.History), st.Completed)
	}
}

// TestDashboardPages checks that the pages are served with a policy that
// keeps them to their own scripts, and that a vertex list of GET
// /jobs/<id> carries the channel fills the graph is coloured by.
func TestDashboardPages(t *testing.T) {
	s, job, _ := startJob(t, "")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	for path, want := range map[string]string{"/": "text/html", "/ui/app.js": "text/javascript", "/ui/style.css": "text/css"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("GET %s: %s %v", path, resp.Status, resp.Header)
		}
	}
	get(t, srv.URL+"/ui/nothing.js", http.StatusNotFound)
	var d struct {
		Vertices []map[string]any `json:"vertices"`
	}
	getJSON(t, srv.URL+"/jobs/"+job.ID, http.StatusOK, &d)
	for _, v := range d.Vertices {
		for _, k := range []string{"input-fill", "output-fill", "backpressure-level"} {
			if _, ok := v[k]; !ok {
				t.Errorf("vertex %v lacks %s", v, k)
			}
		}
	}
}

// TestPostNeedsJSON checks that a POST that is not JSON, as a form of
// another site would send, is refused and leaves the job running.
func TestPostNeedsJSON(t *testing.T) {
	s, job, _ := startJob(t, "100ms")
	srv := httptest.NewServer(NewServer(&s.Jobs))
	defer srv.Close()
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		resp, err := http.Post(srv.URL+"/jobs/"+job.ID+"/stop", ct, strings.NewReader(`{"drain": false}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("stop as %s: %s", ct, resp.Status)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if st, _, _ := job.Status(); st != exec.Running {
		t.Fatalf("a refused stop left the job %s", st)
	}
}

// TestMask checks that the values of secret options are hidden and
// others kept.
func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT * FROM t /*+ OPTIONS('password' = 'it''s', 'path' = 'x') */`: `SELECT * FROM t /*+ OPTIONS('password' = '******', 'path' = 'x') */`,
		`WITH ('properties.sasl.jaas.config'='a b', 'connector' = 'kafka')`:  `WITH ('properties.sasl.jaas.config'='******', 'connector' = 'kafka')`,
		`OPTIONS('Secret-Key'  =  'k1', 'fields.token.length' = '5')`:        `OPTIONS('Secret-Key'  =  '******', 'fields.token.length' = '******')`,
		`SELECT 'password' FROM t WHERE s = 'x'`:                             `SELECT 'password' FROM t WHERE s = 'x'`,
	} {
		if got := mask(in); got != want {
			t.Errorf("mask(%s)\n = %s\nwant %s", in, got, want)
		}
	}
}

// BenchmarkDashboardPoll measures one poll of each dashboard page against
// a running job: the process's CPU time per poll (cpu-us/op, from
// getrusage, the job's own work subtracted as measured over as long
// without polls) is what an open page costs per second, client included,
// for docs/performance.md.
func BenchmarkDashboardPoll(b *testing.B) {
	for _, page := range []struct{ name, paths string }{
		{"graph", "/jobs/ID"},
		{"vertex", "/jobs/ID /jobs/ID/vertices/2"},
		{"checkpoints", "/jobs/ID /jobs/ID/checkpoints"},
	} {
		b.Run(page.name, func(b *testing.B) {
			s, job, _ := startJob(b, "100ms")
			srv := httptest.NewServer(NewServer(&s.Jobs))
			defer srv.Close()
			paths := strings.Fields(strings.ReplaceAll(page.paths, "ID", job.ID))
			idle := cpuOver(func() { time.Sleep(time.Second) })
			start, cpu0 := time.Now(), cpu()
			for b.Loop() {
				for _, p := range paths {
					resp, err := http.Get(srv.URL + p)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			used := cpu() - cpu0 - idle*time.Since(start).Seconds()
			b.ReportMetric(used*1e6/float64(b.N), "cpu-us/op")
			b.ReportMetric(idle, "job-cpu-s/s")
		})
	}
}

// cpu is the process's CPU time so far, in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// cpuOver returns the CPU seconds per second the process spends while fn
// runs.
func cpuOver(fn func()) float64 {
	start, c := time.Now(), cpu()
	fn()
	return (cpu() - c) / time.Since(start).Seconds()
}
