package expr

import (
	"bytes"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// pattern is a compiled LIKE pattern. The common shapes ('abc', 'abc%',
// '%abc', '%abc%', '%') are single byte comparisons; always else is a
// list of pieces separated by % matched left to right, each piece a run of
// literal bytes and _ (one code point). Greedy leftmost matching is whole
// here because the only variable-length wildcard is %.
type pattern struct {
	shape  shape
	lit    []byte // the literal of the simple shapes
	pieces []piece
	front  bool // the first piece is anchored at the start
	back   bool // the last piece is anchored at the end
}

type shape uint8

const (
	byPieces shape = iota
	whole
	prefix
	suffix
	contains
	always
)

// piece is literal bytes and _ wildcards: runs[k] of literal bytes then
// holes[k] wildcards.
type piece struct {
	runs  [][]byte
	holes []int
	width int // code points matched
}

// Flink's default escape character is the backslash.
const defaultEscape = '\\'

// CheckLikePattern returns the error LIKE would raise for pattern p with
// escape character esc (0 for the default), so that a literal pattern is
// refused when the query is planned.
func CheckLikePattern(p string, esc rune) error {
	if esc == 0 {
		esc = defaultEscape
	}
	_, err := compilePattern([]byte(p), esc)
	return err
}

func compilePattern(p []byte, esc rune) (*pattern, error) {
	var pieces []piece
	cur := piece{}
	var lit []byte
	wild := false // the current piece has _
	flush := func(hole bool) {
		cur.runs = append(cur.runs, lit)
		cur.holes = append(cur.holes, b2i(hole))
		cur.width += utf8.RuneCount(lit) + b2i(hole)
		lit = nil
	}
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRune(p[i:])
		switch {
		case r == esc:
			if i+w >= len(p) {
				return nil, fmt.Errorf("invalid escape sequence in LIKE pattern %q", p)
			}
			n, nw := utf8.DecodeRune(p[i+w:])
			if n != '_' && n != '%' && n != esc {
				return nil, fmt.Errorf("invalid escape sequence in LIKE pattern %q", p)
			}
			lit = append(lit, p[i+w:i+w+nw]...)
			w += nw
		case r == '%':
			flush(false)
			pieces = append(pieces, cur)
			cur = piece{}
		case r == '_':
			flush(true)
			wild = true
		default:
			lit = append(lit, p[i:i+w]...)
		}
		i += w
	}
	flush(false)
	pieces = append(pieces, cur)
	pat := &pattern{pieces: pieces, front: true, back: true}
	// Drop the empty pieces around leading and trailing %.
	if len(pieces) > 1 && pieces[0].width == 0 {
		pat.front = false
		pieces = pieces[1:]
	}
	if len(pieces) > 1 && pieces[len(pieces)-1].width == 0 {
		pat.back = false
		pieces = pieces[:len(pieces)-1]
	}
	pat.pieces = pieces
	if !wild && len(pieces) == 1 {
		pat.lit = bytes.Join(pieces[0].runs, nil)
		switch {
		case pat.front && pat.back:
			pat.shape = whole
		case pat.front:
			pat.shape = prefix
		case pat.back:
			pat.shape = suffix
		case len(pat.lit) == 0:
			pat.shape = always
		default:
			pat.shape = contains
		}
	}
	return pat, nil
}

func b2i(b bool) int { return int(b2u(b)) }

func (p *pattern) match(s []byte) bool {
	switch p.shape {
	case whole:
		return bytes.Equal(s, p.lit)
	case prefix:
		return bytes.HasPrefix(s, p.lit)
	case suffix:
		return bytes.HasSuffix(s, p.lit)
	case contains:
		return bytes.Contains(s, p.lit)
	case always:
		return true
	}
	ps := p.pieces
	if p.front {
		n, ok := ps[0].at(s)
		if !ok {
			return false
		}
		if len(ps) == 1 && p.back {
			return n == len(s)
		}
		s, ps = s[n:], ps[1:]
	}
	last := len(ps)
	if p.back {
		last--
	}
	for _, pc := range ps[:last] {
		k, n := pc.find(s)
		if k < 0 {
			return false
		}
		s = s[k+n:]
	}
	if p.back {
		// The last piece has a fixed width in code points: it can only
		// match the end.
		pc := ps[last]
		start := len(s)
		for k := 0; k < pc.width; k++ {
			if start == 0 {
				return false
			}
			_, w := utf8.DecodeLastRune(s[:start])
			start -= w
		}
		n, ok := pc.at(s[start:])
		return ok && n == len(s)-start
	}
	return true
}

// at matches the piece at the start of s, returning the bytes it covers.
func (pc *piece) at(s []byte) (int, bool) {
	i := 0
	for k, run := range pc.runs {
		if !bytes.HasPrefix(s[i:], run) {
			return 0, false
		}
		i += len(run)
		for h := pc.holes[k]; h > 0; h-- {
			if i == len(s) {
				return 0, false
			}
			_, w := utf8.DecodeRune(s[i:])
			i += w
		}
	}
	return i, true
}

// find returns the leftmost match of the piece in s: its offset and
// length, or -1.
func (pc *piece) find(s []byte) (int, int) {
	lead := pc.runs[0]
	for k := 0; k <= len(s); {
		if len(lead) > 0 {
			j := bytes.Index(s[k:], lead)
			if j < 0 {
				return -1, 0
			}
			k += j
		}
		if n, ok := pc.at(s[k:]); ok {
			return k, n
		}
		if k == len(s) {
			break
		}
		_, w := utf8.DecodeRune(s[k:])
		k += w
	}
	return -1, 0
}

func (c *compiler) like(e *Call) (*node, error) {
	if err := arity(e, 2, 3); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	esc := rune(defaultEscape)
	if len(e.Args) == 3 {
		s, ok := litString(e.Args[2])
		if !ok || utf8.RuneCountInString(s) != 1 {
			return nil, errorf(e, "LIKE's escape must be a one-character string literal")
		}
		esc, _ = utf8.DecodeRuneInString(s)
	}
	s, err := c.typed(e, e.Args[0], types.TString, isString)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, s)
	nd.strict = true
	if lit, ok := litString(e.Args[1]); ok {
		pat, err := compilePattern([]byte(lit), esc)
		if err != nil {
			return nil, errorf(e, "%v", err)
		}
		nd.kern = func(rows int, act []uint64) error {
			nd.likeRows(rows, act, pat, nil)
			return nil
		}
		return nd, nil
	}
	p, err := c.typed(e, e.Args[1], types.TString, isString)
	if err != nil {
		return nil, err
	}
	nd.kids = append(nd.kids, p)
	nd.in = append(nd.in, nil)
	row := &rowPattern{esc: esc}
	nd.kern = func(rows int, act []uint64) error {
		row.err = nil
		nd.likeRows(rows, act, nil, row)
		return row.err
	}
	return nd, nil
}

// rowPattern compiles patterns that come from the data, again only when
// the pattern changes from one row to the next.
type rowPattern struct {
	esc  rune
	last []byte
	pat  *pattern
	err  error
}

func (r *rowPattern) get(p []byte) *pattern {
	if r.pat != nil && bytes.Equal(p, r.last) {
		return r.pat
	}
	r.last = append(r.last[:0], p...)
	pat, err := compilePattern(r.last, r.esc)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %v", ErrRuntime, err)
		}
		r.pat = nil
		return &pattern{shape: whole}
	}
	r.pat = pat
	return pat
}

// likeRows matches the live rows against pat, or against each row's
// pattern when pat is nil. Only the rows that matter are visited: on the
// right of an AND, the rows the left side has not already ruled out.
func (nd *node) likeRows(rows int, act []uint64, pat *pattern, row *rowPattern) {
	v := nd.in[0]
	o := nd.outBits(rows)
	sh, lit := byPieces, []byte(nil)
	if pat != nil {
		sh, lit = pat.shape, pat.lit
	}
	if sh == prefix || sh == suffix || sh == whole {
		if lit, ok := shortOf(lit); ok && !v.konst {
			nd.matchShort(o, rows, act, v, lit, sh)
			return
		}
	}
	for w := range o {
		var r uint64
		for m := nd.liveWord(w, rows, act); m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			i := w*64 + j
			s := v.str(i)
			var ok bool
			switch sh {
			case prefix: // the first byte rules out most rows without a call
				ok = len(s) >= len(lit) && (len(lit) == 0 || s[0] == lit[0] && (len(lit) == 1 || string(s[1:len(lit)]) == string(lit[1:])))
			case suffix:
				ok = len(s) >= len(lit) && string(s[len(s)-len(lit):]) == string(lit)
			case contains:
				ok = bytes.Contains(s, lit)
			case whole:
				ok = string(s) == string(lit)
			case always:
				ok = true
			default:
				p := pat
				if p == nil {
					p = row.get(nd.in[1].str(i))
				}
				ok = p.match(s)
			}
			r |= b2u(ok) << (uint(j) & 63)
		}
		o[w] = r
	}
}
