// Package groupagg is strand's non-windowed group aggregate: GROUP BY
// without a window (and aggregates without GROUP BY, one global group),
// as Flink's GroupAggFunction and MiniBatchGroupAggFunction. Its output
// is a changelog of each group's result: +I for a group's first row, -U
// of the old result and +U of the new when a row changes it (nothing when
// the result stays the same, as Flink), and -D when a retracting input
// takes the group's last row back. The planner puts a hash exchange on
// the keys in front of it, or, without keys, runs it at parallelism 1.
//
// # Input
//
// Every aggregate of package agg: COUNT(*), COUNT, SUM, AVG, MIN, MAX,
// each with DISTINCT and FILTER (WHERE ...). The input may be a changelog
// (Spec.Retract): -U and -D rows retract what +I and +U rows added, with
// accumulators that can (agg.NewRetracting; MIN and MAX then keep each
// group's values with their counts). A retraction of a row the group
// never counted (its count of rows is 0) is dropped, as Flink drops it.
// An upsert input (+U without -U) is refused by the planner.
//
// # State
//
// Every group lives in the keyed state layer (state.Store, Pebble, one
// per subtask): state name "group", the key group of the group key, the
// group key's normalized key (memseg) as user key, and as value its state
// TTL stamp (state.TTL), the group's count of rows, then each
// accumulator's state (agg.Acc.Put). A
// DISTINCT argument column has entries of its own, "distinct<col>": user
// key group key | value, value its TTL stamp, then one count per DISTINCT
// aggregate of that column (they differ by FILTER) of the group's rows
// with that value; a value is folded in when its count becomes 1 and
// retracted when it falls to 0. Flink keeps the same in a MapView. The
// planner hands the aggregates of one DISTINCT column (that its
// pre-projection repeats per aggregate) one argument column, so they
// share their entries, as Flink's share a MapView.
//
// In front of the store, a write-back cache in managed memory
// (memseg.HashTable from group key to slot, accumulator columns charged
// to the subtask's memory budget) holds the groups touched since it was
// last written back: a group is read from the store when first touched,
// and the dirty groups are written back at each checkpoint and, with the
// cache emptied, whenever the next batch's groups might not fit in the
// budget. So the state is bounded by disk, not memory, and a tiny
// memory.managed.size only means more store reads. A group's DISTINCT
// entries are cached with it, all of them read by one prefix scan when
// it is first touched (distinct.go), so that a new value costs no store
// read.
//
// Checkpoints snapshot the store (incremental, as the join's and the
// window's); a restore fills it with the subtask's key groups from every
// old subtask (exec.RestoreView), so the aggregate rescales. The uid is
// derived from the keys and the aggregate list (planner/uid.go); the
// fingerprint (Spec.Fingerprint) covers the state layout.
//
// # State TTL
//
// With a TTL (Spec.TTL, exec.StateTTL) a group not written for ttl is
// gone: the next row of its key finds it expired (cache.expire, against
// the row's rowtime when the input carries one, else processing time),
// starts it from empty and emits +I, and a retraction of it is dropped,
// as in Flink. A group written by an earlier row of the same mini-batch
// lives on. Each slot keeps its group's stamp; the store's expired groups
// are deleted by sweeps (state.Sweeper) at each watermark advance (by
// processing time, per batch). Each DISTINCT entry has its own stamp, as
// each entry of Flink's MapView state has: a value not counted for ttl
// counts as new again, though its group lives on; an expired group's
// values have all expired with it.
//
// # Changes
//
// Rows are applied in segments (segment.go): without mini-batching a
// segment ends before a row whose group it already touched, so each row's
// change is emitted as Flink emits it, while rows of different groups are
// folded into the accumulators a column at a time. The changes of one
// group come in the order of its rows; those of different groups may
// interleave differently at another parallelism, as in Flink.
//
// # Mini-batch
//
// With table.exec.mini-batch.enabled (allow-latency and size as Flink's
// keys), input batches are held (up to size rows or allow-latency of
// processing time) and folded as one segment: one change per group per
// mini-batch. The held batches are flushed before a checkpoint barrier
// passes (exec.BarrierPreparer, Flink's prepareSnapshotPreBarrier) and at
// the end of the input, so a checkpoint never holds them. Which rows fall
// in one mini-batch depends on timing, so the sequence of changes does;
// the final result does not.
package groupagg
