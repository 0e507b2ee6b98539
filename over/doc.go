// Package over is strand's OVER aggregation: Flink's OverAggregate over
// an event-time order,
//
//	agg(x) OVER (PARTITION BY k ORDER BY rowtime
//	    {ROWS | RANGE} BETWEEN {UNBOUNDED | n | INTERVAL ...} PRECEDING AND CURRENT ROW)
//
// as Flink's RowTimeRowsUnboundedPrecedingFunction,
// RowTimeRangeUnboundedPrecedingFunction, RowTimeRowsBoundedPrecedingFunction
// and RowTimeRangeBoundedPrecedingFunction. Every input row comes out once,
// append-only (+I), with one more column per aggregate: the aggregate over
// the row's frame, the rows of its partition from the frame's start up to
// the row itself. Rows are emitted when the watermark passes their time,
// in time order per partition, so that every row of the frame is there;
// the planner puts a hash exchange on the partition columns in front (or,
// without PARTITION BY, runs the operator at parallelism 1).
//
// # Order and ties
//
// A partition's rows are in time order, and rows of the same time in the
// order of their other columns (exec.RowKey: every column is in the key),
// not in the order they arrive: Flink takes arrival order, which differs
// with the parallelism, so a ROWS frame over rows of equal time could
// differ from run to run. strand's result depends on the rows alone. With
// RANGE, rows of the same time are peers: each one's frame holds all of
// them, so they all get the same aggregates (as in Flink). Identical rows
// are one entry with a count, and come out as many times.
//
// # Lateness
//
// The operator drops nothing. A row is late when its time is before its
// split's watermark (ts < watermark), decided at the source per split, as
// for session windows (README "Event time, lateness and determinism"), so
// rows that reach the operator are at or after every watermark it has
// seen, and the rows dropped are the same at any parallelism and batch
// size. A row exactly at the watermark is on time: with a watermark of
// the time itself (WATERMARK FOR ts AS ts) over rows in order, rows of
// equal time all count. So a watermark wm fires the rows before it, and
// the operator's output carries wm - 1 (exec.WatermarkHolder): the rows
// at wm come out later, and an operator after it must not take them for
// late. Flink drops, in the operator, rows at or before the last
// watermark it saw, which depends on when watermarks arrive.
//
// # State
//
// State lives in the keyed state layer as a Top-N's: one state.Store
// (Pebble) per subtask, entries under the key group of their partition
// key, written through an indexed batch. Three state names:
//
//	rows    key: the row's exec.RowKey (partition, time, other columns)
//	        value: its number of copies (uvarint)
//	timers  key: time (memseg's int64 encoding) | partition key; no value
//	acc     key: partition key; value: the time of its last emitted rows
//	        (8 bytes, big-endian) then, for an unbounded frame, each
//	        aggregate's accumulator (agg.Acc.Put)
//
// A row waits in rows with a timer at its time. At a watermark the
// operator scans each of its key groups' timers before it, and fires each
// partition they name once: it reads the partition's rows before the
// watermark, computes each new row's frame in order and emits it, and
// drops the rows no later frame needs. An unbounded frame keeps its
// accumulators and no rows; a bounded one keeps the last n rows (ROWS) or
// the rows after last - interval (RANGE), rebuilds its accumulators from
// them at each firing, and takes the rows that leave the frame back
// (agg.Retracter; MIN and MAX keep a multiset, agg.NewRetracting). Every
// aggregate retracts exactly, FLOAT and DOUBLE SUM and AVG too (their
// sums are exact, agg/fsum.go), so a frame's accumulators after a row
// are what folding the frame's rows from empty would give, whichever rows
// earlier firings held (which depends on when watermarks came): the
// results are the same at any parallelism and after recovery. The
// state is bounded by the disk, not the heap, which holds one firing
// partition's rows up to the watermark. Checkpoints snapshot the store
// (incremental); a restore takes each subtask's key groups from every old
// subtask (exec.RestoreKeyed), so the operator rescales. The uid
// (over-<hash>) is derived from what the operator computes
// (planner.UID), the fingerprint (Spec.Fingerprint) from the state's
// layout: the columns, partitioning, frame and aggregates.
//
// DISTINCT and FILTER aggregates, frames that end after the current row,
// and processing-time order are refused by the planner.
package over
