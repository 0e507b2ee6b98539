package connector

import (
	"bytes"
	"fmt"

	"github.com/strandsql/strand/types"
)

// csvFormat holds the csv.* options shared by the decoder and the encoder.
type csvFormat struct {
	delim    byte
	quote    byte
	noQuote  bool // csv.disable-quote-character
	comments bool
	null     string
	hasNull  bool
}

// csvDecoder parses one line into one row, Flink's csv format without a
// header. Quoted fields may not span lines: the reader splits the input at
// line breaks first, which is what lets a checkpoint offset be any line
// start.
type csvDecoder struct {
	f      csvFormat
	schema types.Schema // the columns decoded
	// slot maps each field of a line to its column in schema, or to -1 for
	// a field that is not decoded.
	slot    []int
	fields  []span
	scratch []byte
}

// span locates a field in the line, without its quotes.
type span struct {
	start, end int
	escaped    bool // contains doubled quotes to undo
}

func newCSVDecoder(s types.Schema, slot []int, f csvFormat) *csvDecoder {
	return &csvDecoder{f: f, schema: s, slot: slot, fields: make([]span, 0, len(slot)+1)}
}

// skips reports whether line holds no row: an empty line, or a comment
// with csv.allow-comments.
func (f csvFormat) skips(line []byte) bool {
	return len(line) == 0 || f.comments && line[0] == '#'
}

func (d *csvDecoder) decode(line []byte, b *batch) error {
	if d.f.skips(line) {
		return nil
	}
	if msg := d.split(line); msg != "" {
		return &rowError{msg: msg}
	}
	if len(d.fields) != len(d.slot) {
		return &rowError{msg: fmt.Sprintf("expected %d fields, got %d", len(d.slot), len(d.fields))}
	}
	for k, f := range d.fields {
		i := d.slot[k]
		if i < 0 {
			continue
		}
		c := &b.cols[i]
		raw := line[f.start:f.end]
		if f.escaped {
			raw = d.unescape(raw)
		}
		if d.f.hasNull && string(raw) == d.f.null {
			c.null()
		} else if !c.parse(raw) {
			b.rollback()
			return &rowError{col: d.schema[i].Name, msg: parseError(raw, c.t)}
		}
		if msg := notNull(c); msg != "" {
			b.rollback()
			return &rowError{col: d.schema[i].Name, msg: msg}
		}
	}
	b.commit()
	return nil
}

// split finds the fields of line, RFC 4180 style: a field that starts with
// the quote character runs to the matching quote, and a doubled quote inside
// it stands for one quote. A quote inside an unquoted field is an ordinary
// character, as in Jackson's lenient reading.
func (d *csvDecoder) split(line []byte) string {
	d.fields = d.fields[:0]
	delim, quote := d.f.delim, d.f.quote
	i := 0
	for {
		if i < len(line) && line[i] == quote && !d.f.noQuote {
			f := span{start: i + 1}
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], quote)
				if k < 0 {
					return "unterminated quoted field (quoted fields cannot span lines)"
				}
				j += k
				if j+1 < len(line) && line[j+1] == quote {
					f.escaped = true
					j += 2
					continue
				}
				break
			}
			f.end = j
			d.fields = append(d.fields, f)
			i = j + 1
			if i == len(line) {
				return ""
			}
			if line[i] != delim {
				return fmt.Sprintf("unexpected %q after a closing quote", line[i])
			}
			i++
			continue
		}
		k := bytes.IndexByte(line[i:], delim)
		if k < 0 {
			d.fields = append(d.fields, span{start: i, end: len(line)})
			return ""
		}
		d.fields = append(d.fields, span{start: i, end: i + k})
		i += k + 1
	}
}

// unescape turns the doubled quotes of raw into single ones.
func (d *csvDecoder) unescape(raw []byte) []byte {
	out := d.scratch[:0]
	for i := 0; i < len(raw); i++ {
		out = append(out, raw[i])
		if raw[i] == d.f.quote {
			i++ // split guarantees the quote is doubled
		}
	}
	d.scratch = out
	return out
}
