// Package join is strand's regular join: [INNER | LEFT | RIGHT | FULL
// OUTER] JOIN ... ON of two unbounded streams, with equi-keys and a
// residual condition, as Flink's StreamingJoinOperator. It is a two-input
// operator (exec.TwoInput); the planner puts a hash exchange on the join
// key in front of each input, so rows with equal keys meet in the subtask
// that owns their key group.
//
// # State
//
// Each side's rows live in the keyed state layer (state.Store, one Pebble
// DB per subtask): state name "left" or "right", the key group of the join
// key, and the user key join key | row key, both memseg normalized keys
// (the row key encodes every column of the row). The value is two
// uvarints: how many copies of the row are stored, and how many rows of
// the other side match it (its degree), which an outer side needs to know
// when to emit or retract its NULL-padded row. A row is found again by its
// own bytes, so a retraction takes back the row that equals it, as in
// Flink without a unique key. Rows are decoded from their keys for output,
// so a -0.0 comes out as 0.0 and every NaN as the same NaN.
//
// Writes go through an indexed batch, read back row by row and committed
// after each input batch; Snapshot commits and takes the store's snapshot
// (incremental, like the window aggregate's). A restore fills the store
// with the subtask's key groups from every old subtask (exec.RestoreView),
// so a join rescales. State is kept on disk by Pebble (memtables and its
// cache), not in managed memory segments, and nothing is ever dropped:
// without a state TTL (not implemented yet) a join's state grows with its
// inputs, every row of both sides kept for a match that may still come.
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
// A semi join (Kind Semi, x IN (SELECT ...)) emits only left rows: a left
// row with a match once, with its kind; a right row changes its matches'
// counts, emitting a left row (+I) at its first match and retracting it
// (-D) at the loss of its last.
//
// A row with a NULL join key matches nothing and is not stored: an outer
// side emits it padded, and retracts it padded. A retraction of a row that
// was never stored emits nothing (Flink would emit retractions of rows it
// never sent).
//
// The sequence of changes depends on which input's rows arrive first,
// which is timing, as in Flink: a left row before its match gives
// +I[l, null], -D[l, null], +I[l, r]; after it, +I[l, r] alone. The
// changelog applied, the result, is the same in every run.
package join
