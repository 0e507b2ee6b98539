package exec

import "github.com/strandsql/strand/checkpoint"

// PreCommitter is a SinkWriter that takes part in checkpoints, the first
// phase of a two-phase commit: at each barrier it finishes what it wrote
// since the previous one (flushed and synced, still invisible) and hands
// it over. After PreCommit the writer starts new files for later rows.
type PreCommitter interface {
	SinkWriter
	// PreCommit is called when barrier id reaches the writer, after every
	// row before the barrier was written. The pending files it returns
	// are recorded in checkpoint id and made visible when it completes.
	PreCommit(id int64) ([]checkpoint.PendingFile, error)
}

// Committer is a Sink whose pre-committed output is made visible by the
// checkpoint coordinator, the second phase of a two-phase commit.
type Committer interface {
	Sink
	// Commit makes pending files visible. It is idempotent: a file already
	// visible is skipped, so a commit interrupted by a crash can be
	// repeated on restore.
	Commit(pending []checkpoint.PendingFile) error
	// Recover prepares the sink's output for a run restored from
	// checkpoint id: it commits that checkpoint's pending files, then
	// removes what later, incomplete checkpoints left behind (hidden files,
	// and files made visible by checkpoints newer than id), so that the
	// replay after id writes each row exactly once. id 0 means a fresh
	// start: only hidden leftovers are removed.
	Recover(id int64, pending []checkpoint.PendingFile) error
	// Clean removes the hidden files that lineage left and, with
	// committed, the files it made visible as well: the output of a
	// lineage that is discarded.
	Clean(lineage string, committed bool) error
}
