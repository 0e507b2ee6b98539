// Package agg holds strand's accumulators: the state of an aggregate
// function (COUNT, SUM, MIN, MAX, AVG) for many groups at once, with the
// operations every aggregating operator needs: create (New, Grow), update
// (Update), merge (Merge), take the result (AppendTo), and serialize (Put,
// Get) for checkpoints and spills. The window aggregate and the
// non-windowed group aggregate (groupagg) use the same accumulators, so
// that an aggregate means the same in both.
//
// Semantics, as in Flink SQL:
//   - COUNT(*) counts rows, COUNT(x) non-NULL values; both are BIGINT NOT
//     NULL and 0 over no rows.
//   - SUM of INT is INT and of BIGINT is BIGINT; AVG of an integral type
//     truncates to that type, as Flink does; SUM and AVG of DECIMAL(p, s)
//     are DECIMAL(38, s) and DECIMAL(38, max(s, 6)), AVG rounding half up.
//     FLOAT and DOUBLE sum in float64.
//   - MIN and MAX take any orderable type; floats order NaN above every
//     number and -0.0 equal to 0.0.
//   - An aggregate over no non-NULL input is NULL, except COUNT.
//   - Sums are exact (wide.go): a SUM that does not fit its type fails
//     with ErrOverflow, where Flink wraps integers around as Java does and
//     makes a DECIMAL NULL; an AVG fails only if the average does not fit.
//     Because sums are exact, whether a result fits depends only on the
//     rows, never on the order of updates and merges, which differs with
//     the parallelism.
//
// DISTINCT and FILTER are the caller's: it passes Update only the rows a
// FILTER keeps and, for DISTINCT, only the first row of each value per
// group (the window aggregate keeps the values seen in a hash table; the
// group aggregate counts each value's rows, and retracts a value when its
// count drops to 0).
//
// Layout: an Acc keeps one slot per group number in typed slices (a
// count, a wide sum, a value and a seen flag), never a value per group
// behind an interface, so that Update is a loop over a batch's rows
// without a call per row. Size and Heap tell the caller what to charge to
// its memory budget.
//
// Retraction. For a changelog input, NewRetracting returns accumulators
// that are also Retracters: Retract(col, rows, groups) undoes Update for
// rows taken back upstream (-U, -D). COUNT and the sums retract on the
// state they keep (a count of rows and an exact sum), which is why they
// keep the count even where the result does not need it; a FLOAT or
// DOUBLE sum subtracts, so rounding may leave a trace until the group's
// last row is gone, as in Flink. MIN and MAX cannot retract from one
// value: NewRetracting gives them a multiset (multiset.go), the group's
// distinct values in order with their multiplicities, as Flink's
// MinWithRetractAggFunction keeps a map view. The append-only
// accumulators and their encoding are unchanged.
//
// This package imports only memseg and types (DESIGN.md).
package agg
