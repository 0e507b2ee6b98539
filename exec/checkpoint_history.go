package exec

import (
	"slices"
	"time"

	"github.com/strandsql/strand/checkpoint"
)

// HistorySize is how many checkpoints and savepoints a run remembers for
// its history, newest first; older ones are forgotten.
const HistorySize = 100

// Checkpoint statuses, Flink's names.
const (
	InProgress = "IN_PROGRESS"
	Completed  = "COMPLETED"
	// CheckpointFailed is a checkpoint or savepoint that failed (Failed is
	// the job's status).
	CheckpointFailed = "FAILED"
)

// CheckpointRecord is one checkpoint or savepoint of a run, as its history
// lists it.
type CheckpointRecord struct {
	ID        int64
	Savepoint bool
	Status    string // InProgress, Completed or CheckpointFailed
	Trigger   time.Time
	// Duration is from the trigger to completion or failure; 0 while in
	// progress.
	Duration time.Duration
	// Size is the bytes of state the checkpoint references, Incremental
	// the bytes it wrote itself: an incremental checkpoint references the
	// files of earlier ones. Both are 0 until it is complete.
	Size, Incremental int64
	// Path is a savepoint's directory.
	Path string
	// Failure is why it failed.
	Failure string
}

// CheckpointHistory returns the run's latest checkpoints and savepoints,
// newest first; nil for a job that does not checkpoint.
func (j *Job) CheckpointHistory() []CheckpointRecord {
	if j.coord == nil {
		return nil
	}
	c := j.coord
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.history)
	slices.Reverse(out)
	return out
}

// record adds checkpoint p, just triggered, to the history.
func (c *coordinator) record(p *pendingCheckpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.history) == HistorySize {
		c.history = slices.Delete(c.history, 0, 1)
	}
	c.history = append(c.history, CheckpointRecord{ID: p.id, Savepoint: p.sp != nil, Status: InProgress, Trigger: p.start})
}

// recorded updates checkpoint p's entry in the history with its outcome.
func (c *coordinator) recorded(p *pendingCheckpoint, md *checkpoint.Metadata, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.history) - 1; i >= 0; i-- {
		r := &c.history[i]
		if r.ID != p.id {
			continue
		}
		r.Duration = time.Since(p.start)
		if err != nil {
			r.Status, r.Failure = CheckpointFailed, err.Error()
			return
		}
		r.Status = Completed
		r.Size, r.Incremental = sizes(md)
		if p.sp != nil {
			r.Path = p.sp.final
		}
		return
	}
}

// sizes returns the bytes of state md references and the bytes its
// checkpoint wrote: a savepoint writes all of its state.
func sizes(md *checkpoint.Metadata) (total, written int64) {
	for _, op := range md.Operators {
		for _, s := range op.Subtasks {
			n := int64(len(s.Inline))
			total += n + s.Handle.Size()
			written += n + s.Handle.BytesUploaded
			if s.Data != nil {
				total += s.Data.Size
				written += s.Data.Size
			}
		}
	}
	return total, written
}
