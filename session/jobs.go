package session

import (
	"context"
	"errors"
	"fmt"
	"github.com/strandsql/strand/planner"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
)

// KeySavepointDir is Flink's key for where savepoints go when a request
// names no directory; strand's default is <state-dir>/savepoints.
const KeySavepointDir = "state.savepoints.dir"

// KeySavepointPath is Flink's key for the savepoint a job starts from.
const KeySavepointPath = "execution.savepoint.path"

// ErrNoJob is returned for a job id that names no job of the session.
var ErrNoJob = errors.New("no such job")

// Jobs is the registry of a session's jobs, running and ended, for SHOW
// JOBS, STOP JOB and the HTTP API. Its methods may be called from any
// goroutine.
type Jobs struct {
	mu    sync.Mutex
	list  []*Job
	watch func(*Job)
}

// Job is a session's job across its restarts: each restart from a
// checkpoint is a new exec.Job, and Job follows the current one.
type Job struct {
	ID, Name string
	// Statement is the SQL text the job runs.
	Statement string
	Started   time.Time
	Metrics   *exec.Metrics
	// SavepointDir is where a savepoint goes when a request names none.
	SavepointDir string

	jobs *Jobs
	mu   struct {
		sync.Mutex
		cur *exec.Job
		// past are the checkpoints of the runs before cur.
		past   exec.CheckpointStats
		status exec.Status
		ended  time.Time
		err    error
		// canceled is a Cancel that came while no run was current (the
		// job starting, restoring or restarting): the next run is
		// canceled as it starts.
		canceled bool
	}
}

func (js *Jobs) add(j *Job) {
	js.mu.Lock()
	j.mu.status = exec.Running
	j.jobs = js
	js.list = append(js.list, j)
	watch := js.watch
	js.mu.Unlock()
	if watch != nil {
		watch(j)
	}
}

// Watch makes fn be called when a job starts and when it ends (its
// Status says which), on the goroutine that runs the job, as the registry
// of jobs served over HTTP needs.
func (js *Jobs) Watch(fn func(*Job)) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.watch = fn
}

// List returns every job of the session, oldest first.
func (js *Jobs) List() []*Job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return slices.Clone(js.list)
}

// Find returns the job whose id is id or starts with it (at least four
// characters), as Flink's CLI takes job ids.
func (js *Jobs) Find(id string) (*Job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	var found *Job
	for _, j := range js.list {
		if j.ID == id {
			return j, nil
		}
		if len(id) >= 4 && len(id) < len(j.ID) && j.ID[:len(id)] == id {
			if found != nil {
				return nil, fmt.Errorf("%w: '%s' is the start of several job ids", ErrNoJob, id)
			}
			found = j
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%w: '%s'", ErrNoJob, id)
	}
	return found, nil
}

func (j *Job) attempt(cur *exec.Job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.mu.past = j.checkpoints()
	j.mu.cur = cur
	if j.mu.canceled {
		cur.Cancel()
	}
}

func (j *Job) end(err error) {
	j.mu.Lock()
	j.mu.err, j.mu.ended = err, time.Now()
	// The job's outcome is the session's, across restarts: a restart that
	// finds the job finished ends it without error after a failed run.
	switch {
	case err == nil && j.mu.cur != nil && j.mu.cur.Status() == exec.Stopped:
		j.mu.status = exec.Stopped
	case err == nil:
		j.mu.status = exec.Finished
	case errors.Is(err, exec.ErrCanceled):
		j.mu.status = exec.Canceled
	default:
		j.mu.status = exec.Failed
	}
	j.mu.Unlock()
	if j.jobs == nil {
		return
	}
	j.jobs.mu.Lock()
	watch := j.jobs.watch
	j.jobs.mu.Unlock()
	if watch != nil {
		watch(j)
	}
}

// Checkpoints returns the job's checkpoints across its restarts.
func (j *Job) Checkpoints() exec.CheckpointStats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.checkpoints()
}

func (j *Job) checkpoints() exec.CheckpointStats {
	s := j.mu.past
	if j.mu.cur == nil {
		return s
	}
	c := j.mu.cur.Checkpoints()
	s.Completed += c.Completed
	s.Failed += c.Failed
	if c.LastID != 0 {
		s.LastID, s.Last = c.LastID, c.Last
	}
	return s
}

// Status returns the job's status and, once it has ended, when and with
// what error.
func (j *Job) Status() (status exec.Status, ended time.Time, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.mu.status, j.mu.ended, j.mu.err
}

func (j *Job) current() (*exec.Job, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.mu.status != exec.Running || j.mu.cur == nil {
		return nil, errors.New("job " + j.ID + " is not running")
	}
	if j.mu.cur.Status() != exec.Running {
		// Between a failed run and its restart.
		return nil, errors.New("job " + j.ID + " is restarting after a failure; try again")
	}
	return j.mu.cur, nil
}

// Savepoint takes a savepoint of the running job into dir (the job's
// default directory if empty) and returns its path.
func (j *Job) Savepoint(ctx context.Context, dir string) (string, error) {
	cur, err := j.current()
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = j.SavepointDir
	}
	return cur.Savepoint(ctx, dir)
}

// Vertices returns the metrics of each vertex of the job's current (or
// last) run, nil before it started.
func (j *Job) Vertices() []*exec.VertexMetrics {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.mu.cur == nil {
		return nil
	}
	return j.mu.cur.Vertices()
}

// Cancel stops the running job without a savepoint: what it has not
// committed is discarded, and a later run resumes from its last
// checkpoint. A job that has not started its run yet (or is between a
// failed run and its restart) is canceled as that run starts: a REPL
// ending right after an INSERT must not wait for it forever.
func (j *Job) Cancel() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.mu.status != exec.Running {
		return errors.New("job " + j.ID + " is not running")
	}
	j.mu.canceled = true
	if j.mu.cur != nil {
		j.mu.cur.Cancel()
	}
	return nil
}

// Stop stops the running job with a savepoint into dir (the job's default
// directory if empty), draining first if drain, and returns the
// savepoint's path once the job has ended.
func (j *Job) Stop(ctx context.Context, dir string, drain bool) (string, error) {
	cur, err := j.current()
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = j.SavepointDir
	}
	return cur.Stop(ctx, dir, drain)
}

// showJobs prints SHOW JOBS: every job of the session.
func (s *Session) showJobs() error {
	var rows [][]string
	for _, j := range s.Jobs.List() {
		status, _, _ := j.Status()
		rows = append(rows, []string{j.ID, j.Name, string(status), j.Started.UTC().Format("2006-01-02 15:04:05"),
			strconv.FormatInt(j.Metrics.RowsRead.Load(), 10), strconv.FormatInt(j.Metrics.RowsWritten.Load(), 10)})
	}
	return s.table([]string{"job id", "job name", "status", "start time", "rows in", "rows out"}, rows)
}

// stopJob runs STOP JOB: with a savepoint (and drain) into the job's
// default savepoint directory, else a cancel.
func (s *Session) stopJob(ctx context.Context, st *parser.StopJob) error {
	j, err := s.Jobs.Find(st.ID.Value)
	if err != nil {
		return planner.Errorf(st.ID.Start, ErrNoJob, "%v", err)
	}
	if st.Drain && !st.Savepoint {
		return planner.Errorf(st.Start, planner.ErrUnsupported, "STOP JOB ... WITH DRAIN needs WITH SAVEPOINT: a drained job has nothing to resume from otherwise")
	}
	if !st.Savepoint {
		if err := j.Cancel(); err != nil {
			return planner.Errorf(st.ID.Start, ErrNoJob, "%v", err)
		}
		fmt.Fprintf(s.Out, "[INFO] Job %s canceled.\n", j.ID)
		return nil
	}
	path, err := j.Stop(ctx, "", st.Drain)
	if err != nil {
		return planner.Errorf(st.Start, planner.ErrUnsupported, "stopping job %s: %v", j.ID, err)
	}
	return s.table([]string{"savepoint path"}, [][]string{{path}})
}
