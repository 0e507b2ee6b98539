package exec

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// Source is a replayable input divided into splits.
//
// The splits are fixed by the table definition (the files of a directory,
// the byte ranges of a large file, the partitions of a generator), never by
// the job's parallelism: lateness
// is decided per split, so the same splits at any parallelism give the same
// result. Subtask i of P reads splits i, i+P, i+2P, ...
type Source interface {
	// Schema is the schema of the batches the readers return: the table's
	// physical and metadata columns, in declaration order.
	Schema() types.Schema
	// Splits lists the splits in a stable order.
	Splits() ([]Split, error)
	// Open returns a reader positioned at off within split (the zero Offset
	// is the beginning). The caller closes it.
	Open(split Split, off Offset, opts ReadOptions) (SplitReader, error)
	// Bounded reports whether every split ends.
	Bounded() bool
}

// Notified is a Source told of each completed checkpoint, with the split
// positions it recorded there: a Kafka source commits them to its consumer
// group so that the group's lag can be watched. Restores never read them
// back; they use the checkpoint's. Completed must not block: it is called
// by the checkpoint coordinator.
type Notified interface {
	Source
	Completed(splits []checkpoint.SplitState)
}

// Discovering is a Source whose splits grow while the job runs (Kafka
// partition discovery). Every DiscoverEvery, each subtask calls Splits
// again; the list only grows within a run, so a split keeps its Index and
// subtask i opens the new splits i, i+P, ... A split found after the job
// started, or, on a restore, one the checkpoint does not know, has New
// set: it is read from its beginning (Flink reads a partition discovered
// later from its earliest offset). A subtask without splits stays
// running, emitting no watermark, until it gets one.
type Discovering interface {
	Source
	DiscoverEvery() time.Duration
}

// InOrder is a bounded Source whose subtasks read their splits one after
// another, in the order of Splits, instead of a batch of each in turn.
// The splits of a file source (the byte ranges of a large file, the files
// of a directory sorted by name) usually hold rows in time order: read a
// batch of each in turn, a subtask's watermark, the least of its
// unfinished splits', would stay at the first split's until every split
// ended, and every window in between would be held in memory. Read in
// order, a split not yet started holds the watermark only at its floor
// (the watermark its first row will give it, peeked at when the subtask
// opens it), so windows fire as the splits are read; the rows each split
// drops as late are the same either way.
type InOrder interface {
	Source
	InOrder() bool
}

// Sized is implemented by a source whose splits have a size in bytes,
// such as files: the job then counts bytes read of the total
// (Metrics.BytesRead and BytesTotal), so that a user can see how far a
// bounded input has been read.
type Sized interface {
	// Size is the split's length in bytes as it is opened (a range's:
	// End-Start, or to the end of the file), or -1 if it has none (a
	// pipe). The Pos of the split's offsets counts bytes from the start of
	// the file.
	Size(split Split) (int64, error)
}

// Split is one independently readable part of a source.
type Split struct {
	// ID names the split stably across runs (a file path, "gen-3").
	ID string
	// Index is the split's position in the Splits list.
	Index int
	// Start and End bound the bytes of a file the split reads, for a
	// source that divides a large file into ranges: the lines that start
	// in [Start, End), End 0 meaning the end of the file. Both are 0 for
	// a whole file and for splits that are not files.
	Start, End int64
	// New marks a split of a Discovering source found after the job
	// started, or unknown to the checkpoint restored from.
	New bool
}

// Offset is a position in a split from which reading can resume: a byte
// offset and line number in a file, a sequence number in a generator.
type Offset struct {
	Pos  int64
	Line int64
	// State is what else a reader needs to resume, opaque to the
	// runtime and kept in the checkpoint with the split: a repartition
	// topic's reader keeps the watermark of each writer there.
	State string
}

// ReadOptions are the per-run settings a reader needs.
type ReadOptions struct {
	// BatchSize is the maximum number of rows per batch.
	BatchSize int
	// Alloc allocates the batches' buffers.
	Alloc memory.Allocator
	// Metrics receives counts of skipped bad rows.
	Metrics *Metrics
	// Subtask is the reading subtask: the readers of one subtask are
	// called from one goroutine, so a source may let them share a client
	// (one Kafka fetch loop per subtask).
	Subtask int
}

// Watermarked is a SplitReader whose split carries its own watermark
// (a repartition topic, where the writers' watermarks travel with the
// rows) instead of one computed from a WATERMARK clause: the source takes
// the split's watermark from it after each Next.
type Watermarked interface {
	SplitReader
	Watermark() int64
}

// SplitReader reads one split as batches.
type SplitReader interface {
	// Next returns the next batch of at most BatchSize rows, which the
	// caller owns and releases, or io.EOF once the split is exhausted. A
	// reader of an unbounded or rate-limited split may return a batch with
	// zero rows when no row is ready yet. A malformed row is an error naming
	// the split, line and column (errors.Is(err, ErrBadRow)), unless the
	// table ignores parse errors, in which case the row is skipped and
	// counted in Metrics.BadRows.
	Next() (arrow.RecordBatch, error)
	// Offset is the position just after the last row returned by Next.
	Offset() Offset
	// Close releases the reader's resources. It is idempotent.
	Close() error
}
