package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/strandsql/strand/exec"
)

// ErrRemote is returned by Listen for an address other machines could
// reach when remote access is not allowed.
var ErrRemote = errors.New("the HTTP API has no authentication: it listens on loopback addresses only unless remote access is allowed (--http-allow-remote)")

// Listen listens on addr ("127.0.0.1:8081", "localhost:0", "[::1]:8081").
// An address that is not a loopback address, an empty host included, is
// refused with ErrRemote unless allowRemote.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	if !allowRemote && !loopback(host) {
		return nil, fmt.Errorf("--http %s: %w", addr, ErrRemote)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", addr, err)
	}
	return l, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server serves the HTTP API over a session's jobs. It is an http.Handler;
// Serve runs it on a listener.
type Server struct {
	jobs *Jobs
	mux  *http.ServeMux
	ops  operations
	http *http.Server
	// ctx bounds the savepoints and stops the server runs; Close
	// cancels it.
	ctx    context.Context
	cancel context.CancelFunc
}

// NewServer returns the API over jobs.
func NewServer(jobs *Jobs) *Server {
	s := &Server{jobs: jobs, mux: http.NewServeMux(), ops: operations{m: map[string]*operation{}}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{jobs})
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s.mux.HandleFunc("GET /jobs", s.list)
	s.mux.HandleFunc("GET /jobs/{id}", s.job)
	s.mux.HandleFunc("POST /jobs/{id}/savepoints", jsonOnly(s.savepoint))
	s.mux.HandleFunc("POST /jobs/{id}/stop", jsonOnly(s.stop))
	s.mux.HandleFunc("GET /jobs/{id}/savepoints/{request}", s.status)
	s.dashboard()
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no endpoint %s %s", r.Method, r.URL.Path))
	})
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Serve serves the API on l until Close.
func (s *Server) Serve(l net.Listener) {
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(l) }()
}

// Close stops serving. It first waits, up to grace, until every savepoint
// or stop asked for has ended and its outcome been fetched, so that a
// `strand stop` learns the path of the savepoint that ended the process.
func (s *Server) Close(grace time.Duration) error {
	s.ops.settled(grace)
	s.cancel()
	if s.http == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.http.Shutdown(ctx)
}

// JobOverview is a job as GET /jobs lists it. Times are Unix
// milliseconds, as in Flink.
type JobOverview struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Name   string `json:"name"`
	Start  int64  `json:"start-time"`
	// End is -1 while the job runs.
	End            int64       `json:"end-time"`
	RowsRead       int64       `json:"rows-read"`
	RowsWritten    int64       `json:"rows-written"`
	LastCheckpoint *Checkpoint `json:"last-checkpoint"`
}

// Checkpoint is a job's latest completed checkpoint.
type Checkpoint struct {
	ID   int64 `json:"id"`
	Time int64 `json:"timestamp"`
}

// JobDetail is a job as GET /jobs/<id> shows it.
type JobDetail struct {
	JobOverview
	Statement string `json:"statement"`
	// Error is why the job failed.
	Error    string     `json:"error,omitempty"`
	Metrics  JobMetrics `json:"metrics"`
	Vertices []Vertex   `json:"vertices"`
}

// Vertex is one vertex of a job's graph, with its counters, as Flink's job
// details list them. Watermark is in epoch milliseconds, absent before the
// vertex has one. InputFill and OutputFill are the fullest of its
// subtasks' input and output channels, from 0 to 1 (exec.SubtaskMetrics).
type Vertex struct {
	ID           int     `json:"id"`
	Name         string  `json:"name"`
	Parallelism  int     `json:"parallelism"`
	RowsIn       int64   `json:"rows-in"`
	RowsOut      int64   `json:"rows-out"`
	Watermark    *int64  `json:"watermark,omitempty"`
	InputFill    float64 `json:"input-fill"`
	OutputFill   float64 `json:"output-fill"`
	Backpressure string  `json:"backpressure-level"`
}

// JobMetrics are a job's counters.
type JobMetrics struct {
	RowsRead             int64 `json:"rows-read"`
	RowsWritten          int64 `json:"rows-written"`
	LateRows             int64 `json:"late-rows"`
	BadRows              int64 `json:"bad-rows"`
	CheckpointsCompleted int64 `json:"checkpoints-completed"`
	CheckpointsFailed    int64 `json:"checkpoints-failed"`
	Spills               int64 `json:"spills"`
}

func overview(j *Job) JobOverview {
	status, ended, _ := j.Status()
	o := JobOverview{ID: j.ID, Status: string(status), Name: j.Name, Start: j.Started.UnixMilli(), End: -1,
		RowsRead: j.Metrics.RowsRead.Load(), RowsWritten: j.Metrics.RowsWritten.Load()}
	if !ended.IsZero() {
		o.End = ended.UnixMilli()
	}
	if c := j.Checkpoints(); c.LastID != 0 {
		o.LastCheckpoint = &Checkpoint{ID: c.LastID, Time: c.Last.UnixMilli()}
	}
	return o
}

func (s *Server) list(w http.ResponseWriter, _ *http.Request) {
	jobs := s.jobs.List()
	out := struct {
		Jobs []JobOverview `json:"jobs"`
	}{Jobs: make([]JobOverview, len(jobs))}
	for i, j := range jobs {
		out.Jobs[i] = overview(j)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) job(w http.ResponseWriter, r *http.Request) {
	j, ok := s.find(w, r)
	if !ok {
		return
	}
	_, _, err := j.Status()
	m, c := j.Metrics, j.Checkpoints()
	d := JobDetail{JobOverview: overview(j), Statement: mask(j.Statement), Metrics: JobMetrics{
		RowsRead: m.RowsRead.Load(), RowsWritten: m.RowsWritten.Load(), LateRows: m.LateRows.Load(), BadRows: m.BadRows.Load(),
		CheckpointsCompleted: c.Completed, CheckpointsFailed: c.Failed, Spills: m.Spills.Load()}}
	if err != nil {
		d.Error = err.Error()
	}
	d.Vertices = []Vertex{}
	for _, v := range j.Vertices() {
		d.Vertices = append(d.Vertices, vertexOf(v))
	}
	writeJSON(w, http.StatusOK, d)
}

// find resolves the request's job id, answering the request itself when
// it names no job.
func (s *Server) find(w http.ResponseWriter, r *http.Request) (*Job, bool) {
	id := r.PathValue("id")
	j, err := s.jobs.Find(id)
	switch {
	case errors.Is(err, ErrNoJob):
		writeError(w, http.StatusNotFound, fmt.Errorf("no job %s", id))
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, err)
		return nil, false
	}
	return j, true
}

// running resolves the request's job and checks that it runs.
func (s *Server) running(w http.ResponseWriter, r *http.Request) (*Job, bool) {
	j, ok := s.find(w, r)
	if !ok {
		return nil, false
	}
	if status, _, _ := j.Status(); status != exec.Running {
		writeError(w, http.StatusConflict, fmt.Errorf("job %s is %s, not running", j.ID, status))
		return nil, false
	}
	return j, true
}

func (s *Server) savepoint(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Dir    string `json:"target-directory"`
		Cancel bool   `json:"cancel-job"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	j, ok := s.running(w, r)
	if !ok {
		return
	}
	id := s.ops.start(j.ID, func() (string, error) {
		if req.Cancel {
			return j.Stop(s.ctx, req.Dir, false)
		}
		return j.Savepoint(s.ctx, req.Dir)
	})
	writeJSON(w, http.StatusAccepted, map[string]string{"request-id": id})
}

func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Dir   string `json:"targetDirectory"`
		Drain bool   `json:"drain"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	j, ok := s.running(w, r)
	if !ok {
		return
	}
	id := s.ops.start(j.ID, func() (string, error) { return j.Stop(s.ctx, req.Dir, req.Drain) })
	writeJSON(w, http.StatusAccepted, map[string]string{"request-id": id})
}

// OperationStatus is the state of a savepoint or stop request, as GET
// /jobs/<id>/savepoints/<request-id> answers it.
type OperationStatus struct {
	Status struct {
		ID string `json:"id"` // IN_PROGRESS or COMPLETED
	} `json:"status"`
	// Operation is the outcome, once COMPLETED.
	Operation *Outcome `json:"operation,omitempty"`
}

// Outcome is a completed request's savepoint, or why there is none.
type Outcome struct {
	Location string   `json:"location,omitempty"`
	Failure  *Failure `json:"failure-cause,omitempty"`
}

// Failure is why a request has no savepoint.
type Failure struct {
	Message string `json:"message"`
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	j, ok := s.find(w, r)
	if !ok {
		return
	}
	req := r.PathValue("request")
	op := s.ops.get(req)
	if op == nil || op.job != j.ID {
		writeError(w, http.StatusNotFound, fmt.Errorf("no savepoint request %s of job %s", req, j.ID))
		return
	}
	writeJSON(w, http.StatusOK, op.status())
}

// readJSON decodes the request's body into v, which may be empty;
// unknown fields are refused, so that a misspelt directory key is not
// silently the default directory.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("request body: %w", err))
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string][]string{"errors": {err.Error()}})
}
