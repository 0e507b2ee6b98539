package expr

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// JSON_VALUE and JSON_QUERY read a JSON text with an SQL/JSON path:
//
//	[lax | strict] $ ( .name | ."name" | .* | ['name'] | ["name"] | [n] | [*] )*
//
// The path is parsed once (a literal path is refused at plan time if bad);
// the document is scanned in place, without building a tree, and must be
// valid JSON as a whole. Without ON EMPTY and ON ERROR clauses (which
// strand does not parse yet), an empty result and an error are both NULL,
// as in Flink. In lax mode (the default) a member step applied to an
// array applies to each of its elements, and a wildcard may give several
// items; strict mode does neither.
//
// JSON_VALUE gives a scalar as STRING: a string unescaped, a number or a
// boolean as written; an object, an array, JSON null or several items give
// NULL. JSON_QUERY gives an object or an array as JSON text without
// insignificant white space (several items become one array); a scalar
// gives NULL (Flink's WITHOUT ARRAY WRAPPER).

// jstep is one step of a JSON path.
type jstep struct {
	name  string // member name
	index int    // array index, when array
	array bool
	any   bool // .* or [*]
}

type jpath struct {
	strict bool
	steps  []jstep
}

// CheckJSONPath returns the error JSON_VALUE and JSON_QUERY would meet on
// path p, so that a literal path is refused when the query is planned.
func CheckJSONPath(p string) error {
	_, err := parseJSONPath(p)
	return err
}

func parseJSONPath(p string) (*jpath, error) {
	jp := &jpath{}
	s := trimSpaceStr(p)
	switch {
	case hasWord(s, "strict"):
		jp.strict, s = true, trimSpaceStr(s[6:])
	case hasWord(s, "lax"):
		s = trimSpaceStr(s[3:])
	}
	bad := func(why string) error { return fmt.Errorf("invalid JSON path %q: %s", p, why) }
	if len(s) == 0 || s[0] != '$' {
		return nil, bad("it must start with $")
	}
	s = s[1:]
	for len(s) > 0 {
		switch s[0] {
		case ' ', '\t', '\n', '\r':
			s = s[1:]
		case '.':
			s = s[1:]
			switch {
			case len(s) > 0 && s[0] == '*':
				jp.steps, s = append(jp.steps, jstep{any: true}), s[1:]
			case len(s) > 0 && (s[0] == '"' || s[0] == '\''):
				name, rest, err := quotedName(s)
				if err != nil {
					return nil, bad(err.Error())
				}
				jp.steps, s = append(jp.steps, jstep{name: name}), rest
			case len(s) > 0 && s[0] == '[': // Flink's $.['a b'] form
			default:
				n := 0
				for n < len(s) && (s[n] == '_' || s[n] == '$' || s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= utf8.RuneSelf) {
					n++
				}
				if n == 0 {
					return nil, bad("a member name must follow '.'")
				}
				jp.steps, s = append(jp.steps, jstep{name: s[:n]}), s[n:]
			}
		case '[':
			s = trimSpaceStr(s[1:])
			var st jstep
			switch {
			case len(s) > 0 && s[0] == '*':
				st, s = jstep{any: true, array: true}, s[1:]
			case len(s) > 0 && (s[0] == '"' || s[0] == '\''):
				name, rest, err := quotedName(s)
				if err != nil {
					return nil, bad(err.Error())
				}
				st, s = jstep{name: name}, rest
			default:
				n := 0
				for n < len(s) && s[n] >= '0' && s[n] <= '9' {
					n++
				}
				i, err := strconv.Atoi(s[:n])
				if n == 0 || err != nil {
					return nil, bad("an array index must be a non-negative integer, '*' or a quoted name")
				}
				st, s = jstep{index: i, array: true}, s[n:]
			}
			s = trimSpaceStr(s)
			if len(s) == 0 || s[0] != ']' {
				return nil, bad("missing ']'")
			}
			jp.steps, s = append(jp.steps, st), s[1:]
		default:
			return nil, bad(fmt.Sprintf("unexpected %q", s[0]))
		}
	}
	return jp, nil
}

func hasWord(s, w string) bool {
	return len(s) > len(w) && s[:len(w)] == w && (s[len(w)] == ' ' || s[len(w)] == '\t')
}

func trimSpaceStr(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// quotedName reads 'name' or "name" (” and \' stand for a quote).
func quotedName(s string) (string, string, error) {
	q := s[0]
	var b []byte
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			b = append(b, s[i])
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i++
			b = append(b, q)
		case s[i] == q:
			return string(b), s[i+1:], nil
		default:
			b = append(b, s[i])
		}
	}
	return "", "", fmt.Errorf("unterminated quoted name")
}

// --- scanning JSON in place ---

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i] (after
// white space), or -1 if it is not valid JSON. Nesting is bounded so that
// a deep document cannot exhaust the stack.
func skipValue(b []byte, i, depth int) int {
	i = skipWS(b, i)
	if i >= len(b) || depth > 1000 {
		return -1
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == close {
			return i + 1
		}
		for {
			if c == '{' {
				i = skipWS(b, i)
				if i = skipString(b, i); i < 0 {
					return -1
				}
				if i = skipWS(b, i); i >= len(b) || b[i] != ':' {
					return -1
				}
				i++
			}
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(b, i)
			switch {
			case i < len(b) && b[i] == ',':
				i++
			case i < len(b) && b[i] == close:
				return i + 1
			default:
				return -1
			}
		}
	case c == '"':
		return skipString(b, i)
	case c == 't':
		return word(b, i, "true")
	case c == 'f':
		return word(b, i, "false")
	case c == 'n':
		return word(b, i, "null")
	default:
		return skipNumber(b, i)
	}
}

func word(b []byte, i int, w string) int {
	if bytes.HasPrefix(b[i:], []byte(w)) {
		return i + len(w)
	}
	return -1
}

func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				if _, err := strconv.ParseUint(string(b[i+1:i+5]), 16, 16); err != nil {
					return -1
				}
				i += 4
			default:
				return -1
			}
		case c < 0x20:
			return -1
		}
	}
	return -1
}

func skipNumber(b []byte, i int) int {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	if i == start {
		return -1
	}
	return i
}

// unquote appends the value of the JSON string b (quotes included) to d.
func unquote(d, b []byte) []byte {
	b = b[1 : len(b)-1]
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			d = append(d, c)
			continue
		}
		i++
		switch b[i] {
		case 'b':
			d = append(d, '\b')
		case 'f':
			d = append(d, '\f')
		case 'n':
			d = append(d, '\n')
		case 'r':
			d = append(d, '\r')
		case 't':
			d = append(d, '\t')
		case 'u':
			r, _ := strconv.ParseUint(string(b[i+1:i+5]), 16, 16)
			i += 4
			if utf16.IsSurrogate(rune(r)) && i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
				if r2, err := strconv.ParseUint(string(b[i+3:i+7]), 16, 16); err == nil {
					if p := utf16.DecodeRune(rune(r), rune(r2)); p != utf8.RuneError {
						d = utf8.AppendRune(d, p)
						i += 6
						continue
					}
				}
			}
			d = utf8.AppendRune(d, rune(r))
		default:
			d = append(d, b[i])
		}
	}
	return d
}

// eval appends to items the [start, end) spans of the values that steps
// select in the valid JSON value at b[i:].
func (jp *jpath) eval(b []byte, i int, steps []jstep, items [][2]int) [][2]int {
	i = skipWS(b, i)
	if len(steps) == 0 {
		return append(items, [2]int{i, skipValue(b, i, 0)})
	}
	st := steps[0]
	switch {
	case b[i] == '{' && !st.array:
		jp.members(b, i, func(key []byte, v int) {
			if st.any || keyIs(key, st.name) {
				items = jp.eval(b, v, steps[1:], items)
			}
		})
	case b[i] == '[' && st.array:
		k := 0
		jp.elements(b, i, func(v int) {
			if st.any || k == st.index {
				items = jp.eval(b, v, steps[1:], items)
			}
			k++
		})
	case b[i] == '[' && !jp.strict: // lax: a member step applies to each element
		jp.elements(b, i, func(v int) {
			if j := skipWS(b, v); b[j] == '{' {
				items = jp.eval(b, j, steps, items)
			}
		})
	}
	return items
}

func (jp *jpath) members(b []byte, i int, f func(key []byte, v int)) {
	i = skipWS(b, i+1)
	if b[i] == '}' {
		return
	}
	for {
		i = skipWS(b, i)
		end := skipString(b, i)
		key := b[i:end]
		i = skipWS(b, end) + 1 // :
		f(key, i)
		i = skipWS(b, skipValue(b, i, 0))
		if b[i] == '}' {
			return
		}
		i++ // ,
	}
}

func (jp *jpath) elements(b []byte, i int, f func(v int)) {
	i = skipWS(b, i+1)
	if b[i] == ']' {
		return
	}
	for {
		f(i)
		i = skipWS(b, skipValue(b, i, 0))
		if b[i] == ']' {
			return
		}
		i = skipWS(b, i+1)
	}
}

// keyIs compares a JSON string key (quoted, maybe escaped) with name.
func keyIs(key []byte, name string) bool {
	in := key[1 : len(key)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return string(in) == name
	}
	return string(unquote(nil, key)) == name
}

// compact appends the JSON value b without insignificant white space.
func compact(d, b []byte) []byte {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			end := skipString(b, i)
			d = append(d, b[i:end]...)
			i = end - 1
		default:
			d = append(d, c)
		}
	}
	return d
}

// query evaluates the path over doc; it appends the result to d, or
// reports false for NULL.
func (jp *jpath) query(d, doc []byte, value bool, items [][2]int) ([]byte, [][2]int, bool) {
	if end := skipValue(doc, 0, 0); end < 0 || skipWS(doc, end) != len(doc) {
		return d, items, false // not JSON: an error, NULL
	}
	items = jp.eval(doc, 0, jp.steps, items[:0])
	if value {
		if len(items) != 1 {
			return d, items, false
		}
		v := doc[items[0][0]:items[0][1]]
		switch v[0] {
		case '{', '[', 'n':
			return d, items, false
		case '"':
			return unquote(d, v), items, true
		}
		return append(d, v...), items, true
	}
	switch {
	case len(items) == 0:
		return d, items, false
	case len(items) == 1 && (doc[items[0][0]] == '{' || doc[items[0][0]] == '['):
		return compact(d, doc[items[0][0]:items[0][1]]), items, true
	case len(items) == 1 && !jp.wild():
		return d, items, false // a scalar needs an array wrapper
	}
	d = append(d, '[')
	for k, it := range items {
		if k > 0 {
			d = append(d, ',')
		}
		d = compact(d, doc[it[0]:it[1]])
	}
	return append(d, ']'), items, true
}

func (jp *jpath) wild() bool {
	for _, s := range jp.steps {
		if s.any {
			return true
		}
	}
	return false
}

func (c *compiler) jsonFunc(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 2, 2)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	var fixed *jpath
	if p, ok := litString(e.Args[1]); ok {
		if fixed, err = parseJSONPath(p); err != nil {
			return nil, errorf(e, "%v", err)
		}
	}
	value := e.Fn == JSONValue
	var items [][2]int
	var last string
	var cur *jpath
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		jp := fixed
		if jp == nil {
			if p := in[1].str(i); cur == nil || string(p) != last {
				last = string(p)
				cur, _ = parseJSONPath(last)
			}
			if jp = cur; jp == nil {
				return d, false
			}
		}
		var ok bool
		d, items, ok = jp.query(d, in[0].str(i), value, items)
		return d, ok
	})
	return nd, nil
}
