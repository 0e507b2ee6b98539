package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/types"
)

// Sink is an output table.
type Sink interface {
	// Open returns the writer of subtask i of n. The writer's batches have
	// schema s (the query's output, already cast to the table's types).
	Open(s types.Schema, subtask, n int) (SinkWriter, error)
}

// SinkWriter writes one subtask's output.
type SinkWriter interface {
	// Write appends a batch. The batch is borrowed: it is valid only until
	// Write returns.
	Write(b arrow.RecordBatch) error
	// Close finishes the output and makes it visible (a filesystem sink
	// renames its hidden in-progress file into place). It is called once,
	// after the last Write, only when the job succeeds. When it fails, the
	// run fails: Abort follows, on this writer and on every writer of the
	// run not yet closed.
	Close() error
	// Abort discards what was written and not made visible. It is called
	// instead of Close when the job fails, or after a failed Close, and
	// is idempotent.
	Abort() error
}

// Watermarker is a SinkWriter that is told its input's watermark: a
// partitioned filesystem sink commits a partition once the watermark has
// passed its time.
type Watermarker interface {
	Watermark(wm int64) error
}

// EndAware is a SinkWriter told when its subtask's input has ended
// (after its last Write, before Close, which waits for every task): a
// filesystem writer rolls its last file over then and waits for its
// files' syncs, so that the syncs overlap the other tasks' work and one
// that failed fails the job before Close makes any output visible. An
// error fails the subtask. Rows may still follow: after a
// stop-with-savepoint, none; the writer takes them as it would after a
// rollover.
type EndAware interface {
	InputEnded() error
}

// Holder is a Sink that holds something for the whole run: the filesystem
// sink locks its directory, so that no other run writes or cleans it
// meanwhile.
type Holder interface {
	Sink
	// Hold is called before the run writes anything; release after the
	// run ends.
	Hold() (release func(), err error)
}
