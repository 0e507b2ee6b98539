// Package exec is strand's kernel: it runs a job graph (Graph, Vertex,
// Edge) as one goroutine per subtask connected by bounded channels, with
// the exchanges between vertices (forward, hash by key group, rebalance,
// broadcast, global), the checkpoint coordinator and barrier alignment,
// savepoints and stops, the restore of operator state, and the contracts
// operators, sources and sinks implement. Start returns a Job handle;
// Run is Start then Wait.
//
// A vertex's output may go to several vertices (fanOutput): the source
// that a statement set's INSERTs share sends each batch, watermark,
// barrier and end to every reader, in one order, so every pipeline aligns
// on the same barriers. Such a source has no operators of its own; an
// edge out of it with Fires drops, for its reader only, the rows late for
// that reader's windows, against the split's watermark before the row
// (sourceTask.fan), so each pipeline gets what it would get alone.
//
// # Source subtasks that wait
//
// Two things make a source subtask read nothing for a while, both by one
// loop (sourceTask.waitWhile) that answers checkpoints as it waits: the
// pacer keeps an in-order source's subtasks within a few splits of each
// other (pacer), and an alignment group (SourceSpec.Align, Flink's
// scan.watermark.alignment.*) keeps the watermarks of its subtasks, over
// every source of the job in it, within a drift of the least (Alignment,
// alignGroup). A subtask waiting for its pacer holds no one of its group
// back, so the two cannot wait for each other. Lateness is decided per
// split, so waiting changes when rows are read, never the results.
//
// # Restoring state
//
// A restore first matches every piece of state in the checkpoint or
// savepoint to the job (MatchState): an operator's by uid, then by state
// schema fingerprint (OpSpec.Fingerprint) and number of key groups. The
// fingerprints must be equal, with one exception: an operator whose
// fingerprint ends in agg.ExactFloatSums (it checkpoints a FLOAT or
// DOUBLE SUM or AVG, whose sums are exact) also takes state of that
// fingerprint without the mark, written before sums were exact, which
// its accumulators read as a count and a double. The converse is refused,
// as a strand from before exact sums, comparing exactly, refuses the
// marked state it would misread.
//
// A restore that refuses state by design fails with an error marked
// ErrPermanent (Permanent): state of a later strand (agg.ErrLaterFormat,
// wherever a task meets it), state its reader finds malformed, state
// that does not fit the job (ErrUnmapped, ErrIncompatible), a corrupt
// savepoint file. A restart from the same restore point would fail the
// same way, so the session's restart strategy fails the job at once with
// the same message. A corrupt checkpoint file is not marked: a restart
// verifies the checkpoint anew and falls back to an older one.
//
// # Hash exchange
//
// A hash edge sends each row to the subtask owning its key group: the
// hash of its normalized key over Edge.Keys (memseg.Hash, or
// memseg.HashInt64 of the value when the key is one integer-like column:
// the same function), modulo the maximum parallelism, with contiguous key
// group ranges per subtask as in Flink. It copies no rows: a receiver of
// every row of a batch gets the batch, each other receiver the batch (a
// reference each) with a Part listing its rows, and either way the Part
// holds the rows' key hashes. A task whose chain is headed by a
// RowsProcessor (the window aggregate) hands it the Part, so that it
// folds the rows in place and does not hash their keys again; for any
// other head the task first takes the rows into a batch of their own, so
// such an operator sees what it always did. With one receiver an edge
// forwards batches as they are and hashes nothing, and an edge without
// key columns sends each batch whole to the owner of the empty key's
// group. Receivers share batches, so an operator that emits its input
// must Retain it first, as Operator's contract says: a batch released
// once too often is freed under the other receivers.
//
// # Metrics
//
// A job's counters (Metrics) are shared by its tasks and updated once per
// batch, never per row. Each vertex has its own (VertexMetrics, from
// Job.Vertices), and each of its subtasks too (SubtaskMetrics): rows into
// and out of the chain, late rows, rows with a NULL event time, spills,
// the watermark, and figures read only when asked for, so that they cost
// the tasks nothing: managed memory in use, and how full the subtask's
// input channels (it does not keep up) and output channels (it is
// backpressured) are. The size of a window's state store on disk is
// measured after a spill or a checkpoint, not per batch; a keyed
// operator's outside windows (StateGauge) at most once a second, with its
// memtables and, for a join or a deduplication, its entries.
//
// # State TTL
//
// StateTTL and TTLClock are the clock of a keyed operator's state TTL
// (state.TTL): by event time, each row's rowtime stamps and checks
// entries and the watermark drives sweeps, which then delete only what
// every row still to come finds expired; without a rowtime column, the
// task's processing time. Job.CheckpointHistory lists the
// run's latest HistorySize checkpoints and savepoints with their trigger
// time, duration, sizes and outcome. The HTTP API and the dashboard
// (package session) read them.
package exec
