package exec

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Status is where a job is in its life.
type Status string

// Job statuses, Flink's names.
const (
	Running  Status = "RUNNING"
	Finished Status = "FINISHED"
	Failed   Status = "FAILED"
	Canceled Status = "CANCELED"
	// Stopped is a job that ended with a stop-with-savepoint.
	Stopped Status = "STOPPED"
)

// ErrNoCheckpoints is returned for a savepoint of a job that does not
// checkpoint: its operators keep no state store to snapshot.
var ErrNoCheckpoints = errors.New("savepoints need checkpointing: run the job with --checkpoint-interval (execution.checkpointing.interval)")

// ErrFinishing is returned for a savepoint asked of a job whose bounded
// input has ended: it takes its final checkpoint and ends on its own.
var ErrFinishing = errors.New("the job has consumed its input and is finishing")

// Job is a running job, as Start returns it. Its methods may be called
// from any goroutine.
type Job struct {
	Graph   *Graph
	Metrics *Metrics
	Started time.Time

	coord    *coordinator
	cancel   context.CancelCauseFunc
	vertices []*VertexMetrics
	done     chan struct{}

	mu struct {
		sync.Mutex
		err    error
		status Status
	}
}

func newJob(g *Graph, opts Options, coord *coordinator, cancel context.CancelCauseFunc) *Job {
	j := &Job{Graph: g, Metrics: opts.Metrics, Started: time.Now(), coord: coord, cancel: cancel, done: make(chan struct{})}
	j.mu.status = Running
	return j
}

func (j *Job) settle(err error) {
	j.mu.Lock()
	j.mu.err = err
	switch {
	case errors.Is(err, ErrCanceled):
		j.mu.status = Canceled
	case err != nil:
		j.mu.status = Failed
	case j.coord != nil && j.coord.stopped.Load():
		j.mu.status = Stopped
	default:
		j.mu.status = Finished
	}
	j.mu.Unlock()
	close(j.done)
}

// Wait blocks until the job has ended and returns its error: the first
// error of a task, wrapped with the task's name, or one wrapping
// ErrCanceled for a job canceled from outside. A job stopped with a
// savepoint returns nil.
func (j *Job) Wait() error {
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.mu.err
}

// Vertices returns the metrics of each vertex, in the graph's order.
func (j *Job) Vertices() []*VertexMetrics { return j.vertices }

// Done is closed when the job has ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Status returns the job's status.
func (j *Job) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.mu.status
}

// CheckpointStats are a run's checkpoints so far. Metrics holds the same
// counts only once the run has ended.
type CheckpointStats struct {
	Completed, Failed int64
	// LastID and Last are the id and time of the latest completed
	// checkpoint; zero before the first.
	LastID int64
	Last   time.Time
	// LastDuration is how long the latest completed checkpoint took, from
	// its trigger; LastSize the bytes of state it references and
	// LastWritten those it wrote itself (CheckpointRecord).
	LastDuration          time.Duration
	LastSize, LastWritten int64
}

// Checkpoints returns the run's checkpoints so far, live; zero for a job
// that does not checkpoint.
func (j *Job) Checkpoints() CheckpointStats {
	if j.coord == nil {
		return CheckpointStats{}
	}
	return j.coord.stats()
}

// Cancel stops the job without a savepoint; uncommitted output is
// discarded.
func (j *Job) Cancel() { j.cancel(ErrCanceled) }

// Savepoint takes a savepoint into a new directory under dir and returns
// its path; the job keeps running. The savepoint is aligned whatever the
// checkpointing mode. A failed savepoint leaves the job running and
// nothing in dir that looks complete.
func (j *Job) Savepoint(ctx context.Context, dir string) (string, error) {
	return j.savepoint(ctx, &savepointRequest{dir: dir})
}

// Stop takes a savepoint into a new directory under dir, then ends the
// job: every sink commits what came before the savepoint, and what is
// still open (windows that have not fired) stays in the savepoint. With
// drain, every watermark first advances to the end of time, so that every
// window fires and commits before the savepoint. If the savepoint fails,
// the job keeps running (after a drain it fails instead, and restarts from
// its last checkpoint). Stop returns once the job has ended.
func (j *Job) Stop(ctx context.Context, dir string, drain bool) (string, error) {
	path, err := j.savepoint(ctx, &savepointRequest{dir: dir, stop: true, drain: drain})
	if err != nil {
		return "", err
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return path, ctx.Err()
	}
	return path, j.Wait()
}

func (j *Job) savepoint(ctx context.Context, r *savepointRequest) (string, error) {
	if j.coord == nil {
		return "", ErrNoCheckpoints
	}
	if r.dir == "" {
		return "", errors.New("savepoint: no target directory")
	}
	return j.coord.request(ctx, r)
}
