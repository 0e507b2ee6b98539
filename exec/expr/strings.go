package expr

import (
	"bytes"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// String functions count code points, not bytes, as Flink's do. They skip
// the rows outside the active mask: for a filter such as
// `x > 0 AND UPPER(s) = 'A'`, only the rows with x > 0 pay.

func (c *compiler) strArgs(e *Call, min, max int) ([]*node, error) {
	if err := arity(e, min, max); err != nil {
		return nil, err
	}
	kids := make([]*node, len(e.Args))
	for i, a := range e.Args {
		var err error
		if kids[i], err = c.typed(e, a, types.TString, isString); err != nil {
			return nil, err
		}
	}
	return kids, nil
}

// strNode makes a strict node whose result type must be t's kind.
func strNode(e *Call, kind types.Kind, kids []*node) (*node, error) {
	if e.T.Kind != kind && !(kind == types.Int && e.T.Kind == types.BigInt) {
		return nil, errorf(e, "%s cannot return %s", e.Fn, e.T)
	}
	nd := newNode(e.T, kids...)
	nd.strict = true
	return nd, nil
}

// size is the byte size of v's strings over rows.
func size(v *vec, rows int) int {
	if v.konst {
		return len(v.str(0)) * rows
	}
	return int(v.offs[rows] - v.offs[0])
}

// live reports whether row i of a strict node's result matters.
func (nd *node) live(i int, act []uint64) bool {
	return on(act, i) && isSet(nd.out.valid, i)
}

func (c *compiler) changeCase(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 1, 1)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	upper := e.Fn == Upper
	nd.kern = func(rows int, act []uint64) error {
		v := nd.in[0]
		offs := nd.strs(rows, size(v, rows))
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				d = appendCase(d, v.str(i), upper)
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
	return nd, nil
}

// appendCase maps s to upper or lower case, rune by rune (Java's special
// casings that change a string's length, like ß to SS, are not applied).
// ASCII is mapped in one pass over a pre-sized destination; bytes that are
// not UTF-8 pass through.
func appendCase(d, s []byte, upper bool) []byte {
	from := byte('a')
	if !upper {
		from = 'A'
	}
	at := len(d)
	d = slices.Grow(d, len(s))[:at+len(s)]
	o := d[at:]
	for i, c := range s {
		if c >= utf8.RuneSelf {
			return appendRunes(d[:at+i], s[i:], upper)
		}
		if c-from < 26 {
			c ^= 0x20
		}
		o[i] = c
	}
	return d
}

func appendRunes(d, s []byte, upper bool) []byte {
	for len(s) > 0 {
		r, w := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && w == 1:
			d = append(d, s[0])
		case r < utf8.RuneSelf:
			d = appendCase(d, s[:1], upper)
		case upper:
			d = utf8.AppendRune(d, unicode.ToUpper(r))
		default:
			d = utf8.AppendRune(d, unicode.ToLower(r))
		}
		s = s[w:]
	}
	return d
}

func (c *compiler) charLength(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 1, 1)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.Int, kids)
	if err != nil {
		return nil, err
	}
	if nd.p == pI32 {
		nd.kern = charLength[int32](nd)
	} else {
		nd.kern = charLength[int64](nd)
	}
	return nd, nil
}

func charLength[T integer](nd *node) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		v := nd.in[0]
		o := out[T](nd, rows)
		for i := range o {
			if on(act, i) {
				o[i] = T(utf8.RuneCount(v.str(i)))
			}
		}
		return nil
	}
}

func (c *compiler) substring(e *Call) (*node, error) {
	if err := arity(e, 2, 3); err != nil {
		return nil, err
	}
	s, err := c.typed(e, e.Args[0], types.TString, isString)
	if err != nil {
		return nil, err
	}
	kids := []*node{s}
	for _, a := range e.Args[1:] {
		k, err := c.typed(e, a, types.TBigInt, types.Type.IsIntegral)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	nd.kern = func(rows int, act []uint64) error {
		v := nd.in[0]
		offs := nd.strs(rows, size(v, rows))
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				length := int64(1<<63 - 1)
				if len(nd.in) == 3 {
					length = intAt(nd.in[2], nd.kids[2].p, i)
				}
				sub, ok := substr(v.str(i), intAt(nd.in[1], nd.kids[1].p, i), length)
				if ok {
					d = append(d, sub...)
				} else {
					nd.setNull(i, rows)
				}
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
	return nd, nil
}

// intAt reads row i of an INT or BIGINT vec.
func intAt(v *vec, p phys, i int) int64 {
	if v.konst {
		i = 0
	}
	if p == pI32 {
		return int64(col[int32](v)[i])
	}
	return col[int64](v)[i]
}

// substr follows Flink's SUBSTRING (BinaryStringDataUtil.substringSQL),
// which differs from standard SQL below position 1: position 0 means 1,
// and a negative position counts from the end ('hello', -3 is 'llo'). A
// negative length gives NULL (ok false).
func substr(s []byte, pos, length int64) ([]byte, bool) {
	if length < 0 {
		return nil, false
	}
	var start int // byte offset
	switch {
	case pos > 0:
		start = skip(s, pos-1)
		if start == len(s) {
			return nil, true
		}
	case pos < 0:
		n := int64(utf8.RuneCount(s))
		if n+pos < 0 {
			return nil, true
		}
		start = skip(s, n+pos)
	}
	s = s[start:]
	return s[:skip(s, length)], true
}

// skip returns the byte offset after n code points of s, or len(s).
func skip(s []byte, n int64) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			_, w := utf8.DecodeRune(s[i:])
			i += w
		}
	}
	return i
}

func (c *compiler) trim(e *Call) (*node, error) {
	if err := arity(e, 3, 3); err != nil {
		return nil, err
	}
	mode, ok := litString(e.Args[0])
	left, right := mode == "BOTH" || mode == "LEADING", mode == "BOTH" || mode == "TRAILING"
	if !ok || !(left || right) {
		return nil, errorf(e, "TRIM's mode must be 'BOTH', 'LEADING' or 'TRAILING'")
	}
	kids, err := c.strArgs(&Call{Fn: e.Fn, Args: e.Args[1:], T: e.T}, 2, 2)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	nd.kern = func(rows int, act []uint64) error {
		chars, v := nd.in[0], nd.in[1]
		offs := nd.strs(rows, size(v, rows))
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				d = append(d, trimRunes(v.str(i), chars.str(i), left, right)...)
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
	return nd, nil
}

func trimRunes(s, chars []byte, left, right bool) []byte {
	in := func(r rune) bool {
		if r < utf8.RuneSelf {
			return bytes.IndexByte(chars, byte(r)) >= 0
		}
		return bytes.ContainsRune(chars, r)
	}
	for left && len(s) > 0 {
		r, w := utf8.DecodeRune(s)
		if !in(r) {
			break
		}
		s = s[w:]
	}
	for right && len(s) > 0 {
		r, w := utf8.DecodeLastRune(s)
		if !in(r) {
			break
		}
		s = s[:len(s)-w]
	}
	return s
}

func (c *compiler) concat(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 1, -1)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	nd.kern = func(rows int, act []uint64) error {
		n := 0
		for _, v := range nd.in {
			n += size(v, rows)
		}
		offs := nd.strs(rows, n)
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				for _, v := range nd.in {
					d = append(d, v.str(i)...)
				}
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
	return nd, nil
}

func (c *compiler) position(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 2, 2)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.Int, kids)
	if err != nil {
		return nil, err
	}
	if nd.p == pI32 {
		nd.kern = position[int32](nd)
	} else {
		nd.kern = position[int64](nd)
	}
	return nd, nil
}

// position finds needle in haystack: the 1-based code point index, 0 if
// absent, 1 for an empty needle.
func position[T integer](nd *node) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		needle, hay := nd.in[0], nd.in[1]
		o := out[T](nd, rows)
		for i := range o {
			if !on(act, i) {
				continue
			}
			h := hay.str(i)
			k := bytes.Index(h, needle.str(i))
			if k < 0 {
				o[i] = 0
			} else {
				o[i] = T(utf8.RuneCount(h[:k]) + 1)
			}
		}
		return nil
	}
}
