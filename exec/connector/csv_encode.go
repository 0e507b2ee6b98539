package connector

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// csvEncoder writes rows in the format csvDecoder reads. It quotes a field
// only when it must: when it contains the delimiter, the quote character or
// a line break, when it is an empty string (so that it cannot be mistaken
// for a blank line), and when it is a first field starting with '#' (so
// that csv.allow-comments cannot drop it). A value with a line break is an
// error: quoted fields cannot span lines.
type csvEncoder struct {
	f       csvFormat
	names   []string
	scratch []byte
	// special marks the bytes that make a field need quotes (the
	// delimiter, line breaks and, unless quoting is disabled, the quote);
	// plain says no rendering of a non-string value has any of them, so
	// that only strings are scanned. Both are set on first use.
	special [256]bool
	plain   bool
	ready   bool
}

// nonString holds every byte appendValue writes for a non-string value:
// numbers, NaN and [-]Infinity, true and false, dates, timestamps with
// their ' ', ':' and an LTZ's 'Z'.
const nonString = "0123456789-.: EZNaInfitytruefals"

func (e *csvEncoder) init() {
	e.special[e.f.delim], e.special['\n'], e.special['\r'] = true, true, true
	if !e.f.noQuote {
		e.special[e.f.quote] = true
	}
	e.plain = true
	for i := range len(nonString) {
		if e.special[nonString[i]] {
			e.plain = false
		}
	}
	e.ready = true
}

func (e *csvEncoder) encode(dst []byte, b arrow.RecordBatch, row int) ([]byte, error) {
	if !e.ready {
		e.init()
	}
	for j, a := range b.Columns() {
		if j > 0 {
			dst = append(dst, e.f.delim)
		}
		if a.IsNull(row) {
			if e.f.hasNull {
				dst = append(dst, e.f.null...)
			} else if len(e.names) == 1 {
				dst = append(dst, e.f.quote, e.f.quote) // never a blank line
			}
			continue
		}
		n := len(dst)
		dst = appendValue(dst, a, row, true)
		v := dst[n:]
		_, isStr := a.(*array.String)
		if !isStr && e.plain || !e.needsQuote(v, isStr, j == 0) {
			continue
		}
		if bytes.IndexByte(v, '\n') >= 0 {
			// The reader splits the input at line breaks before it
			// parses fields; failing here beats writing a file that
			// strand cannot read back.
			return dst[:n], fmt.Errorf("column '%s': value %q contains a line break, which the csv format cannot hold (use json)", e.names[j], v)
		}
		if e.f.noQuote {
			return dst[:n], fmt.Errorf("column '%s': value %q contains the field delimiter, and quoting is disabled", e.names[j], v)
		}
		e.scratch = append(e.scratch[:0], v...)
		dst = append(dst[:n], e.f.quote)
		for _, c := range e.scratch {
			if c == e.f.quote {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, e.f.quote)
	}
	return append(dst, '\n'), nil
}

func (e *csvEncoder) needsQuote(v []byte, isStr, first bool) bool {
	if len(v) == 0 {
		return isStr
	}
	if first && v[0] == '#' {
		return true
	}
	for _, c := range v {
		if e.special[c] {
			return true
		}
	}
	return false
}
