package exec

import (
	"io"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/state"
)

// Checkpointing configures the checkpoints of a run. With it, a job takes
// barrier-aligned (or, with AtLeastOnce, unaligned) snapshots every
// Interval and a final one when a bounded input ends; sinks that implement
// PreCommitter and Committer commit exactly once.
type Checkpointing struct {
	// Interval between periodic checkpoints; 0 takes only the final
	// checkpoint of a bounded job.
	Interval time.Duration
	// MinPause is the least time between the end of one checkpoint
	// (complete or failed) and the start of the next periodic one, as
	// Flink's execution.checkpointing.min-pause: a tick of Interval that
	// comes sooner is delayed until the pause is over. With 0, the default
	// (Flink's too), every tick that finds no checkpoint in flight starts
	// one. Savepoints and the final checkpoint do not wait for it.
	MinPause time.Duration
	// AtLeastOnce turns barrier alignment off: after a restore some rows
	// may be written twice, none lost.
	AtLeastOnce bool
	// Storage receives the checkpoints.
	Storage *checkpoint.Storage
	// FS and WorkDir hold the operators' local state stores: scratch,
	// rebuilt from the checkpoint on restore.
	FS      vfs.FS
	WorkDir string
	// Job names the job (stable across runs).
	Job string
	// Retained is how many complete checkpoints are kept (default 2).
	Retained int
	// Timeout abandons a checkpoint not complete after it (default 10 min).
	Timeout time.Duration
	// Tolerable is how many failed checkpoints in a row the job survives.
	Tolerable int
	// Restore is the checkpoint or savepoint to resume from, or nil for a
	// fresh start.
	Restore *checkpoint.Metadata
	// SavepointDir is the directory of Restore when it is a savepoint
	// (checkpoint.LoadSavepoint): its state files are read from there.
	SavepointDir string
	// AllowNonRestored starts the job even when some of Restore's state
	// cannot be mapped to it (MatchState): that state is dropped, and
	// reported on Log. Without it such a start is refused.
	AllowNonRestored bool
	// Settle is the final checkpoint of the job's previous lineage, which
	// finished: before a fresh start its pending sink files are committed
	// (a crash may have come between the checkpoint and its commit) and
	// that lineage's hidden files removed. Settle does only that, for a
	// finished lineage whose run died before it ended.
	Settle *checkpoint.Metadata
	// Settled says that Settle's commit is known to be finished (its run
	// ended): its pending files are not committed again, only its
	// lineage's hidden files removed. Committing again is not harmless:
	// a kafka sink's transactional ids are used again by every fresh
	// start, so a fresh start that died leaves them under later epochs,
	// and a second commit of the finished run's transactions is then
	// refused as fenced (the job could never start again).
	Settled bool
	// Abandon names a lineage whose every sink file, visible or hidden, is
	// removed before the run: one discarded with --fresh, or one that
	// never completed a checkpoint.
	Abandon string
	// FirstID is the id of the first checkpoint this run takes.
	FirstID int64
	// Log receives a line per completed or failed checkpoint.
	Log io.Writer
}

// Version is strand's version, recorded in savepoints; the command sets
// it from its build.
var Version = "dev"

// Snapshotter is implemented by operators with state.
type Snapshotter interface {
	// Snapshot is the synchronous part of checkpoint id: every batch
	// before the barrier has been processed, none after it. The task
	// uploads the returned state snapshot (the asynchronous part) while
	// processing goes on.
	Snapshot(id int64) (OperatorSnapshot, error)
}

// OperatorSnapshot is one operator subtask's part of a checkpoint.
type OperatorSnapshot struct {
	UID, Fingerprint       string
	KeyGroupLo, KeyGroupHi int
	State                  *state.Snapshot // nil for no keyed state
}

// KeyGroups returns the inclusive key-group range a subtask owns: the
// key groups kg with Subtask(kg, maxPar, n) == subtask.
func KeyGroups(subtask, maxPar, n int) (lo, hi int) {
	lo = (subtask*maxPar + n - 1) / n
	hi = ((subtask+1)*maxPar+n-1)/n - 1
	return lo, hi
}
