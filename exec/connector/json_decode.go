package connector

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// jsonDecoder parses one line holding one JSON object into one row, Flink's
// json format. It is a hand-written scanner over the line's bytes: a first
// pass validates the object and records where each column's value is, a
// second appends the values. Nothing is decoded into maps or interfaces,
// and unknown fields are only validated and skipped.
type jsonDecoder struct {
	schema      types.Schema
	exact       map[string]int
	folded      map[string]int
	failMissing bool
	next        int // the column that the next field probably names
	// seen remembers, per position of a field in the line, the name last
	// found there and its column (-1 for an unknown field): lines of a file
	// usually list the same fields in the same order, so most names are
	// resolved by one comparison.
	seen    []seenField
	vals    []jsonVal
	stack   []byte
	scratch []byte
	arena   []jsonVal // the fields of the nested ROWs being read (json_nested.go)
	key     jsonVal   // the key of the object member being read
	keyA    []byte    // keys unescaped to compare them
	keyB    []byte
}

type seenField struct {
	name  string
	col   int
	plain bool // the name was written without escapes (sameName)
}

// maxSeen bounds seen, for lines with very many fields.
const maxSeen = 64

// jsonVal is where a column's value is in the line.
type jsonVal struct {
	kind       byte // 0 (absent), 'n', 's', 'd' (number), 't', 'f', 'c' (object or array)
	escaped    bool // a string with backslash escapes
	start, end int  // the value's text; a string's without its quotes
}

func newJSONDecoder(s types.Schema, failMissing bool) *jsonDecoder {
	d := &jsonDecoder{
		schema:      s,
		exact:       make(map[string]int, len(s)),
		folded:      make(map[string]int, len(s)),
		failMissing: failMissing,
		vals:        make([]jsonVal, len(s)),
	}
	for i := len(s) - 1; i >= 0; i-- {
		d.exact[s[i].Name] = i
		d.folded[strings.ToLower(s[i].Name)] = i
	}
	return d
}

// jsonSyntax is the message of a malformed line.
func jsonSyntax(what string) error { return &rowError{msg: "invalid JSON: " + what} }

func (d *jsonDecoder) decode(line []byte, b *batch) error {
	if ws(line, 0) == len(line) {
		return nil
	}
	return d.decodeAs(line, b, exec.Insert)
}

// decodeAs decodes the object on line, which is not blank, into a row of
// kind k.
func (d *jsonDecoder) decodeAs(line []byte, b *batch, k exec.RowKind) error {
	if err := d.scan(line); err != nil {
		return err
	}
	for c := range d.vals {
		if msg := d.append(line, c, &b.cols[c]); msg != "" {
			b.rollback()
			return &rowError{col: d.schema[c].Name, msg: msg}
		}
	}
	b.commitAs(k)
	return nil
}

// scan validates the object on line and records where each column's
// value is in it (vals).
func (d *jsonDecoder) scan(line []byte) error {
	i := ws(line, 0)
	if i == len(line) || line[i] != '{' {
		return jsonSyntax("expected an object")
	}
	for k := range d.vals {
		d.vals[k].kind = 0
	}
	d.next = 0
	i = ws(line, i+1)
	if i < len(line) && line[i] == '}' {
		i++
	} else {
		for field := 0; ; field++ {
			if i >= len(line) || line[i] != '"' {
				return jsonSyntax("expected a field name")
			}
			col, end := d.sameName(line, i, field)
			if end < 0 {
				kstart := i + 1
				var esc bool
				var msg string
				end, esc, msg = scanString(line, i)
				if msg != "" {
					return jsonSyntax(msg)
				}
				key := line[kstart : end-1]
				if esc {
					key = unescapeJSON(d.scratch[:0], key)
					d.scratch = key
				}
				col = d.field(key, !esc, field)
			}
			i = ws(line, end)
			if i >= len(line) || line[i] != ':' {
				return jsonSyntax("expected ':' after a field name")
			}
			i = ws(line, i+1)
			v, end, msg := d.value(line, i)
			if msg != "" {
				return jsonSyntax(msg)
			}
			if col >= 0 {
				d.vals[col] = v // a repeated field: the last one wins, as in Jackson
			}
			i = ws(line, end)
			if i < len(line) && line[i] == ',' {
				i = ws(line, i+1)
				continue
			}
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			return jsonSyntax("expected ',' or '}' after a value")
		}
	}
	if ws(line, i) != len(line) {
		return jsonSyntax("unexpected data after the object")
	}
	return nil
}

// sameName tests whether the field name starting with the quote at
// line[i] is, without escapes, the name last seen at the field-th place,
// by comparing the bytes: such a name holds no quote, backslash or
// control character, so the same bytes and a closing quote are the whole
// string token, and it needs no scan. It returns the column and the index
// after the closing quote, or end -1 when the name is not that one.
func (d *jsonDecoder) sameName(line []byte, i, field int) (col, end int) {
	if field >= len(d.seen) || !d.seen[field].plain {
		return -1, -1
	}
	sf := &d.seen[field]
	e := i + 1 + len(sf.name)
	if e >= len(line) || line[e] != '"' || string(line[i+1:e]) != sf.name {
		return -1, -1
	}
	return sf.col, e + 1
}

// field finds the column of the field-th field of a line, named key;
// plain says that the name was written without escapes.
func (d *jsonDecoder) field(key []byte, plain bool, field int) int {
	if field < len(d.seen) && d.seen[field].name == string(key) {
		return d.seen[field].col
	}
	col := d.column(key)
	if field < maxSeen {
		for len(d.seen) <= field {
			d.seen = append(d.seen, seenField{col: -1})
		}
		d.seen[field] = seenField{name: string(key), col: col, plain: plain}
	}
	return col
}

// column finds the column a field name denotes: an exact match first, then
// a case-insensitive one. Lines of one file usually list their fields in
// the same order, so the column after the previous match is tried first,
// which spares the hashing.
func (d *jsonDecoder) column(key []byte) int {
	if d.next < len(d.schema) && d.schema[d.next].Name == string(key) {
		d.next++
		return d.next - 1
	}
	if i, ok := d.exact[string(key)]; ok {
		d.next = i + 1
		return i
	}
	for _, c := range key {
		if c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			if i, ok := d.folded[strings.ToLower(string(key))]; ok {
				return i
			}
			return -1
		}
	}
	if i, ok := d.folded[string(key)]; ok {
		return i
	}
	return -1
}

// append appends column k's value; a non-empty result is the error.
func (d *jsonDecoder) append(line []byte, k int, c *column) string {
	return d.appendVal(line, d.vals[k], c)
}

// appendVal appends the value v of line to c.
func (d *jsonDecoder) appendVal(line []byte, v jsonVal, c *column) string {
	if v.kind == 0 {
		if d.failMissing {
			return "field is missing"
		}
		c.null()
		return notNull(c)
	}
	text := line[v.start:v.end]
	switch v.kind {
	case 'n':
		c.null()
	case 's':
		if v.escaped {
			text = unescapeJSON(d.scratch[:0], text)
			d.scratch = text
		}
		if !c.parse(text) {
			return parseError(text, c.t)
		}
	case 't', 'f':
		if c.t.Kind == types.Boolean {
			c.bool(v.kind == 't')
		} else if c.st != sString {
			return parseError(text, c.t)
		} else {
			c.str(text)
		}
	case 'c':
		if c.st == sNest {
			return d.appendNested(line, v, c)
		}
		if c.st != sString || !c.parse(text) {
			return parseError(text, c.t)
		}
	default: // numbers, and objects or arrays for a STRING column
		if c.st == sNest || !c.parse(text) {
			return parseError(text, c.t)
		}
	}
	return notNull(c)
}

// notNull refuses the NULL just appended to a NOT NULL column: downstream
// kernels may rely on such a column having no nulls.
func notNull(c *column) string {
	if c.t.NotNull && !c.isValid(c.n-1) {
		return "NULL value in a NOT NULL column"
	}
	return ""
}

// value scans the value at s[i] and says where it is.
func (d *jsonDecoder) value(s []byte, i int) (jsonVal, int, string) {
	if i >= len(s) {
		return jsonVal{}, i, "unexpected end of line"
	}
	switch s[i] {
	case '"':
		end, esc, msg := scanString(s, i)
		return jsonVal{kind: 's', escaped: esc, start: i + 1, end: end - 1}, end, msg
	case '{', '[':
		end, msg := d.skipNested(s, i)
		return jsonVal{kind: 'c', start: i, end: end}, end, msg
	}
	end, kind, msg := scanScalar(s, i)
	return jsonVal{kind: kind, start: i, end: end}, end, msg
}

// skipNested validates the object or array at s[i] and returns its end. It
// keeps its nesting in a stack of brackets rather than recursing, so that
// deep input cannot exhaust the goroutine stack.
func (d *jsonDecoder) skipNested(s []byte, i int) (int, string) {
	stack := d.stack[:0]
	defer func() { d.stack = stack[:0] }()
	expectValue := true
	for {
		i = ws(s, i)
		if i >= len(s) {
			return i, "unexpected end of line"
		}
		if expectValue {
			c := s[i]
			if c != '{' && c != '[' {
				var end int
				var msg string
				if c == '"' {
					end, _, msg = scanString(s, i)
				} else {
					end, _, msg = scanScalar(s, i)
				}
				if msg != "" {
					return end, msg
				}
				i, expectValue = end, false
				continue
			}
			stack = append(stack, c+2) // '{'+2 is '}', '['+2 is ']'
			i = ws(s, i+1)
			if i < len(s) && s[i] == c+2 {
				stack = stack[:len(stack)-1]
				i++
				if len(stack) == 0 {
					return i, ""
				}
				expectValue = false
				continue
			}
			if c == '{' {
				var msg string
				if i, msg = member(s, i); msg != "" {
					return i, msg
				}
			}
			continue
		}
		top := stack[len(stack)-1]
		switch s[i] {
		case ',':
			i++
			if top == '}' {
				var msg string
				if i, msg = member(s, ws(s, i)); msg != "" {
					return i, msg
				}
			}
			expectValue = true
		case top:
			stack = stack[:len(stack)-1]
			i++
			if len(stack) == 0 {
				return i, ""
			}
		default:
			return i, "expected ',' or a closing bracket"
		}
	}
}

// member scans a nested object's field name and colon.
func member(s []byte, i int) (int, string) {
	if i >= len(s) || s[i] != '"' {
		return i, "expected a field name"
	}
	end, _, msg := scanString(s, i)
	if msg != "" {
		return end, msg
	}
	i = ws(s, end)
	if i >= len(s) || s[i] != ':' {
		return i, "expected ':' after a field name"
	}
	return i + 1, ""
}

// ws skips whitespace from s[i]. Most calls find none, so a byte above
// ' ' returns at once.
func ws(s []byte, i int) int {
	for i < len(s) {
		if c := s[i]; c > ' ' || c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		i++
	}
	return i
}

// scanString scans the string starting with the quote at s[i], returning
// the index after its closing quote and whether it has escapes.
func scanString(s []byte, i int) (int, bool, string) {
	esc := false
	for j := i + 1; j < len(s); j++ {
		j = plainEnd(s, j)
		if j >= len(s) {
			break
		}
		switch c := s[j]; {
		case c == '"':
			return j + 1, esc, ""
		case c == '\\':
			esc = true
			j++
			if j >= len(s) {
				return j, esc, "unterminated string"
			}
			switch s[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s) || !isHex(s[j+1]) || !isHex(s[j+2]) || !isHex(s[j+3]) || !isHex(s[j+4]) {
					return j, esc, "invalid \\u escape"
				}
				j += 4
			default:
				return j, esc, "invalid escape"
			}
		case c < 0x20:
			return j, esc, "control character in string"
		}
	}
	return len(s), esc, "unterminated string"
}

// plainEnd returns the index of the first byte at or after s[j] that a
// string scan must look at (a quote, a backslash or a control character),
// or len(s). It tests 8 bytes at a time: for each of the three, a byte of
// the word equal to (or, for control characters, below) it sets that
// byte's top bit in the mask (the SWAR "has zero byte" test); the test has
// no false negatives, and a word it flags is finished byte by byte.
func plainEnd(s []byte, j int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(s); j += 8 {
		w := binary.LittleEndian.Uint64(s[j:])
		q := w ^ (ones * '"')
		b := w ^ (ones * '\\')
		m := ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w) & highs
		if m != 0 {
			// A borrow only flags bytes above a byte that matches, so
			// the lowest flag is the first byte to look at.
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for ; j < len(s); j++ {
		if c := s[j]; c == '"' || c == '\\' || c < 0x20 {
			return j
		}
	}
	return j
}

// scanScalar scans a number or a literal at s[i].
func scanScalar(s []byte, i int) (int, byte, string) {
	if c := s[i]; c > '9' {
		for _, lit := range [...]string{"true", "false", "null"} {
			if c == lit[0] {
				if len(s)-i >= len(lit) && string(s[i:i+len(lit)]) == lit {
					return i + len(lit), lit[0], ""
				}
				return i, 0, "invalid literal"
			}
		}
	}
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		j = digitsEnd(s, j)
	default:
		return j, 0, "invalid value"
	}
	if j < len(s) && s[j] == '.' {
		k := digitsEnd(s, j+1)
		if k == j+1 {
			return k, 0, "invalid number"
		}
		j = k
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digitsEnd(s, j)
		if k == j {
			return k, 0, "invalid number"
		}
		j = k
	}
	return j, 'd', ""
}

func digitsEnd(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

func hexVal(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		default:
			r = r<<4 | rune(c|0x20-'a'+10)
		}
	}
	return r
}

// unescapeJSON appends the contents of a string validated by scanString,
// escapes undone, to dst. A lone surrogate becomes U+FFFD, as in
// encoding/json.
func unescapeJSON(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hexVal(s[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					r2 = utf16.DecodeRune(r, hexVal(s[i+3:i+7]))
				}
				if r2 != utf8.RuneError {
					i += 6
					r = r2
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, s[i])
		}
	}
	return dst
}
