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
//     FLOAT and DOUBLE sum exactly and round once (below).
//   - MIN and MAX take any orderable type; floats order NaN above every
//     number and -0.0 equal to 0.0.
//   - An aggregate over no non-NULL input is NULL, except COUNT.
//   - Sums are exact (wide.go): a SUM that does not fit its type fails
//     with ErrOverflow, where Flink wraps integers around as Java does and
//     makes a DECIMAL NULL; an AVG fails only if the average does not fit.
//     Because sums are exact, whether a result fits depends only on the
//     rows, never on the order of updates and merges, which differs with
//     the parallelism.
//   - FLOAT and DOUBLE sums are exact too (fsum.go): every double is an
//     integer multiple of 2^-1074, so the accumulator keeps the sum as a
//     fixed-point integer (a Kulisch accumulator: a three-limb window of
//     it per group, the full 2176 bits aside for a group whose values
//     span more), and the result is that sum rounded once to nearest,
//     ties to even: SUM(DOUBLE) to DOUBLE, SUM(FLOAT) to FLOAT, AVG the
//     DOUBLE sum over the count. So a result depends only on the
//     multiset of values, never on their order nor on how partial sums
//     were merged (parallelism, slices of sliding windows, merged
//     sessions, spills, restores at another parallelism), and it is the
//     correctly rounded sum: 1e16 + 0.1 - 1e16 is 0.1, where adding in
//     arrival order (Flink) gives 0 or 0.1, depending on the order. It
//     differs from such engines' results in the last bits. NaN and the
//     infinities are counted apart: the sum is NaN if a NaN or both
//     infinities are among the values, else the infinity there is; a
//     finite sum beyond the double range is an infinity, as IEEE
//     addition overflows (but MAX + MAX - MAX is MAX, not +Inf), and a
//     zero sum is +0 (as before, a sum of -0.0 values is +0). The state
//     of a sum that is a double is written as before (a count and the
//     double), any other with a marker; state written before sums were
//     exact reads as a sum of its one double. The marked encoding keeps
//     a header bit for a later format, which Get refuses with
//     ErrLaterFormat. A strand from before exact sums checks neither
//     and would misread an exact sum, so an operator that checkpoints
//     a FLOAT or DOUBLE SUM or AVG marks its state fingerprint with
//     ExactFloatSums (FingerprintMark, fingerprint.go): that strand
//     refuses such state, and this one restores state with the mark or
//     without it (exec's restore).
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
// keep the count even where the result does not need it; because a
// FLOAT or DOUBLE sum is exact, retracting a value returns it exactly to
// the state before the value was added, NaN and infinities included
// (Flink subtracts in floating point, and rounding may leave a trace).
// MIN and MAX cannot retract from one
// value: NewRetracting gives them a multiset (multiset.go), the group's
// distinct values in order with their multiplicities, as Flink's
// MinWithRetractAggFunction keeps a map view. The append-only
// accumulators and their encoding are unchanged.
//
// This package imports only memseg and types (DESIGN.md).
package agg
