package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Operator transforms batches. Process is the only method every operator
// has; the optional hooks below (Opener, WatermarkHandler, Finisher,
// Closer) default to doing nothing when an operator does not implement them.
//
// The contract, which the task that drives an operator keeps:
//   - One goroutine calls an operator's methods; an operator needs no locks
//     for its own state.
//   - Open is called once, before anything else. If it fails, Close is
//     still called.
//   - Process receives a borrowed batch: it is valid until Process returns
//     and the operator must Retain it to keep it longer. Process never
//     receives a batch with zero rows.
//   - Batches passed to out.Emit are handed over: the operator must not use
//     or release them afterwards. Emitting a batch with zero rows is allowed
//     and ignored.
//   - OnWatermark(wm) is called when the minimum watermark over the task's
//     inputs advances. Batches emitted during the call are delivered before
//     the watermark is forwarded downstream.
//   - Finish is called once when every input has ended, after the final
//     watermark; its emitted batches are the operator's last output.
//   - Close is called exactly once, last, whether the job succeeded or
//     failed, and releases what the operator holds.
type Operator interface {
	Process(b arrow.RecordBatch, out Emitter) error
}

// RowsProcessor is implemented by operators that take a hash exchange's
// share of a batch as it comes (Part): the batch, which other receivers
// share, with the rows that are the operator's and their key hashes,
// instead of a copy of those rows. The task calls ProcessRows instead of
// Process for such an element when the operator heads its chain (it
// copies the rows for any other operator). b is borrowed as in Process,
// and p only for the call; p.Hashes are over p.Keys, which the operator
// checks against its own keys before it uses them.
type RowsProcessor interface {
	ProcessRows(b arrow.RecordBatch, p *Part, out Emitter) error
}

// Side names one input of a two-input operator: the vertex's Inputs[0]
// is Left, Inputs[1] Right.
type Side uint8

// The two inputs.
const (
	Left Side = iota
	Right
)

func (s Side) String() string { return [...]string{"left", "right"}[s] }

// TwoInput is an operator that reads two inputs, such as a join, as
// Flink's TwoInputStreamOperator and CockroachDB's two-input colexecop
// operators. It heads its vertex's chain (OpSpec.TwoInput); the operators
// chained after it are one-input operators fed by its output. The
// contract, on top of Operator's:
//   - Input identity: each batch arrives through ProcessInput with the
//     side it came from. Process is never called.
//   - Watermarks: each input's watermark is the minimum over its own
//     channels; OnWatermark (WatermarkHandler) receives the operator's
//     watermark, the minimum of the two inputs', when it advances, and
//     an InputWatermarkHandler also each input's own watermark. An input
//     that has ended no longer holds the minimum back.
//   - Barriers: a checkpoint barrier is aligned across every channel of
//     both inputs as for one input: in exactly-once mode a channel that
//     delivered barrier N, of either side, is not read until every live
//     channel of both has; in at-least-once mode nothing waits. Snapshot
//     (Snapshotter) is called once, when the barrier is aligned, and
//     covers both sides' state.
//   - End of input: EndInput (InputEnder) is called once per side, when
//     every channel of that side has ended, while the other side may go
//     on; Finish is called after both, after the final watermark.
type TwoInput interface {
	Operator
	ProcessInput(side Side, b arrow.RecordBatch, out Emitter) error
}

// InputWatermarkHandler is implemented by two-input operators that act on
// each input's own event time (an interval join frees one side's state by
// the other's watermark).
type InputWatermarkHandler interface {
	OnInputWatermark(side Side, wm int64, out Emitter) error
}

// WatermarkHolder is implemented by operators whose output may be older
// than the watermark that reached them: an interval join emits a pair when
// its later row comes, whose earlier row's time may be behind the input's
// watermark by the join's bound. Held returns the watermark the
// operator's output carries once its input's reached wm; it must not
// decrease as wm grows, and must keep types.MaxWatermark, so that the end
// of a bounded input still fires every window downstream. The operators
// chained after it, and the vertex's output, see the held watermark.
type WatermarkHolder interface {
	Held(wm int64) int64
}

// InputEnder is implemented by two-input operators that act when one of
// their inputs ends.
type InputEnder interface {
	EndInput(side Side, out Emitter) error
}

// Emitter receives an operator's output.
type Emitter interface {
	// Emit hands b over to the next operator or the output channel.
	Emit(b arrow.RecordBatch) error
}

// Opener is implemented by operators that prepare resources per subtask.
type Opener interface {
	Open(ctx *TaskContext) error
}

// WatermarkHandler is implemented by operators that act on event time.
type WatermarkHandler interface {
	OnWatermark(wm int64, out Emitter) error
}

// ProcessingTimeHandler is implemented by operators that act on
// processing time. The task calls OnProcessingTime every
// ProcessingTimeInterval of wall time, between other calls, so that the
// operator can act on its clock (TaskContext.Now) while no input arrives.
type ProcessingTimeHandler interface {
	OnProcessingTime(out Emitter) error
}

// BarrierPreparer is implemented by operators that hold input back (a
// mini-batch): PrepareBarrier is called when a checkpoint's barrier has
// been aligned, before any operator of the chain snapshots, so that what
// it emits goes downstream ahead of the barrier, as Flink's
// prepareSnapshotPreBarrier.
type BarrierPreparer interface {
	PrepareBarrier(out Emitter) error
}

// Finisher is implemented by operators that emit output at end of input.
type Finisher interface {
	Finish(out Emitter) error
}

// Closer is implemented by operators that hold resources.
type Closer interface {
	Close() error
}

// TaskContext is what a subtask's operators may use.
type TaskContext struct {
	// Vertex names the job vertex, Subtask and Parallelism place the task.
	Vertex      string
	Subtask     int
	Parallelism int
	// Alloc allocates Arrow buffers.
	Alloc memory.Allocator
	// Metrics are the job's counters.
	Metrics *Metrics
	// Now is the job's clock (epoch ms): processing time and
	// CURRENT_TIMESTAMP. Tests inject a fixed clock.
	Now func() int64
	// BatchSize is the preferred number of rows per emitted batch.
	BatchSize int
	// MaxParallelism is the number of key groups.
	MaxParallelism int
	// Memory is the subtask's share of the job's managed memory, for its
	// operators with OpSpec.MemorySegments (and OpSpec.CacheMemory).
	Memory *memseg.Manager
	// MemoryShare is the bytes of Memory each of those operators may
	// take: a cache takes no more, so that the others have theirs.
	MemoryShare int64
	// Checkpoint is the run's checkpoint configuration, nil when the job
	// does not checkpoint.
	Checkpoint *Checkpointing
	// Scratch is the run's directory for spilled state that is not
	// checkpointed.
	Scratch *Scratch

	// match is the restored state matched to the job (Restored).
	match *Match
	// vertex are the vertex's metrics, nil outside a job.
	vertex *VertexMetrics
	// pace is shared by a source vertex's subtasks (sourceTask.keepPace);
	// nil for other vertices and at parallelism 1.
	pace *pacer
	// align is a source subtask's place in its alignment group
	// (aligner; the subtask waits by sourceTask.waitWhile); nil for other
	// subtasks and for sources in no group.
	align *aligner
}

// Counters returns the subtask's own metrics, for operators outside this
// package (rank's late rows); outside a job, counters nobody reads.
func (tc *TaskContext) Counters() *SubtaskMetrics { return tc.counters() }

// counters returns the subtask's own metrics; outside a job, counters
// nobody reads.
func (tc *TaskContext) counters() *SubtaskMetrics {
	if tc.vertex == nil {
		return &SubtaskMetrics{}
	}
	return &tc.vertex.Subtasks[tc.Subtask]
}

// OpSpec describes one operator of a chain; New creates the instance for
// one subtask.
type OpSpec struct {
	// Name is shown in EXPLAIN and in errors.
	Name string
	// UID identifies a stateful operator's state across runs and plans.
	UID string
	// Fingerprint identifies the schema of a stateful operator's state: a
	// restore takes back state of the same uid only if its fingerprint is
	// the same, or is this one without its agg.ExactFloatSums mark (state
	// from before exact float sums, which the accumulators read). Empty
	// for an operator without state.
	Fingerprint string
	// Out is the schema of the batches the operator emits.
	Out types.Schema
	// MemorySegments marks an operator that keeps its state in managed
	// memory, and is the fewest segments one of its subtasks can work
	// with; 0 for an operator without managed memory. Each subtask of
	// such an operator gets an equal share of the job's budget, as Flink
	// gives each slot a fraction of its managed memory, so that one
	// subtask's state never starves another's.
	MemorySegments int
	// CacheMemory marks an operator that caches its keyed state in
	// managed memory (state.Cache) when the budget leaves room for it: it
	// gets a share as one with MemorySegments if every such operator can
	// have one, and none otherwise, working from its store alone.
	CacheMemory bool
	// TwoInput marks an operator that implements TwoInput: the first of
	// its vertex's chain, which then has exactly two input edges. (A
	// vertex with several inputs and a one-input chain reads their union,
	// merged as the channels of one input.)
	TwoInput bool
	New      func() (Operator, error)
}
