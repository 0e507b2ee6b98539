// Package window holds strand's event-time windows: the window assigners
// (tumbling first) and the window aggregate that keeps per-window group
// state and fires a window when the watermark passes its end.
//
// Semantics, chosen to match Flink SQL's window TVF aggregation:
//   - A tumbling window of size S and offset O covers [start, start+S) with
//     start ≡ O (mod S), aligned to the epoch. A row on a boundary belongs
//     to exactly one window, the one it starts.
//   - A window fires when the watermark reaches its last millisecond
//     (end-1), Flink's maxTimestamp. Its groups are emitted in key order
//     (the normalized-key byte order, which is SQL's ascending order with
//     NULLs first), then its state is freed.
//   - A row whose window has already fired is late: it is counted and
//     dropped. Sources drop late rows per split before they get here, so in
//     a strand job this never happens; the check is a safety net.
//   - Aggregates are package agg's accumulators (COUNT, SUM, MIN, MAX,
//     AVG, their types and exact sums), each optionally DISTINCT and with
//     a FILTER column, both of which the aggregate applies before agg
//     sees the rows.
//
// Memory: each window's groups are found through a memseg.HashTable from
// the group's normalized key to a group number, its DISTINCT values
// through one more table per DISTINCT aggregate, and the accumulators are
// typed columns indexed by group number (a vectorized update per
// aggregate), charged to the same memseg.Manager budget as the tables'
// segments. Key columns are not stored: they are decoded from the key when
// the window fires. When the budget cannot take a row's group or values,
// the aggregate spills every window to the state store and goes on
// (spill.go); a window with spilled parts fires by merging them.
//
// Processing-time windows use the same aggregate: AddAt folds a whole
// batch into the window holding a given clock reading, and the caller
// fires windows by advancing the watermark with its clock.
//
// This package does not depend on exec: exec wraps an Aggregate as an
// operator. The caller computes key, argument and filter columns before
// Add, so Aggregate only reads columns.
package window
