// Package expr is strand's typed expression tree and its vectorized
// evaluator over Arrow arrays.
//
// The planner builds expressions (binding names to column indexes, inserting
// casts so that every operator's operands already have the types it needs)
// and exec evaluates them a column at a time. An Expr is immutable once
// built. The tree is deliberately small: column references, literals, casts,
// searched CASE, and calls of a closed set of functions (Fn). Everything else
// the SQL surface offers (BETWEEN, simple CASE, IN over expressions, ...) is
// rewritten into these by the planner.
//
// Contract between planner and evaluator (the evaluator may rely on it):
//   - Arithmetic (Add, Sub, Mul, Div, Mod) and comparisons take operands of
//     one type (types.Same), except timestamp ± interval (AddInterval,
//     SubInterval) and DECIMAL, whose operands may differ in precision and
//     scale: the evaluator rescales to the call's result type.
//   - Unit and mode arguments (EXTRACT's unit, FLOOR TO's unit, TRIM's mode,
//     DATE_FORMAT's pattern when constant) are string literals.
//   - Three-valued logic: And/Or follow SQL (FALSE AND NULL = FALSE, TRUE OR
//     NULL = TRUE); every other function returns NULL when any argument is
//     NULL unless its doc says otherwise (IsNull, Coalesce, Case, Concat
//     follows Flink: NULL if any argument is NULL).
package expr
