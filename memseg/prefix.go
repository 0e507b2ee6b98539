package memseg

import (
	"bytes"
	"fmt"
)

// DefaultWidth is the number of string bytes a prefix keeps when
// KeyCol.Width is zero.
const DefaultWidth = 8

// KeyCol describes one column of a normalized key.
type KeyCol struct {
	Type  Type
	Order Order
	// Width is the number of leading bytes of a String or Bytes value kept
	// in the prefix, 1..254; zero means DefaultWidth. Other types ignore it.
	Width int
}

// Layout describes the columns of a normalized key and derives from a full
// key (as built with the Append functions) its fixed-length prefix: Flink's
// normalized key. Each column takes a fixed number of bytes, so the prefix
// keeps every column, however long the strings before it.
//
// A column's prefix is its marker byte followed by
//
//	fixed-size types  the same value bytes as the full encoding
//	String, Bytes     the first Width bytes of the value (unescaped), padded
//	                  with zeros, then min(len, Width+1): the length byte,
//	                  which is Width+1 exactly when the value was truncated
//
// all inverted for DESC, and zeros after a NULL marker. The columns after a
// truncated string are zeros too: two truncated strings can have equal
// prefixes and still differ, and then no later column may decide. For any
// keys a, b,
// bytes.Compare(prefix(a), prefix(b)) is never the opposite sign of
// bytes.Compare(a, b), and equal prefixes imply equal keys unless a string
// was truncated, which Prefix reports.
type Layout struct {
	cols  []KeyCol
	size  int
	exact bool // no String or Bytes column: prefixes never truncate
}

// NewLayout returns the layout of keys made of cols, in order.
func NewLayout(cols ...KeyCol) (*Layout, error) {
	if len(cols) == 0 {
		return nil, fmt.Errorf("memseg: layout without columns")
	}
	l := &Layout{cols: make([]KeyCol, len(cols))}
	for i, c := range cols {
		if !c.Type.valid() {
			return nil, fmt.Errorf("memseg: key column %d: invalid type %v", i, c.Type)
		}
		if c.Type.varLen() {
			if c.Width == 0 {
				c.Width = DefaultWidth
			}
			if c.Width < 1 || c.Width > maxWidth {
				return nil, fmt.Errorf("memseg: key column %d: width %d outside 1..%d", i, c.Width, maxWidth)
			}
		} else {
			c.Width = keyWidth(c.Type)
		}
		l.cols[i] = c
		l.size += 1 + c.Width
		if c.Type.varLen() {
			l.size++ // the length byte
		}
	}
	l.exact = true
	for _, c := range cols {
		l.exact = l.exact && !c.Type.varLen()
	}
	return l, nil
}

// keyWidth is the size of a fixed-size type's value in a key.
func keyWidth(t Type) int {
	switch t {
	case Bool:
		return 1
	case Float32:
		return 4
	case Decimal128:
		return 16
	}
	return 8
}

// Size is the length of every prefix of the layout.
func (l *Layout) Size() int { return l.size }

// Prefix writes the prefix of key into dst[:l.Size()] and reports whether a
// string was truncated, in which case keys with an equal prefix must be
// compared in full. key must hold exactly the layout's columns; its bytes
// after a truncated string are not examined.
func (l *Layout) Prefix(dst, key []byte) (truncated bool, err error) {
	dst = dst[:l.size]
	if l.exact && len(key) == l.size {
		// Without NULLs, the key of fixed-size columns is its prefix.
		copy(dst, key)
		return false, nil
	}
	p := 0
	for i := range l.cols {
		c := &l.cols[i]
		if len(key) == 0 {
			return false, fmt.Errorf("%w: key ends before column %d", ErrCorrupt, i)
		}
		m := key[0]
		dst[p] = m
		p++
		key = key[1:]
		w := c.Width
		if c.Type.varLen() {
			w++
		}
		if m != markValue {
			clear(dst[p : p+w])
			p += w
			continue
		}
		if !c.Type.varLen() {
			if len(key) < w {
				return false, fmt.Errorf("%w: column %d: %d value bytes, want %d", ErrCorrupt, i, len(key), w)
			}
			copy(dst[p:p+w], key[:w])
			p += w
			key = key[w:]
			continue
		}
		var t bool
		key, t, err = stringPrefix(dst[p:p+w], key, c.Order.Desc)
		if err != nil {
			return false, fmt.Errorf("column %d: %w", i, err)
		}
		p += w
		if t {
			// Two truncated values can tie here and still differ, so no
			// later column may decide: zeros make such prefixes tie.
			clear(dst[p:])
			return true, nil
		}
	}
	if len(key) != 0 {
		return false, fmt.Errorf("%w: %d bytes after the last key column", ErrCorrupt, len(key))
	}
	return false, nil
}

// stringPrefix fills dst (width+1 bytes) from the escaped string at the
// start of enc and returns the bytes after the string.
func stringPrefix(dst, enc []byte, desc bool) (rest []byte, truncated bool, err error) {
	var x byte
	if desc {
		x = 0xFF
	}
	w := len(dst) - 1
	n := 0 // value bytes seen, capped at w+1
	for {
		i := bytes.IndexByte(enc, escByte^x)
		if i < 0 || i+1 >= len(enc) {
			return nil, false, fmt.Errorf("%w: unterminated string", ErrCorrupt)
		}
		if n < w {
			copy(dst[n:w], enc[:i])
		}
		n = min(n+i, w+1)
		switch enc[i+1] ^ x {
		case escTerm:
			rest = enc[i+2:]
		case escZero:
			if n < w {
				dst[n] = escByte ^ x
			}
			n = min(n+1, w+1)
			enc = enc[i+2:]
			continue
		default:
			return nil, false, fmt.Errorf("%w: bad string escape %#x", ErrCorrupt, enc[i+1])
		}
		break
	}
	for j := n; j < w; j++ {
		dst[j] = x
	}
	dst[w] = byte(n) ^ x
	return rest, n > w, nil
}
