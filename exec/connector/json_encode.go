package connector

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// jsonEncoder writes one object per line, keys in column order, in the
// format jsonDecoder reads: NULL as null, numbers and decimals as JSON
// numbers, NaN and infinities as strings (as Jackson quotes them), dates and
// timestamps as SQL-format strings.
type jsonEncoder struct {
	keys [][]byte // `"name":` per column, escaped once
	// iso writes timestamps as ISO-8601, with a 'T' between the date and
	// the time (debezium-json.timestamp-format.standard).
	iso bool
}

func newJSONEncoder(names []string) *jsonEncoder {
	e := &jsonEncoder{keys: make([][]byte, len(names))}
	for i, n := range names {
		k := appendJSONString(nil, n)
		e.keys[i] = append(k, ':')
	}
	return e
}

func (e *jsonEncoder) encode(dst []byte, b arrow.RecordBatch, row int) ([]byte, error) {
	dst = append(dst, '{')
	for j, a := range b.Columns() {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e.keys[j]...)
		n := len(dst)
		dst = appendJSON(dst, a, row)
		if _, ts := a.(*array.Timestamp); ts && e.iso && len(dst) > n+11 && dst[n+11] == ' ' {
			dst[n+11] = 'T' // after the opening quote and the date
		}
	}
	return append(dst, '}', '\n'), nil
}

// appendJSON appends the value a[row] as JSON.
func appendJSON(dst []byte, a arrow.Array, row int) []byte {
	if a.IsNull(row) {
		return append(dst, "null"...)
	}
	switch a := a.(type) {
	case *array.String:
		dst = appendJSONString(dst, a.Value(row))
	case *array.Boolean, *array.Int32, *array.Int64, *array.Decimal128:
		dst = appendValue(dst, a, row, true)
	case *array.Struct, *array.List, *array.Map:
		dst = appendJSONNested(dst, a, row)
	default:
		// Floats too: NaN and Infinity are not JSON numbers, and a
		// finite one is quoted only if it needs to be.
		n := len(dst)
		dst = appendValue(dst, a, row, true)
		if !finiteNumber(a, dst[n:]) {
			dst = append(dst, '"')
			copy(dst[n+1:], dst[n:len(dst)-1])
			dst[n] = '"'
			dst = append(dst, '"')
		}
	}
	return dst
}

// finiteNumber reports whether text, the rendering of a float column, is a
// JSON number; any other column's text is a string.
func finiteNumber(a arrow.Array, text []byte) bool {
	switch a.(type) {
	case *array.Float32, *array.Float64:
		c := text[len(text)-1]
		return c >= '0' && c <= '9'
	}
	return false
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, other bytes as they are, except that invalid
// UTF-8 becomes U+FFFD so that the output is valid JSON.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, "\ufffd"...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
