// Package join is strand's joins of two unbounded streams: the regular
// join (Join), [INNER | LEFT | RIGHT | FULL OUTER] JOIN ... ON with
// equi-keys and a residual condition, as Flink's StreamingJoinOperator,
// with its semi and anti kinds (IN, EXISTS, NOT EXISTS, NOT IN); the
// interval join (IntervalJoin), whose condition also bounds one side's
// event time by the other's; the window join (WindowJoin), of two
// windowed inputs within each window; and the temporal joins (FOR
// SYSTEM_TIME AS OF): the event-time one (TemporalJoin) and the
// processing-time one against a bounded table (LookupJoin). All are
// two-input operators (exec.TwoInput); the planner puts a hash exchange on
// the join key in front of each input, so rows with equal keys meet in the
// subtask that owns their key group. All keep their state the same way
// (keyed, below).
//
// # State
//
// Each side's rows live in the keyed state layer (state.Store, one Pebble
// DB per subtask): state name "left" or "right", the key group of the join
// key, and the user key join key | row key, both memseg normalized keys
// (the row key encodes every column of the row). The value is its state
// TTL stamp (state.TTL), then two uvarints: how many copies of the row are stored, and how many rows of
// the other side match it (its degree), which an outer side needs to know
// when to emit or retract its NULL-padded row. A row is found again by its
// own bytes, so a retraction takes back the row that equals it, as in
// Flink without a unique key. Rows are decoded from their keys for output,
// so a -0.0 comes out as 0.0 and every NaN as the same NaN.
//
// A regular join reads and writes its rows through a write-back cache
// in managed memory (state.Cache), one unit per join key and side: the
// probe of a join key reads the other side's unit, loaded with one prefix
// scan when first touched (a key without rows is cached as such), and a
// row's own entry and the match counts it changes are updated there. The
// cache writes its changes back to an indexed batch when it is full and
// at each checkpoint, as the same entries as without it; Snapshot then
// commits and takes the store's snapshot (incremental, like the window
// aggregate's). A restore fills the store with the subtask's key groups
// from every old subtask (exec.RestoreView), so a join rescales. The
// interval and temporal joins go through the indexed batch directly. The
// state is kept on disk by Pebble; the cache holds the hot part of it. Without a state TTL a join's
// state grows with its inputs, every row of both sides kept for a match
// that may still come; its entries (exec.StateGauge) and its store's
// bytes are in the subtask's metrics.
//
// # State TTL
//
// With a TTL (Spec.TTL, per side: table.exec.state.ttl or a STATE_TTL
// hint), a row's entry expires ttl after its last write (its insertion,
// another copy, a change of its degree), as Flink's OnCreateAndWrite. By
// event time (both inputs carry their rowtime, exec.TTLClock) the stamp is
// the writing row's rowtime, and a row at t pairs with an entry of the
// other side only while the earlier of the two is live at the later one's
// time (state.TTL.ReadPair): what pairs does not depend on which input's
// row came first. An expired own entry counts as absent: a retraction of
// it emits nothing, an insertion starts it afresh. Each advance of the
// watermark sweeps key groups of both sides (state.Sweeper), deleting
// entries no row still to come can see, so sweeps change the state's size
// and never a result. Expiry emits nothing: pairs already emitted stay, and
// an outer row's degree still counts a partner that expired (as in Flink).
// Without rowtimes the clock is the task's processing time, swept per
// batch. A null-aware anti join keeps its state.
//
// # Output
//
// The output is the left columns then the right ones, as a changelog
// (exec.RowKind). Per input row, in order, and per matching row of the
// other side in state-key order (join key, then the row's key):
//
//   - an insertion (+I or +U) is stored, then joined with each match: a
//     side that is not outer keeps the input's kind (+I or +U), an outer
//     side emits +I; an outer other side's row getting its first match
//     first retracts its padded row (-D[null..., other]); an outer row
//     without a match is emitted padded (+I[row, null...]).
//   - a retraction (-U or -D) removes one copy and retracts each joined
//     row (-D from an outer side, else the input's kind); an outer other
//     side's row losing its last match is emitted padded again (+I); an
//     outer row that had no match retracts its padded row (-D).
//
// A semi join (Kind Semi, x IN (SELECT ...), EXISTS) emits only left
// rows: a left row with a match once, with its kind; a right row changes
// its matches' counts, emitting a left row (+I) at its first match and
// retracting it (-D) at the loss of its last. An anti join (Kind Anti, NOT
// EXISTS, NOT IN) the other way round: a left row without a match is
// emitted with its kind, retracted (-D) at its first match and emitted
// again (+I) at the loss of its last; a left row with a NULL key has no
// match and passes as it comes.
//
// # NOT IN
//
// x NOT IN (SELECT y ...) is TRUE only if every x <> y is: over no y for
// every x, NULL included; else only for a non-NULL x that no y equals, and
// never once a y is NULL. A null-aware anti join (Spec.NullAware) computes
// that: both sides keep their rows, NULL keys too (under the NULL key's
// encoding), and the state "totals" holds how many right rows there are
// and how many have a NULL key. A right row that changes whether the right
// side is empty or holds a NULL changes the answer for rows of every key:
// the left rows are then all scanned and the difference emitted (rescan),
// which happens only at those changes. Since any right row decides for
// every left row, the planner runs this join in one subtask; a NOT IN over
// NOT NULL columns is a plain, parallel anti join.
//
// A row with a NULL join key matches nothing and is not stored: an outer
// side emits it padded, and retracts it padded. A retraction of a row that
// was never stored emits nothing (Flink would emit retractions of rows it
// never sent).
//
// The sequence of changes depends on which input's rows arrive first,
// which is timing, as in Flink: a left row before its match gives
// +I[l, null], -D[l, null], +I[l, r]; after it, +I[l, r] alone. The
// changelog applied, the result, is the same in every run. Join keys are
// equal by their normalized keys: -0.0 matches 0.0 (SQL equality, where
// Flink compares bytes), and NaN matches NaN (as Flink's byte comparison).
//
// # Interval joins
//
// An interval join (IntervalSpec) pairs the rows of equal keys whose
// event times satisfy Lower <= lt - rt <= Upper, and a residual
// condition, as Flink's IntervalJoin; its inputs are insert-only, and so
// is its output. Each side's rows are kept under the state name "left" or
// "right" by join key | time | row key, with the row's copies and whether
// it has matched; "left-time" and "right-time" index them by time | join
// key | row key. A row pairs with the other side's rows of its key whose
// time is in its window (a prefix scan by key, in time order), then is
// stored, unless it can pair with no row still to come: a row of the other
// side still to come is at or after that side's watermark, so a left row
// at lt can only pair with one while lt - Lower >= the right watermark, a
// right row at rt while rt + Upper >= the left watermark. Each side's
// watermark (exec.InputWatermarkHandler) frees the other side's rows past
// that point, read in time order from the time index, and pads an outer
// side's rows that never matched (+I[l, null...], once per copy); a row
// with a NULL key or time pairs with nothing and is padded at once.
//
// That freeing is exact only if no row reaches the join behind its input's
// watermark. Flink accepts such rows and pairs them with what its state
// still holds, which depends on when the watermarks came; strand's planner
// has the inputs' sources drop, as late, the rows behind their own split's
// watermark (a rule of the split alone, checkpointed with it), so the rows
// dropped, the pairs and the padded rows are the same at any parallelism,
// batch size and timing, and after a restore. Behind a window aggregate no
// row is late anyway: its rows come before the watermark that fires them.
//
// The output keeps its inputs' event times. A pair is emitted when its
// later row comes, and its earlier row may be behind the watermark by the
// join's bound, so the join holds its output watermark back
// (exec.WatermarkHolder): the combined watermark less max(Upper, -Lower, 0)
// and a millisecond. A window after the join so never finds a row late.
//
// # Temporal joins
//
// An event-time temporal join (TemporalSpec, TemporalJoin; Flink's
// TemporalRowTimeJoinOperator) joins each left row, once the combined
// watermark is past its time, with the version of its key valid then:
// the right change of its key with the latest time at or before it, if
// that change is no deletion and the residual condition accepts it (else
// an INNER join drops the row and a LEFT join pads it). Its state: the
// pending left rows under "left" by time | join key | row key (value:
// copies), read in time order by a watermark; the versions under "right"
// by join key | time (value: a flag, live or deleted, then the row key),
// a change at a key and time replacing the one there; and "right-time",
// time | join key, the versions that may make older ones obsolete. An
// insertion or update-after is a version, a deletion ends the one before
// at its time, an update-before is skipped (its update-after follows).
// After joining, a watermark drops, for each key in "right-time" before
// it, the versions before the latest one before it (every left row still
// to come is at or after the watermark) and that one too if it is a
// deletion, so a key keeps about one version. Rows are joined before the
// watermark that passes them goes on, and the output's watermark is held
// back a millisecond (Held), so a window after the join finds no row late.
// As for the interval join, the planner has both inputs' sources drop the
// rows behind their split's watermark, which makes the result the same at
// any parallelism and timing; a left row that still comes behind the
// watermark is joined at once with the versions kept.
//
// A processing-time temporal join (LookupSpec, LookupJoin) joins with a
// bounded right table read whole first: its rows go to "right" by join
// key | row key (value: copies), and left rows that come before it is
// complete wait under "left" by sequence number | row key (numbered
// above an epoch of the restored checkpoint's id, so they are written
// without a read). The right input's final
// watermark (which a bounded source sends after its last row, before the
// end of input that a checkpointing job holds back) or its end completes
// the table: the subtask's rows of it are loaded into memory, decoded
// into one batch of columns with a row of NULLs after them (a LEFT join's
// padding), their join keys sorted beside it and indexed by their hash
// (open addressing); the waiting rows are joined and dropped. Each later
// left batch is joined column-wise: its keys found through the index, the
// output the batch's columns and the table's
// taken at the pairs' indexes (expr.Take). The join so answers as a join
// with a static table, whatever the timing.
//
// The regular and the interval join keep and checkpoint their state
// alike (keyed: the store, the pending writes, the snapshot and the
// rescaling restore described under State).
//
// # Window joins
//
// A window join (WindowSpec, as Flink's WindowJoin) joins rows of the
// same window: its keys include both sides' window_start and window_end
// (the pairs Start and End), and each row comes with its window's end.
// The planner hashes both inputs on all the keys, the window's included,
// so a key's rows of one window meet in one subtask, and a join keyed by
// the windows alone (Nexmark q5) still runs in parallel, window by window.
// Its inputs are insert-only and so is its output.
//
// Rows are kept per window (a pane per window end) as sort-buffer records
// in managed memory (memseg.SortBuffer): key group | join key (the keys
// but the window's, the same for every row of a window) | side | row key,
// every column of the row as a normalized key. When the watermark reaches
// a window's end less a millisecond, the window fires: its records are
// sorted, so that equal records are one row with a count and each key's
// left rows come before its right rows; the left rows of a key are held
// (on the heap, as Flink's WindowJoinOperator holds a key's rows of a
// window) while its right rows pass, each right row joined with every left
// row the residual condition accepts (a batch of pairs evaluated at once),
// a right row without a match padded if the right side is outer; then the
// key's left rows without a match (padded, or an anti join's) or with one
// (a semi join's) are emitted. The output of a window is so in the order
// of key groups, join keys and rows, whatever order the rows came in. A
// row with a NULL key matches nothing; only a side that shows its rows
// without a match keeps it. The window's memory is then given back and its
// stored rows deleted (one range deletion per key group).
//
// The panes' records go to the subtask's store (keyed: one Pebble DB,
// state "rows", key group of the exchange's key, key window end | join
// key | side | row key | sequence number, value the count) when the
// managed memory cannot take a row (every pane spills, counted in the
// Spills metrics) and at a checkpoint, so that the store then holds every
// pending window; "windows" lists, per key group, the windows it has rows
// of, which is what a restore reads to rebuild its panes. A fired window
// whose rows are partly stored writes the rest there too and reads them
// back key group by key group, in the order memory would have given. The
// sequence numbers start above an epoch greater than every earlier run's
// (the restored checkpoint's id + 1), so entries are only ever added,
// never read back and rewritten; copies of a row in several entries are
// summed when they are read. A restore takes the subtask's key groups from
// every old subtask (exec.RestoreKeyed), so a window join rescales. The
// fingerprint covers the window's kind and sizes: a savepoint of one
// window is refused by a join of another.
//
// The window join drops nothing itself. A row whose window has fired is
// late; the sources of a window TVF below drop those, per split, by the
// row's first window, and a window aggregate's or window join's rows come
// before the watermark that fires their window. A row that still reached
// a fired window would be counted as late and dropped, as the window
// aggregate's safety net does. Its output is emitted when the window
// fires, before the watermark that fired it goes on, with the inputs'
// window_time (window_end - 1 ms) as its event time, so a window after it
// finds no row late.
package join
