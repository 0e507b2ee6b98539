package connector

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/types"
)

// appendValue appends the text of the non-null value a[i] as the print
// sink, CSV and JSON show it: booleans as true/false, floats as Java
// prints them, timestamps as yyyy-MM-dd HH:mm:ss.SSS (with a 'Z' after a
// TIMESTAMP_LTZ if zoned is set), dates as yyyy-MM-dd. Intervals are Arrow
// integers indistinguishable from INT and BIGINT, so they show as their
// millisecond or month count. It switches on the array's concrete type
// rather than boxing the value.
func appendValue(dst []byte, a arrow.Array, i int, zoned bool) []byte {
	switch a := a.(type) {
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10)
	case *array.Float32:
		return types.AppendFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return types.AppendFloat(dst, a.Value(i), 64)
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return append(dst, types.FormatDecimal(a.Value(i), int(scale))...)
	case *array.String:
		return append(dst, a.Value(i)...)
	case *array.Date32:
		return types.AppendDate(dst, int32(a.Value(i)))
	case *array.Timestamp:
		ts := a.DataType().(*arrow.TimestampType)
		ms := int64(a.Value(i))
		switch ts.Unit {
		case arrow.Second:
			ms *= 1000
		case arrow.Microsecond:
			ms = types.FloorDiv(ms, 1000)
		case arrow.Nanosecond:
			ms = types.FloorDiv(ms, 1_000_000)
		}
		dst = types.AppendTimestamp(dst, ms)
		if zoned && ts.TimeZone != "" {
			dst = append(dst, 'Z')
		}
		return dst
	case *array.Null:
		return append(dst, "null"...)
	case *array.Struct, *array.List, *array.Map:
		return appendNested(dst, a, i)
	}
	return append(dst, a.ValueStr(i)...)
}
