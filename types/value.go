package types

import (
	"bytes"
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

// FormatFloat renders a float as Java's Double.toString (Float.toString
// for bits 32) does, which is what Flink prints: the shortest digits that
// round-trip, in plain notation with at least one fractional digit when
// 1e-3 <= |f| < 1e7 (1234567.0, 0.001), otherwise as d.dddE[-]n (1.0E7,
// 1.0E-4); NaN, Infinity and -Infinity spelled out.
func FormatFloat(f float64, bits int) string {
	return string(AppendFloat(nil, f, bits))
}

// AppendFloat appends the rendering of FormatFloat to dst.
func AppendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if abs := math.Abs(f); abs >= 1e-3 && abs < 1e7 {
		if bits == 64 {
			if out, ok := appendFewDecimals(dst, f); ok {
				return out
			}
		}
		// Plain notation: strconv's shortest digits laid out without an
		// exponent are Java's, but for the ".0" Java adds to a whole number.
		n := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, bits)
		if bytes.IndexByte(dst[n:], '.') < 0 {
			dst = append(dst, '.', '0')
		}
		return dst
	}
	// Shortest round-trip digits and decimal exponent: d.ddd × 10^exp.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	if e[0] == '-' {
		e = e[1:]
		dst = append(dst, '-')
	}
	mant, expText, _ := bytes.Cut(e, []byte{'e'})
	exp, _ := strconv.Atoi(string(expText))
	dst = append(dst, mant[0], '.')
	if len(mant) > 2 {
		dst = append(dst, mant[2:]...) // the digits after "d."
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// appendFewDecimals writes f, 1e-3 <= |f| < 1e7, when it is the double
// nearest to k / 10^s for an integer k and s <= 3, as money and measures
// usually are. That decimal has at most 10 significant digits, and two
// decimals of at most 15 digits never round to the same double, so it is
// the shortest that round-trips, strconv's (and Java's) choice, found
// without strconv's digit generation.
func appendFewDecimals(dst []byte, f float64) ([]byte, bool) {
	neg := f < 0
	if neg {
		f = -f
	}
	for s, p := range [...]float64{1, 10, 100, 1000} {
		k := math.Round(f * p)
		if k/p != f {
			continue
		}
		if neg {
			dst = append(dst, '-')
		}
		n := uint64(k)
		pow := uint64(p)
		dst = strconv.AppendUint(dst, n/pow, 10)
		dst = append(dst, '.')
		frac := n % pow
		if s == 0 || frac == 0 {
			return append(dst, '0'), true
		}
		var buf [3]byte
		for i := s - 1; i >= 0; i-- {
			buf[i] = byte('0' + frac%10)
			frac /= 10
		}
		digits := buf[:s]
		for digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		return append(dst, digits...), true
	}
	return dst, false
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
