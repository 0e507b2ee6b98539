package connector

import (
	"strings"

	"github.com/strandsql/strand/types"
)

// JSON objects and arrays into nested columns, Flink's json format: a ROW
// from an object (fields by name, an exact match first, then a
// case-insensitive one; unknown fields skipped; a missing one NULL, or an
// error with json.fail-on-missing-field), an ARRAY from an array, a MAP
// from an object (keys parsed as the key type). The line was validated by
// the first pass; this one walks the value again as deep as the column's
// type goes, which the DDL bounds, and no deeper: an object where a
// scalar is expected is a parse error, as at the top level.

// appendNested appends the object or array v of line to the nested
// column c.
func (d *jsonDecoder) appendNested(line []byte, v jsonVal, c *column) string {
	text := line[v.start:v.end]
	i := v.start
	want := byte('{')
	if c.t.Kind == types.Array {
		want = '['
	}
	if line[i] != want {
		return parseError(text, c.t)
	}
	i = ws(line, i+1)
	switch c.t.Kind {
	case types.Row:
		fields := c.t.Fields()
		base := len(d.arena)
		for range fields {
			d.arena = append(d.arena, jsonVal{})
		}
		defer func() { d.arena = d.arena[:base] }()
		err := d.members(line, i, func(key []byte, val jsonVal) string {
			if k := fieldOf(fields, string(key)); k >= 0 {
				d.arena[base+k] = val
			}
			return ""
		})
		if err != "" {
			return err
		}
		for k, f := range fields {
			if msg := d.appendVal(line, d.arena[base+k], &c.kids[k]); msg != "" {
				return "field '" + f.Name + "': " + msg
			}
		}
	case types.Map:
		// Collect the entries first: a key given twice keeps its place
		// and takes the last value, as in the Java map Flink reads into.
		base := len(d.arena)
		defer func() { d.arena = d.arena[:base] }()
		err := d.members(line, i, func(_ []byte, val jsonVal) string {
			for k := base; k < len(d.arena); k += 2 {
				if d.sameKey(line, d.arena[k], d.key) {
					d.arena[k+1] = val
					return ""
				}
			}
			d.arena = append(d.arena, d.key, val)
			return ""
		})
		if err != "" {
			return err
		}
		for k := base; k < len(d.arena); k += 2 {
			if msg := d.appendVal(line, d.arena[k], &c.kids[0]); msg != "" {
				return "key: " + msg
			}
			if msg := d.appendVal(line, d.arena[k+1], &c.kids[1]); msg != "" {
				return "value: " + msg
			}
		}
	default:
		if line[i] != ']' {
			for {
				val, end, msg := d.value(line, i)
				if msg != "" {
					return msg
				}
				if msg := d.appendVal(line, val, &c.kids[0]); msg != "" {
					return "element: " + msg
				}
				i = ws(line, end)
				if line[i] == ']' {
					break
				}
				i = ws(line, i+1) // the first pass saw the ','
			}
		}
	}
	c.filled()
	return notNull(c)
}

// members calls fn with each member of the object whose first member (or
// closing brace) is at line[i]; d.key holds the member's key as a value.
func (d *jsonDecoder) members(line []byte, i int, fn func(key []byte, val jsonVal) string) string {
	if line[i] == '}' {
		return ""
	}
	for {
		kend, esc, msg := scanString(line, i)
		if msg != "" {
			return msg
		}
		d.key = jsonVal{kind: 's', escaped: esc, start: i + 1, end: kend - 1}
		key := line[i+1 : kend-1]
		if esc {
			key = unescapeJSON(nil, key)
		}
		i = ws(line, ws(line, kend)+1) // past the ':'
		val, end, msg := d.value(line, i)
		if msg != "" {
			return msg
		}
		if msg := fn(key, val); msg != "" {
			return msg
		}
		i = ws(line, end)
		if line[i] == '}' {
			return ""
		}
		i = ws(line, i+1)
	}
}

// fieldOf is the index of the field named name: an exact match first,
// then a case-insensitive one, or -1.
func fieldOf(fields []types.Field, name string) int {
	for k, f := range fields {
		if f.Name == name {
			return k
		}
	}
	for k, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return k
		}
	}
	return -1
}

// sameKey reports whether two object keys of line are the same string,
// escaped alike or not ("k" and "\u006b" are).
func (d *jsonDecoder) sameKey(line []byte, a, b jsonVal) bool {
	x, y := line[a.start:a.end], line[b.start:b.end]
	if !a.escaped && !b.escaped {
		return string(x) == string(y)
	}
	if a.escaped {
		d.keyA = unescapeJSON(d.keyA[:0], x)
		x = d.keyA
	}
	if b.escaped {
		d.keyB = unescapeJSON(d.keyB[:0], y)
		y = d.keyB
	}
	return string(x) == string(y)
}
