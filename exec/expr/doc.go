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
//   - An untyped NULL (types.Null) may stand wherever a value is expected;
//     it takes the type the position needs.
//
// Compile checks the contract and returns an error for anything it cannot
// evaluate; Eval never panics on a tree that compiled and a batch of the
// compiled schema.
//
// # Evaluation
//
// A Program is a tree of nodes, each owning scratch buffers it reuses from
// batch to batch, so that evaluation allocates only the result array.
// Column arguments are read in place from the Arrow buffers; the root
// writes straight into the result buffer. A literal operand stays a scalar
// (col + 1 reads no column of 1s), and subtrees of literals are folded at
// compile time. Values live in plain slices; kernels are generic over the
// Go value type and branch-free where they can be; validity is combined a
// 64-bit word at a time, and skipped when no input has NULLs.
//
// AND, OR, CASE and COALESCE evaluate lazily per row: an argument is
// computed only for the rows whose result it can still change, so that
// `b <> 0 AND a / b > 1` and `CASE WHEN b <> 0 THEN a / b END` never
// divide by zero. Those rows travel down the tree as an active mask; the
// costlier kernels (LIKE, string functions, string comparisons, casts,
// decimal arithmetic) skip the other rows entirely, which makes the mask a
// selection vector for filters. Every other function evaluates all its
// arguments.
//
// A row that cannot be evaluated fails the batch with an error wrapping
// ErrRuntime: integer division by zero, a failed CAST ("cannot cast 'abc'
// to INT"), a DECIMAL result beyond its precision. TRY_CAST gives NULL
// instead of failing.
//
// # Semantics
//
// Where Flink's behaviour is the reference:
//   - INT and BIGINT + - * wrap on overflow as Java does; / truncates toward
//     zero and MOD takes the dividend's sign. DOUBLE and FLOAT follow IEEE
//     (x / 0 is ±Infinity or NaN).
//   - ROUND is half away from zero; on DOUBLE it rounds the shortest decimal
//     that reads back as the value (BigDecimal.valueOf), so ROUND(2.675, 2)
//     is 2.68.
//   - DECIMAL results are computed exactly (256-bit intermediates) and
//     rounded half away from zero to the call's scale. A result beyond the
//     call's precision is an error, where Flink returns NULL: strand does
//     not drop values silently.
//   - CAST to an integer type truncates floats and decimals toward zero; to
//     DECIMAL it rounds half up. Out of range (or NaN) fails. Strings are
//     parsed after trimming whitespace: integers accept and drop a fraction
//     ('1.9' is 1), BOOLEAN accepts true/t/yes/y/1 and false/f/no/n/0 in
//     any case, DATE and TIMESTAMP use types.ParseDate and ParseTimestamp.
//     BOOLEAN prints TRUE/FALSE, floats as types.FormatFloat, DECIMAL with
//     all its scale digits, TIMESTAMP as yyyy-MM-dd HH:mm:ss.SSS.
//     CAST to VARCHAR(n) keeps n code points. The session time zone is UTC,
//     so TIMESTAMP and TIMESTAMP_LTZ convert without change.
//   - Strings compare by UTF-8 bytes (code point order). CHAR_LENGTH,
//     SUBSTRING and POSITION count code points. SUBSTRING follows Flink's
//     runtime (BinaryStringDataUtil.substringSQL), not standard SQL, below
//     position 1: position 0 means 1 (SUBSTRING('hello', 0, 2) is 'he'), a
//     negative position counts from the end, and a negative length gives
//     NULL. UPPER and LOWER map code point by code point (ß stays ß).
//   - LIKE: % and _ (one code point), escape character \ unless ESCAPE
//     gives another; an escape must precede %, _ or itself. Patterns are
//     compiled once (per distinct pattern when they come from the data).
//   - DATE_FORMAT takes TIMESTAMP, DATE or a STRING it parses (NULL if it
//     cannot). Date patterns, for formatting and for parsing (TO_TIMESTAMP,
//     TO_DATE, UNIX_TIMESTAMP), are DateTimeFormatter's, in the en-US locale
//     (datefmt.go lists the letters): S is a fraction of the second, as
//     there, not a count of milliseconds as in SimpleDateFormat.
//   - EXTRACT: WEEK is the ISO week, DOW 1 (Sunday) to 7, MILLISECOND the
//     milliseconds within the second, EPOCH seconds; from intervals, DAY to
//     MILLISECOND or YEAR and MONTH, signed.
//   - DATE ± INTERVAL DAY TO SECOND moves by whole days, truncated; ± an
//     INTERVAL YEAR TO MONTH clamps to the end of the month.
//   - CURRENT_TIMESTAMP and PROCTIME() read Ctx.Now once per batch.
//   - TIMESTAMPDIFF truncates toward zero; its MONTH, QUARTER and YEAR count
//     whole months as Calcite does (the largest m with t1 + m months <= t2).
//     INTERVAL * n scales the interval; the planner writes TIMESTAMPADD as
//     t + n * INTERVAL '1' unit. CAST between an integer and TIMESTAMP_LTZ
//     counts epoch seconds.
//   - Strict functions return NULL for a NULL argument, and Flink's NULL
//     for bad input: SPLIT_INDEX past the last token, LPAD/RPAD with a
//     negative length or an empty pad, REGEXP_EXTRACT without a match or
//     with a group that took no part, a bad regular expression, date
//     pattern or JSON path from the data, JSON that is not valid. The
//     exceptions follow Flink too: UNIX_TIMESTAMP gives Long.MIN_VALUE for
//     a string it cannot read, REGEXP FALSE for an empty pattern, and
//     COUNT_CHAR (Nexmark's UDF) 0 for a NULL string.
//   - Regular expressions run on Go's RE2 (regexp.go says what that means
//     for Java's syntax); JSON paths are SQL/JSON's lax and strict modes
//     without filters (json.go). UUID is random, never folded, and not
//     deterministic across a replay.
//
// # Constant arguments
//
// A literal regular expression, date pattern, JSON path or replacement is
// parsed once, when the program is compiled, and a bad one fails Compile;
// the planner checks the same literals first (CheckRegexp,
// CheckDateFormat, CheckParseFormat, CheckJSONPath, CheckRegexpGroup,
// CheckReplacement) so that the error points at the literal. One that
// comes from the data is parsed once per distinct value in a row of a
// batch, and a bad one makes the row NULL.
//
// SelectTrue and Take turn a BOOLEAN result into a selection vector and a
// filtered batch (Take handles struct, list and map columns too).
//
// # Nested values
//
// ROW, ARRAY and MAP values are read, never computed (nested.go): a
// column of a nested type is its Arrow array, and GetField (row.field,
// the field named by a string literal), ElementAt (arr[i], map[key]) and
// Cardinality read it a column at a time: a field is the struct's child
// array read in place, its NULLs the AND of the row's and the field's, so
// a NULL row has NULL fields and no row is boxed; a field selected as it
// is comes out as that child array, not copied. ElementAt gathers the
// picked elements into a flat result (a nested element is refused).
// Compile refuses any other expression whose result is nested (a CASE
// over ROWs), which the planner refuses first at its position
// (ReadsNested).
package expr
