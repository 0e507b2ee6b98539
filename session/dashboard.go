package session

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// The dashboard's pages: hand-written HTML, JavaScript and CSS, served
// from the binary, so that it works without a network or a build step.
//
//go:embed dashboard
var assets embed.FS

// dashboard routes the web dashboard and the JSON endpoints behind it
// that GET /jobs and GET /jobs/<id> do not already answer.
func (s *Server) dashboard() {
	static, _ := fs.Sub(assets, "dashboard")
	files := http.FileServerFS(static)
	s.mux.Handle("GET /{$}", secured(files))
	s.mux.Handle("GET /ui/", secured(http.StripPrefix("/ui/", files)))
	s.mux.HandleFunc("GET /jobs/{id}/plan", s.plan)
	s.mux.HandleFunc("GET /jobs/{id}/vertices/{vid}", s.vertex)
	s.mux.HandleFunc("GET /jobs/{id}/checkpoints", s.checkpoints)
}

// secured serves the pages with a policy that lets them load only their
// own scripts and styles and talk only to this server.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// jsonOnly refuses a POST whose body is not declared JSON. A page of
// another site can make the browser POST a form or text/plain to a
// loopback address without asking; to send application/json it must ask
// first (a CORS preflight), which this server never grants. So a web page
// the user visits cannot stop their job.
func jsonOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); r.ContentLength != 0 && !strings.HasPrefix(ct, "application/json") {
			writeError(w, http.StatusUnsupportedMediaType, errNotJSON)
			return
		}
		h(w, r)
	}
}

var errNotJSON = errors.New("a POST's body must be application/json")

// secret matches a connector option whose value is a secret, as Flink's
// GlobalConfiguration.isSensitive decides: by a word in its key.
var secret = regexp.MustCompile(`(?i)('[^']*(?:password|secret|token|credential|apikey|api-key|auth-params|service-key|basic-auth|jaas\.config|http-headers|account\.key)[^']*'\s*=\s*)'(?:[^']|'')*'`)

// mask hides the values of secret options in SQL text shown to whoever
// can reach the API.
func mask(sql string) string { return secret.ReplaceAllString(sql, "$1'******'") }

// run is the job's current (or last) run, nil before its first.
func (j *Job) run() *exec.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.mu.cur
}

// Plan is a job's physical plan as GET /jobs/<id>/plan answers it, in
// the shape of Flink's: its vertices ("nodes") with the edges into each,
// and the statement and the EXPLAIN text.
type Plan struct {
	Plan struct {
		JobID string `json:"jid"`
		Name  string `json:"name"`
		Type  string `json:"type"`
		Nodes []Node `json:"nodes"`
	} `json:"plan"`
	Statement string `json:"statement"`
	Explain   string `json:"explain"`
}

// Node is one vertex of a plan: its chained operators, first to last.
type Node struct {
	ID          int        `json:"id"`
	Description string     `json:"description"`
	Parallelism int        `json:"parallelism"`
	Operators   []Operator `json:"operators"`
	Inputs      []Input    `json:"inputs"`
}

// Operator is one operator of a vertex's chain; UID names its state in
// checkpoints, empty for an operator without state.
type Operator struct {
	Name string `json:"name"`
	UID  string `json:"uid,omitempty"`
}

// Input is an edge into a vertex. Strategy is Flink's ship_strategy
// name (FORWARD, HASH, REBALANCE, BROADCAST, GLOBAL); Keys are the hashed
// columns.
type Input struct {
	Num      int      `json:"num"`
	ID       int      `json:"id"`
	Strategy string   `json:"ship_strategy"`
	Keys     []string `json:"keys,omitempty"`
}

func (s *Server) plan(w http.ResponseWriter, r *http.Request) {
	j, ok := s.find(w, r)
	if !ok {
		return
	}
	var p Plan
	p.Plan.JobID, p.Plan.Name, p.Plan.Type, p.Plan.Nodes = j.ID, j.Name, "STREAMING", []Node{}
	p.Statement = mask(j.Statement)
	if cur := j.run(); cur != nil {
		p.Explain = mask(cur.Graph.String())
		for _, v := range cur.Graph.Vertices {
			p.Plan.Nodes = append(p.Plan.Nodes, node(v))
		}
	}
	writeJSON(w, http.StatusOK, p)
}

func node(v *exec.Vertex) Node {
	n := Node{ID: v.ID, Description: v.Name, Parallelism: v.Parallelism, Operators: []Operator{}, Inputs: []Input{}}
	if src := v.Source; src != nil {
		n.Operators = append(n.Operators, Operator{Name: "source: " + src.Table, UID: src.UID})
	}
	for _, op := range v.Ops {
		n.Operators = append(n.Operators, Operator{Name: op.Name, UID: op.UID})
	}
	if v.Sink != nil {
		n.Operators = append(n.Operators, Operator{Name: "sink: " + v.SinkName, UID: v.SinkUID})
	}
	for i, e := range v.Inputs {
		in := Input{Num: i, ID: e.From.ID, Strategy: strings.ToUpper(e.Kind.String())}
		out := output(e.From)
		for _, k := range e.Keys {
			name := "$" + strconv.Itoa(k)
			if k < len(out) {
				name = out[k].Name
			}
			in.Keys = append(in.Keys, name)
		}
		n.Inputs = append(n.Inputs, in)
	}
	return n
}

// output is the schema of the batches vertex v emits.
func output(v *exec.Vertex) types.Schema {
	if len(v.Ops) > 0 {
		return v.Ops[len(v.Ops)-1].Out
	}
	if v.Source != nil {
		return v.Source.Schema
	}
	return nil
}

// VertexDetail is one vertex with its subtasks, as GET
// /jobs/<id>/vertices/<vid> answers it, in the shape of Flink's. Now is the
// server's clock (epoch ms), for a watermark's lag.
type VertexDetail struct {
	Vertex
	Now      int64     `json:"now"`
	Subtasks []Subtask `json:"subtasks"`
}

// Subtask is one subtask's counters. Fills are from 0 to 1; Backpressure
// is Flink's level for the output fill: ok (<= 0.1), low (<= 0.5) or high.
type Subtask struct {
	Subtask      int   `json:"subtask"`
	RowsIn       int64 `json:"rows-in"`
	RowsOut      int64 `json:"rows-out"`
	LateRows     int64 `json:"late-rows"`
	BadRows      int64 `json:"bad-rows"`
	Spills       int64 `json:"spills"`
	StateMemory  int64 `json:"state-memory-bytes"`
	StateSpilled int64 `json:"state-spilled-bytes"`
	// StateMemtable and StateKeys are a keyed operator's (a join's, a
	// deduplication's): its store's memtables and its entries.
	StateMemtable int64   `json:"state-memtable-bytes"`
	StateKeys     int64   `json:"state-keys"`
	InputFill     float64 `json:"input-fill"`
	OutputFill    float64 `json:"output-fill"`
	Backpressure  string  `json:"backpressure-level"`
	Watermark     *int64  `json:"watermark,omitempty"`
}

// vertexOf is a vertex's summary, as GET /jobs/<id> lists it: its rows,
// watermark, and the highest fill of its subtasks' input and output
// channels (how busy and how backpressured it is).
func vertexOf(v *exec.VertexMetrics) Vertex {
	x := Vertex{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, RowsIn: v.RowsIn.Load(), RowsOut: v.RowsOut.Load(),
		Watermark: watermark(v.Watermark())}
	for i := range v.Subtasks {
		x.InputFill = max(x.InputFill, v.Subtasks[i].InputFill())
		x.OutputFill = max(x.OutputFill, v.Subtasks[i].OutputFill())
	}
	x.Backpressure = level(x.OutputFill)
	return x
}

// watermark is wm for JSON: absent before the first and after the last.
func watermark(wm int64) *int64 {
	if wm > types.MinWatermark && wm < types.MaxWatermark {
		return &wm
	}
	return nil
}

func level(fill float64) string {
	switch {
	case fill <= 0.1:
		return "ok"
	case fill <= 0.5:
		return "low"
	}
	return "high"
}

func (s *Server) vertex(w http.ResponseWriter, r *http.Request) {
	j, ok := s.find(w, r)
	if !ok {
		return
	}
	vid := r.PathValue("vid")
	for _, v := range j.Vertices() {
		if strconv.Itoa(v.ID) != vid {
			continue
		}
		d := VertexDetail{Vertex: vertexOf(v), Now: time.Now().UnixMilli(), Subtasks: make([]Subtask, len(v.Subtasks))}
		for i := range v.Subtasks {
			m := &v.Subtasks[i]
			d.Subtasks[i] = Subtask{Subtask: i, RowsIn: m.RowsIn.Load(), RowsOut: m.RowsOut.Load(), LateRows: m.LateRows.Load(),
				BadRows: m.BadRows.Load(), Spills: m.Spills.Load(), StateMemory: m.StateMemory(), StateSpilled: m.StateSpilled.Load(),
				StateMemtable: m.StateMemtable.Load(), StateKeys: m.StateKeys.Load(),
				InputFill: m.InputFill(), OutputFill: m.OutputFill(), Backpressure: level(m.OutputFill()), Watermark: watermark(m.Watermark())}
		}
		writeJSON(w, http.StatusOK, d)
		return
	}
	writeError(w, http.StatusNotFound, fmt.Errorf("job %s has no vertex %s", j.ID, vid))
}

// Checkpoints are a job's checkpoint counts and its current run's latest
// checkpoints and savepoints, newest first, as GET /jobs/<id>/checkpoints
// answers them in the shape of Flink's. The counts are of checkpoints
// across the job's restarts; the history is the current run's.
type Checkpoints struct {
	Counts struct {
		Total      int64 `json:"total"`
		InProgress int64 `json:"in_progress"`
		Completed  int64 `json:"completed"`
		Failed     int64 `json:"failed"`
	} `json:"counts"`
	Latest struct {
		Completed *CheckpointEntry `json:"completed"`
		Savepoint *CheckpointEntry `json:"savepoint"`
		Failed    *CheckpointEntry `json:"failed"`
	} `json:"latest"`
	History []CheckpointEntry `json:"history"`
}

// CheckpointEntry is one checkpoint or savepoint. Times are epoch ms,
// durations ms, sizes bytes: StateSize is the state the checkpoint
// references, CheckpointedSize what it wrote itself.
type CheckpointEntry struct {
	ID               int64  `json:"id"`
	Status           string `json:"status"`
	Savepoint        bool   `json:"is_savepoint"`
	Trigger          int64  `json:"trigger_timestamp"`
	Duration         int64  `json:"end_to_end_duration"`
	StateSize        int64  `json:"state_size"`
	CheckpointedSize int64  `json:"checkpointed_size"`
	Path             string `json:"external_path,omitempty"`
	Failure          string `json:"failure_message,omitempty"`
}

func (s *Server) checkpoints(w http.ResponseWriter, r *http.Request) {
	j, ok := s.find(w, r)
	if !ok {
		return
	}
	var out Checkpoints
	st := j.Checkpoints()
	out.Counts.Completed, out.Counts.Failed = st.Completed, st.Failed
	var hist []exec.CheckpointRecord
	if cur := j.run(); cur != nil {
		hist = cur.CheckpointHistory()
	}
	// Latest points into History, which therefore never grows past its
	// capacity.
	out.History = make([]CheckpointEntry, 0, len(hist))
	for _, c := range hist {
		e := CheckpointEntry{ID: c.ID, Status: c.Status, Savepoint: c.Savepoint, Trigger: c.Trigger.UnixMilli(),
			Duration: c.Duration.Milliseconds(), StateSize: c.Size, CheckpointedSize: c.Incremental, Path: c.Path, Failure: c.Failure}
		out.History = append(out.History, e)
		latest := &out.Latest.Failed
		switch {
		case c.Status == exec.InProgress:
			if !c.Savepoint {
				out.Counts.InProgress++
			}
			continue
		case c.Status == exec.Completed && c.Savepoint:
			latest = &out.Latest.Savepoint
		case c.Status == exec.Completed:
			latest = &out.Latest.Completed
		}
		if *latest == nil {
			*latest = &out.History[len(out.History)-1]
		}
	}
	out.Counts.Total = out.Counts.Completed + out.Counts.Failed + out.Counts.InProgress
	writeJSON(w, http.StatusOK, out)
}
