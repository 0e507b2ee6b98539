// Package window holds strand's event-time windows: the window assigner
// (tumbling, hopping and cumulating windows) and the one window aggregate
// that keeps per-slice group state and fires a window when the watermark
// passes its end; and session windows, which merge per key (Sessions).
//
// Semantics, chosen to match Flink SQL's window TVF aggregation:
//   - A tumbling window of size S and offset O covers [start, start+S) with
//     start ≡ O (mod S), aligned to the epoch. A row on a boundary belongs
//     to exactly one window, the one it starts. A hopping window of size S
//     and slide L covers [start, start+S) for every start ≡ O (mod L); a
//     cumulating window of size S and step L covers [start, start+k·L) for
//     start ≡ O (mod S) and k = 1..S/L. L divides S, as Flink requires.
//   - Slicing (assign.go): windows are cut into slices of L (a tumbling
//     window is one slice). A row updates the one slice holding its time;
//     a window fires by merging its slices' groups in key order (through
//     the store when some are spilled), so a row's cost does not grow
//     with S/L: grouped by one integer-like column, through a slider
//     (slide.go) that gives each slice's groups slots once and merges a
//     window's slices into them; otherwise by a k-way merge of the slices'
//     groups, each slice sorted once. A slice is freed when the last
//     window covering it has fired, and the memory of a small one is kept
//     for the next (spare.go). Slices of a hopping or cumulating window
//     checkpoint the watermark their windows have fired to, so that a
//     restore does not fire a window twice.
//   - Checkpoints are incremental (state.go): each writes the groups that
//     changed since the previous one, per window and key group, and
//     rewrites the whole state once its entries hold twice its groups (or
//     after state.MaxIngested checkpoints), replacing every older entry
//     (a spilled window deletes them, and leaves its files to Pebble).
//   - A window fires when the watermark reaches its last millisecond
//     (end-1), Flink's maxTimestamp. Windows fire in the order of their
//     ends; a window's groups are emitted in key order (the normalized-key
//     byte order, which is SQL's ascending order with NULLs first).
//   - A row is late when the first window holding it has fired (the one
//     Assigner.Fires names): it is counted and dropped, from all of its
//     windows. Sources drop late rows per split by the same rule before
//     they get here, so in a strand job this never happens; the check is a
//     safety net.
//   - Spec.ByEnd aggregates rows a window TVF has assigned already (a view
//     or subquery of one): each row's window is its window_end column, and
//     each window is a pane of its own.
//   - Aggregates are package agg's accumulators (COUNT, SUM, MIN, MAX,
//     AVG, their types and exact sums), each optionally DISTINCT and with
//     a FILTER column, both of which the aggregate applies before agg
//     sees the rows. A slice keeps each group's DISTINCT values; a window
//     of several slices computes a DISTINCT aggregate from the union of
//     its group's values in each (each slice's values ordered once and
//     merged, duplicates skipped; spilled values merge the same way), so
//     that a value seen in two slices of the window counts once, as
//     Flink's per-slice distinct maps merged.
//
// Session windows (session.go, session_state.go), kind Session with the
// gap as Assigner.Size, are not fixed: which session a row is in depends
// on the other rows of its key. Sessions.Fire gives a session's key and
// bounds instead of its aggregates, for the SESSION TVF without an
// aggregate (exec.SessionTVF keeps the rows). Chosen to match Flink's
// session windows and to keep strand's determinism:
//   - Per key (the grouping columns), a row of time ts opens [ts, ts+gap);
//     sessions that overlap or touch (end == start, Flink's
//     TimeWindow.intersects) merge, accumulators merged with agg's Merge.
//     An out-of-order row can bridge two sessions into one.
//   - A session fires when the watermark passes its end (wm > end), one
//     millisecond after a fixed window would, and is emitted with its key,
//     start, end and aggregates; sessions firing together come in the order
//     of their ends, then keys.
//   - A row is late when its time is before the watermark (ts < wm,
//     Assigner.Fires = ts+1), decided at the source per split like the
//     fixed windows' rule. Together these make a fired session final: its
//     end is before every row that is not late, so no such row can join or
//     touch it, whatever order rows and watermarks arrive in; the operator
//     drops late rows by the same rule as a safety net.
//   - State: a key table (memseg.HashTable, normalized key to key number)
//     and per key number a list of sessions in start order; a session is a
//     slot of typed columns and of the accumulators. Each checkpoint writes
//     the keys whose sessions changed as one entry per key in its key group
//     (merges included: the entry is the key's new list), and deletes the
//     entries of keys whose sessions all fired, so a restore at any
//     parallelism routes each key by its key group. Keys without sessions
//     leave the table when they are most of it (compaction).
//   - Firing (session_timer.go): a min-heap of timers by session end, one
//     per live session, set again when it pops before a session that grew;
//     a watermark pops the sessions it passes and visits no other. The heap
//     is derived state: a restore sets the timers of the sessions it loads.
//   - Spilling (session_spill.go): when the budget cannot take a key, a
//     session or a DISTINCT value, every key's sessions go to the state
//     store, each key as its checkpoint entry and each session with a
//     timer entry keyed by end; a row of a spilled key takes its sessions
//     back, and a watermark fires spilled sessions from the store, merged
//     by end and key with those in memory.
//   - DISTINCT aggregates (session_distinct.go) keep each session's values
//     as a list of sets, which a merge concatenates without taking memory;
//     the merged accumulator adds the other session's values it lacks, so
//     a value in both counts once.
//
// Memory: each window's groups are found through a memseg.HashTable from
// the group's normalized key to a group number (or, grouped by one
// integer-like column, a memseg.IntTable from the key's value to the
// number, the values kept per group: groups.go), its DISTINCT values
// through one more table per DISTINCT aggregate, and the accumulators are
// typed columns indexed by group number (a vectorized update per
// aggregate), charged to the same memseg.Manager budget as the tables'
// segments. Key columns are not stored: they are decoded from the key when
// the window fires (built from the integers, for an IntTable). A new
// window's table and columns are sized for the groups of the last window
// fired. The slider's table and accumulators are charged too; the
// hashes and slots a slice caches for it are not (8 and 4 bytes a group,
// as the key order a slice of a HashTable caches). Both tables hash a key
// with memseg.Hash of its
// normalized key (memseg.HashInt64 for an integer, the same function), the
// hash whose key group routed the row; AddRows takes the rows of a batch a
// hash exchange shares with other receivers, and the hashes it computed,
// so that the aggregate neither copies the rows nor hashes them again.
// The same hash gives a new group its key group (hash % max parallelism,
// exec.KeyGroup's), recorded then, which checkpoints and spills file the
// group under without encoding or hashing its key again. When the budget
// cannot take a row's group or values, the aggregate spills every window
// to the state store and goes on (spill.go); a window with spilled parts
// fires by merging them.
//
// Processing-time windows use the same aggregate: AddAt folds a whole
// batch into the window holding a given clock reading, and the caller
// fires windows by advancing the watermark with its clock.
//
// This package does not depend on exec: exec wraps an Aggregate as an
// operator. The caller computes key, argument and filter columns before
// Add, so Aggregate only reads columns.
package window
