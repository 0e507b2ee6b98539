// Package types defines strand's SQL types, their Arrow representation, and
// the scalar values used for literals and constants.
//
// Every layer that reasons about SQL types shares this package: the planner
// binds and checks expressions with it, exec maps types to Arrow arrays, and
// the connectors parse and format values with it. It imports no other strand
// package.
//
// Physical representation (one Arrow type per SQL type, chosen once here):
//
//	BOOLEAN          arrow.Boolean
//	INT              arrow.Int32
//	BIGINT           arrow.Int64
//	FLOAT            arrow.Float32
//	DOUBLE           arrow.Float64
//	DECIMAL(p, s)    arrow.Decimal128(p, s), p <= 38
//	STRING, VARCHAR  arrow.String (UTF-8)
//	DATE             arrow.Date32 (days since the epoch)
//	TIMESTAMP(p)     arrow.Timestamp(ms), no zone
//	TIMESTAMP_LTZ(p) arrow.Timestamp(ms, "UTC")
//	INTERVAL DAY TO SECOND   arrow.Int64 milliseconds
//	INTERVAL YEAR TO MONTH   arrow.Int32 months
//	ROW<f t, ...>    arrow.Struct of the fields
//	ARRAY<t>         arrow.List of t
//	MAP<k, v>        arrow.Map of k and v (keys never NULL)
//
// A nested type's parts are in an interned *Nest (nested.go), so Type
// stays a small comparable value: == is true exactly when two types are
// the same, however deep, and a Type can key a map. Nullability is kept
// per field, element, key and value; Same ignores it at every level.
//
// Timestamps are kept at millisecond precision whatever p says: Flink's event
// time is milliseconds, and one fixed unit keeps every time kernel a plain
// int64 operation. A TIMESTAMP(6) or (9) value read from text is truncated to
// milliseconds; the declared precision is kept for DESCRIBE. The session time
// zone is UTC, so TIMESTAMP_LTZ values print as UTC wall-clock time.
package types
