package types

import (
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Value is one scalar of a known type: a literal, a constant folded by the
// planner, or a value rendered for a user. It is never used per row on a hot
// path; kernels work on Arrow arrays.
//
// Which field holds the value depends on Type.Kind:
//
//	BOOLEAN                       Bool
//	INT, BIGINT, DATE (days), TIMESTAMP*, INTERVAL*   Int
//	FLOAT, DOUBLE                 Float
//	DECIMAL                       Dec (unscaled, scale is Type.Scale)
//	STRING                        Str
type Value struct {
	Type   Type
	IsNull bool
	Bool   bool
	Int    int64
	Float  float64
	Dec    decimal128.Num
	Str    string
}

// NullOf returns a NULL of type t.
func NullOf(t Type) Value { return Value{Type: t.Nullable(), IsNull: true} }

// BoolValue returns a non-null BOOLEAN.
func BoolValue(b bool) Value { return Value{Type: TBoolean.WithNotNull(true), Bool: b} }

// IntValue returns a non-null value of integral or time kind t.
func IntValue(t Type, v int64) Value { return Value{Type: t.WithNotNull(true), Int: v} }

// FloatValue returns a non-null FLOAT or DOUBLE.
func FloatValue(t Type, v float64) Value { return Value{Type: t.WithNotNull(true), Float: v} }

// StringValue returns a non-null STRING.
func StringValue(s string) Value { return Value{Type: TString.WithNotNull(true), Str: s} }

// DecimalValue returns a non-null DECIMAL(p, s) with unscaled value n.
func DecimalValue(p, s int, n decimal128.Num) Value {
	return Value{Type: DecimalOf(p, s).WithNotNull(true), Dec: n}
}

// String renders v as Flink's print sink and CSV output do: timestamps as
// yyyy-MM-dd HH:mm:ss.SSS, NULL as "NULL".
func (v Value) String() string {
	if v.IsNull {
		return "NULL"
	}
	switch v.Type.Kind {
	case Boolean:
		if v.Bool {
			return "TRUE"
		}
		return "FALSE"
	case Int, BigInt:
		return strconv.FormatInt(v.Int, 10)
	case Float:
		return FormatFloat(v.Float, 32)
	case Double:
		return FormatFloat(v.Float, 64)
	case Decimal:
		return FormatDecimal(v.Dec, v.Type.Scale)
	case String:
		return v.Str
	case Date:
		return FormatDate(int32(v.Int))
	case Timestamp, TimestampLTZ:
		return FormatTimestamp(v.Int)
	case IntervalDayTime:
		return FormatIntervalDayTime(v.Int)
	case IntervalYearMonth:
		return FormatIntervalYearMonth(int32(v.Int))
	}
	return fmt.Sprintf("<%v>", v.Type)
}

// FormatFloat renders a float as Java's Double.toString would for the values
// users see most: integral values keep a ".0", NaN and infinities are spelled
// out.
func FormatFloat(f float64, bits int) string {
	return string(AppendFloat(nil, f, bits))
}

// AppendFloat appends the rendering of FormatFloat to dst without
// allocating.
func AppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, bits)
	for _, c := range dst[n:] {
		switch c {
		case '.', 'e', 'n', 'I':
			return dst
		}
	}
	return append(dst, '.', '0')
}

// FormatDecimal renders an unscaled decimal with the given scale.
func FormatDecimal(n decimal128.Num, scale int) string {
	return n.ToString(int32(scale))
}

// ParseDecimal parses s as DECIMAL(p, sc), rounding half up to the scale.
func ParseDecimal(s string, p, sc int) (decimal128.Num, error) {
	if !decimalText(s) {
		return decimal128.Num{}, fmt.Errorf("cannot parse %q as DECIMAL(%d, %d)", s, p, sc)
	}
	n, err := decimal128.FromString(s, int32(p), int32(sc))
	if err != nil {
		return decimal128.Num{}, fmt.Errorf("cannot parse %q as DECIMAL(%d, %d)", s, p, sc)
	}
	return n, nil
}

// decimalText reports whether s is a plain decimal number (sign, digits,
// point, exponent): Arrow's parser goes through big.Float, which accepts
// "Inf" and then fails in ways that are not errors.
func decimalText(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digits > 0
}
