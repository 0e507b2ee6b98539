// Package rank holds strand's ranking operators: Flink's ROW_NUMBER()
// queries. The planner picks one by the query's shape (planner.Rank,
// planner.TopN):
//
//   - WindowTopN, the window Top-N (PARTITION BY window_start, window_end):
//     it buffers each window's rows in managed memory and, when the window
//     fires, sorts them and emits the first of each partition, append-only.
//     A window is its window_end; over SESSION windows, whose sessions of
//     several keys may share an end, the planner partitions by
//     window_start as well, and the session operator before it holds its
//     watermark back so that a session's rows arrive before the watermark
//     that fires their window here.
//   - Dedup, a deduplication outside windows (rownum = 1, rownum not read,
//     ORDER BY one time attribute), as Flink's Deduplicate.
//   - TopN, a Top-N outside windows (any other partitioning), as Flink's
//     Rank, updated as rows come and go; Ranked for RANK() and
//     DENSE_RANK(), UpdateFastTopN for Flink's update-fast strategy.
//
// Two operators that keep rows per key for a changelog live here too, as
// they are deduplications by arrival: Normalize (Flink's
// ChangelogNormalize, over an upsert source) and Materialize (Flink's
// SinkUpsertMaterializer, in front of a sink keyed by a PRIMARY KEY that no
// upsert key of its input lies within). normalize.go and materialize.go
// say how.
//
// # Deduplication
//
// ORDER BY a PROCTIME() column ASC keeps each partition's first row by
// arrival: the state is a flag per partition key, and the output is
// append-only (+I). Every other deduplication updates its result: each
// partition's kept row and its time are the state, and a row that
// replaces it is emitted as -U of the old row and +U of the new (a
// partition's first row as +I). A row replaces the kept one as Flink's
// RowTimeDeduplicateFunction and ProcTimeDeduplicateKeepLastRowFunction
// decide: by processing time (DESC) always; by event time DESC when its
// time is not earlier (of rows with equal times the last that arrives is
// kept); by event time ASC only when its time is strictly earlier (of equal
// times the first is kept; an earlier row arriving late retracts the kept
// one, which is why Flink's event-time keep-first updates too). A NULL time
// is earlier than any other. Which row is first or last among rows of equal
// time, and every choice by processing time, depends on arrival order: it
// is the same in every run when a partition's rows come from one split (one
// file, one generator split), and otherwise can differ between runs and
// parallelisms, as in Flink. Deduplication takes insert-only input, as
// Flink's.
//
// A deduplication's state has a TTL (DedupSpec.TTL; exec.StateTTL): each
// partition's entry starts with its stamp (state.TTL), written at the
// rowtime of the row that set it (processing time without a rowtime); a
// partition whose entry expired keeps its next row again, as +I, and
// sweeps at the watermark delete expired entries (expiring, in keyed.go).
// Normalize and Materialize expire their keys' rows alike. A Top-N expires
// a partition whole (partitionTTL, in topn_ttl.go): a stamp per partition
// beside its rows, kept only while a TTL is set, so the TTL costs a Top-N
// nothing when it is off.
//
// # Top-N
//
// A Top-N keeps, per partition, rows under their topnKey: the partition
// columns, the ORDER BY columns as written (NULLs smallest, as in Flink),
// then every other column ascending, with a count of identical rows. Rows
// that tie on the ORDER BY are so ordered by their other values, as the
// window Top-N's are: which rows are numbered 1..N depends on the rows
// alone, not on their arrival order or the parallelism (Flink orders ties
// by arrival), so a Top-N's result is the same in every run.
//
// Each input row reads its partition's first N+1 rows (the rows Start..End
// of the rank range can need no more after one change), applies the change
// (an insertion, +I or +U, adds a copy; a retraction, -U or -D, takes one
// back) and emits the difference between the rows numbered Start..End
// before and after, as Flink's rank functions: with the row number
// selected, -U of the old row and +U of the new for each number whose row
// changed, +I for a number that gets its first row and -D for one that
// loses it; without, -D for the rows that left and +I for those that came.
// A retraction of a row that was never kept emits nothing.
//
// The strategy comes from the input's changelog mode (planner.Rank), as
// Flink's RankProcessStrategy: AppendFast for insert-only input keeps at
// most End rows per partition, since a row pushed out can never come
// back; Retract, for updating input (a join's, a union's), keeps every row
// of the partition, because a retraction of one of the first rows lets the
// next one in: its state grows with its input, as a join's does, unless a
// state TTL bounds it. UpdateFast (UpdateFastTopN, Flink's
// UpdatableTopNFunction) is for an updating input with a unique key that
// contains the partition and an order that only moves a row up (a COUNT
// or MAX descending, a MIN ascending, of an aggregate over insert-only
// input: planner.Rank.UpdateFastKey): as AppendFast it keeps End rows per
// partition, with an index (state "keys") from each kept row's unique key
// to the row, so that an update replaces the row's old version; it skips
// the input's -U rows, which Flink's upsert input does not have. Its rows
// that tie on the ORDER BY are ordered by the unique key first, not by
// their other columns in column order: an update can change those without
// the ORDER BY value, and would then move a row down among its ties,
// below rows no longer kept. A MIN or MAX that can be NULL is monotonic
// only with NULLs last (its first value moves a row up from NULL).
//
// # RANK and DENSE_RANK
//
// Ranked is a Top-N by RANK() or DENSE_RANK(), which Flink refuses on
// streams and strand has: rows that tie on the ORDER BY share a rank
// (exec.RowKey.Ordered finds a row's ORDER BY columns in its key), so a
// partition may have more rows in its range than End. It keeps rows as a
// TopN (AppendFast: the rows ranked up to End; Retract: every row), reads
// a partition's rows up to the first ranked beyond End + 1 (a retraction
// moves a row up one rank at most) and emits, with the rank selected, -U
// and +U for a row whose rank changed, +I for a row that came into the
// range and -D for one that left. No deduplication shortcut: RANK() ... =
// 1 keeps every row tied for first. A window Top-N takes ROW_NUMBER only,
// as Flink's.
//
// # State
//
// Both operators keep their state in the keyed state layer as the join:
// one state.Store (Pebble) per subtask, entries under the key group of
// their partition key, which is the key the hash exchange in front of the
// operator routes by (a Top-N without PARTITION BY runs as one subtask).
// Writes go through an indexed batch, read back row by row and committed
// after each input batch; Snapshot commits and snapshots the store
// (incremental). A restore takes each subtask's key groups from every old
// subtask, so the operators rescale. The state lives on disk in Pebble;
// a deduplication and a ROW_NUMBER Top-N without a state TTL read and
// write it through a write-back cache in managed memory (state.Cache, one
// unit per partition: a Top-N's rows loaded with one scan, a
// deduplication's kept row with one point read), which writes its
// changes back, as the same entries, at each checkpoint and when it is
// full, so a partition's rows cost no store access while they are
// cached. With a TTL, and for RANK, DENSE_RANK and UpdateFast, whose
// expiry and sweeps rewrite partitions in the store, every row reads the
// store (a prefix scan of the partition for a Top-N). The uid (rank-<hash>) is
// derived from the input columns, partitioning, order and strategy
// (planner.UID); the fingerprint also covers the operator's kind (which
// row a deduplication keeps, by which time) and the rank range's End, so a
// savepoint of a Top-3 is refused by a Top-4 that would read 3 rows as all
// there are.
//
// # Output
//
// Every operator here builds its output batches with changes (output.go)
// over exec.KeyRows: a row to emit is a kept row's key, decoded when the
// batch is built, each key once however many times the batch holds its
// row (a Top-N's row moving down one number is -U at one and +U at the
// next), or a row of the input batch being processed, copied as it is
// (a deduplication's or a Top-N's new row, ChangelogNormalize's and the
// sink materializer's rows): most of a deduplication's output is decoded
// from nothing. Columns are built one at a time, never row by row through
// Arrow builders.
//
// Flink's mini-batches and its topn cache are not implemented.
package rank
