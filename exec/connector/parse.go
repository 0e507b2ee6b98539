package connector

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// parse appends the value that the text b denotes to column c. It is shared
// by the CSV and JSON decoders (JSON numbers and strings arrive here as
// their text). Non-string values may be surrounded by blanks, as Flink
// trims them; a blank non-string value is NULL. Invalid UTF-8 in a string
// becomes U+FFFD. It returns false if b is
// not a value of c's type; nothing has been appended then.
func (c *column) parse(b []byte) bool {
	if c.st == sString {
		if !utf8.Valid(b) {
			// Arrow strings are UTF-8; like a Java reader decoding the
			// file, replace what is not.
			b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
		}
		c.str(b)
		return true
	}
	b = trim(b)
	if len(b) == 0 {
		c.null()
		return true
	}
	switch c.t.Kind {
	case types.Boolean:
		switch {
		case equalFold(b, "true"):
			c.bool(true)
		case equalFold(b, "false"):
			c.bool(false)
		default:
			return false
		}
	case types.Int, types.IntervalYearMonth:
		v, ok := parseInt(b)
		if !ok || v < math.MinInt32 || v > math.MaxInt32 {
			return false
		}
		c.int32(int32(v))
	case types.BigInt, types.IntervalDayTime:
		v, ok := parseInt(b)
		if !ok {
			return false
		}
		c.int64(v)
	case types.Float:
		v, ok := fastFloat(b, 32)
		if !ok {
			v, ok = parseFloat(b, 32)
		}
		if !ok {
			return false
		}
		c.float32(float32(v))
	case types.Double:
		v, ok := fastFloat(b, 64)
		if !ok {
			v, ok = parseFloat(b, 64)
		}
		if !ok {
			return false
		}
		c.float64(v)
	case types.Decimal:
		if !decimalText(b) {
			return false
		}
		v, err := types.ParseDecimal(string(b), c.t.Precision, c.t.Scale)
		if err != nil {
			return false
		}
		c.decimal(v)
	case types.Date:
		v, ok := types.ParseDate(string(b))
		if !ok {
			return false
		}
		c.int32(v)
	case types.Timestamp, types.TimestampLTZ:
		v, ok := c.day.fastTimestamp(b)
		if !ok {
			v, ok = parseTimestamp(b)
		}
		if !ok {
			return false
		}
		c.int64(v)
	default:
		return false
	}
	return true
}

// parseError is the message for a value that parse refused.
func parseError(b []byte, t types.Type) string {
	return fmt.Sprintf("cannot parse %q as %s", b, t.Plain().Nullable())
}

func trim(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range b {
		if b[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// parseInt parses an optionally signed decimal integer, as Java's
// Long.parseLong does, without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := false
	switch b[0] {
	case '-':
		neg = true
		b = b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 || u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// parseFloat accepts what Java's Double.parseDouble accepts for the usual
// spellings, including NaN and Infinity; like Java, a value too large for
// the type is infinite rather than an error.
func parseFloat(b []byte, bits int) (float64, bool) {
	// strconv also accepts "0x" hex floats and "_" separators after a base
	// prefix; Java accepts hex floats too, so only '_' is refused here.
	for _, c := range b {
		if c == '_' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return v, true
}

// decimalText reports whether b is a plain decimal number
// ([+-]digits[.digits][e[+-]digits]). The Arrow decimal parser accepts more
// (Inf, hex) and cannot cope with all of it, and a huge exponent would make
// it compute a huge power of ten.
func decimalText(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	digits := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 || digits > 80 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		exp, expDigits := 0, 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && exp < 1000 {
			exp = exp*10 + int(b[i]-'0')
			expDigits++
			i++
		}
		if expDigits == 0 || exp >= 1000 {
			return false
		}
	}
	return i == len(b)
}

// parseTimestamp accepts types.ParseTimestamp's forms ("yyyy-MM-dd
// HH:mm:ss[.fraction]", with ' ' or 'T') optionally followed by 'Z' or a
// ±HH:MM offset, which is applied: values are UTC.
func parseTimestamp(b []byte) (int64, bool) {
	var off int64
	switch n := len(b); {
	case n > 10 && (b[n-1] == 'Z' || b[n-1] == 'z'):
		b = b[:n-1]
	case n > 19 && (b[n-6] == '+' || b[n-6] == '-') && b[n-3] == ':':
		h, ok1 := twoDigits(b[n-5:])
		m, ok2 := twoDigits(b[n-2:])
		if !ok1 || !ok2 || h > 23 || m > 59 {
			return 0, false
		}
		off = int64(h)*types.MsHour + int64(m)*types.MsMinute
		if b[n-6] == '-' {
			off = -off
		}
		b = b[:n-6]
	}
	v, ok := types.ParseTimestamp(string(b))
	return v - off, ok
}

func twoDigits(b []byte) (int, bool) {
	d0, d1 := b[0]-'0', b[1]-'0'
	if d0 > 9 || d1 > 9 {
		return 0, false
	}
	return int(d0)*10 + int(d1), true
}
