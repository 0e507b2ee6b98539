package expr

import (
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// The string functions of Flink's SqlFunctionUtils that Flink SQL users
// and Nexmark call, with Flink's answers on edge cases: SPLIT_INDEX gives
// NULL past the last token or below 0, LPAD and RPAD give NULL for a
// negative length or an empty pad, REPLACE with an empty needle inserts
// between every code point (Java's String.replace). Lengths count code
// points.

// strFunc makes a strict STRING function of string arguments whose rows
// each append f's result to d; f returns false for a NULL row.
func (c *compiler) strFunc(e *Call, n int, f func(d []byte, args []*vec, i int) ([]byte, bool)) (*node, error) {
	kids, err := c.strArgs(e, n, n)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, kids)
	if err != nil {
		return nil, err
	}
	nd.kern = strKern(nd, f)
	return nd, nil
}

func strKern(nd *node, f func(d []byte, args []*vec, i int) ([]byte, bool)) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		est := rows * 20
		if nd.kids[0].p == pStr {
			est = size(nd.in[0], rows)
		}
		offs := nd.strs(rows, est)
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				var ok bool
				if d, ok = f(d, nd.in, i); !ok {
					nd.setNull(i, rows)
				}
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
}

func (c *compiler) splitIndex(e *Call) (*node, error) {
	if err := arity(e, 3, 3); err != nil {
		return nil, err
	}
	kids, err := c.strArgs(&Call{Fn: e.Fn, Args: e.Args[:2], T: e.T}, 2, 2)
	if err != nil {
		return nil, err
	}
	idx, err := c.typed(e, e.Args[2], types.TInt, types.Type.IsIntegral)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, append(kids, idx))
	if err != nil {
		return nil, err
	}
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		tok, ok := splitToken(in[0].str(i), in[1].str(i), intAt(in[2], idx.p, i))
		return append(d, tok...), ok
	})
	return nd, nil
}

// splitToken is token k of s split at every sep, keeping empty tokens
// (commons-lang's splitByWholeSeparatorPreserveAllTokens, which Flink
// calls): an empty s has no token, an empty sep splits at each white space.
func splitToken(s, sep []byte, k int64) ([]byte, bool) {
	if k < 0 || len(s) == 0 {
		return nil, false
	}
	for ; ; k-- {
		var j, w int
		if len(sep) == 0 {
			j = bytes.IndexFunc(s, unicode.IsSpace)
			if j >= 0 {
				_, w = utf8.DecodeRune(s[j:])
			}
		} else if len(sep) == 1 {
			j, w = bytes.IndexByte(s, sep[0]), 1
		} else {
			j, w = bytes.Index(s, sep), len(sep)
		}
		if j < 0 {
			return s, k == 0
		}
		if k == 0 {
			return s[:j], true
		}
		s = s[j+w:]
	}
}

func (c *compiler) replace(e *Call) (*node, error) {
	return c.strFunc(e, 3, func(d []byte, in []*vec, i int) ([]byte, bool) {
		s, old, rep := in[0].str(i), in[1].str(i), in[2].str(i)
		if len(old) == 0 {
			return append(d, bytes.ReplaceAll(s, old, rep)...), true
		}
		for {
			j := bytes.Index(s, old)
			if j < 0 {
				return append(d, s...), true
			}
			d = append(append(d, s[:j]...), rep...)
			s = s[j+len(old):]
		}
	})
}

func (c *compiler) reverse(e *Call) (*node, error) {
	return c.strFunc(e, 1, func(d []byte, in []*vec, i int) ([]byte, bool) {
		s := in[0].str(i)
		at := len(d)
		d = append(d, s...)
		o := d[at:]
		for len(s) > 0 { // each code point's bytes move as a unit
			_, w := utf8.DecodeRune(s)
			copy(o[len(s)-w:], s[:w])
			s = s[w:]
		}
		return d, true
	})
}

// initcap follows Flink (Calcite's SqlFunctions.initcap): a word is a run
// of ASCII letters and digits; its first letter is upper-cased and the
// others lower-cased; every other character passes through.
func (c *compiler) initcap(e *Call) (*node, error) {
	return c.strFunc(e, 1, func(d []byte, in []*vec, i int) ([]byte, bool) {
		start := true
		for _, ch := range in[0].str(i) {
			alnum := ch >= '0' && ch <= '9' || ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z'
			switch {
			case !alnum:
				start = true
			case start:
				if ch >= 'a' && ch <= 'z' {
					ch -= 32
				}
				start = false
			case ch >= 'A' && ch <= 'Z':
				ch += 32
			}
			d = append(d, ch)
		}
		return d, true
	})
}

func (c *compiler) pad(e *Call) (*node, error) {
	if err := arity(e, 3, 3); err != nil {
		return nil, err
	}
	s, err := c.typed(e, e.Args[0], types.TString, isString)
	if err != nil {
		return nil, err
	}
	n, err := c.typed(e, e.Args[1], types.TInt, types.Type.IsIntegral)
	if err != nil {
		return nil, err
	}
	p, err := c.typed(e, e.Args[2], types.TString, isString)
	if err != nil {
		return nil, err
	}
	nd, err := strNode(e, types.String, []*node{s, n, p})
	if err != nil {
		return nil, err
	}
	left := e.Fn == Lpad
	nd.kern = strKern(nd, func(d []byte, in []*vec, i int) ([]byte, bool) {
		return appendPadded(d, in[0].str(i), in[2].str(i), intAt(in[1], n.p, i), left)
	})
	return nd, nil
}

// appendPadded pads s with copies of pad to length code points, or cuts s
// to length; a negative length or an empty pad is NULL, as in Flink.
func appendPadded(d, s, pad []byte, length int64, left bool) ([]byte, bool) {
	if length < 0 || len(pad) == 0 {
		return d, false
	}
	keep := s[:skip(s, length)]
	fill := length - int64(utf8.RuneCount(keep))
	if !left {
		d = append(d, keep...)
	}
	for fill > 0 {
		k := skip(pad, fill)
		d = append(d, pad[:k]...)
		fill -= int64(utf8.RuneCount(pad[:k]))
	}
	if left {
		d = append(d, keep...)
	}
	return d, true
}

func (c *compiler) hash(e *Call) (*node, error) {
	return c.strFunc(e, 1, func(d []byte, in []*vec, i int) ([]byte, bool) {
		if e.Fn == Md5 {
			sum := md5.Sum(in[0].str(i))
			return hex.AppendEncode(d, sum[:]), true
		}
		sum := sha256.Sum256(in[0].str(i))
		return hex.AppendEncode(d, sum[:]), true
	})
}

// countChar is COUNT_CHAR(s, c), Nexmark q14's UDF made a built-in: the
// number of occurrences in s of c's first character, 0 when s is NULL (as
// the UDF), NULL when c is NULL. An empty c fails the row.
func (c *compiler) countChar(e *Call) (*node, error) {
	kids, err := c.strArgs(e, 2, 2)
	if err != nil {
		return nil, err
	}
	if e.T.Kind != types.BigInt {
		return nil, errorf(e, "COUNT_CHAR returns BIGINT, not %s", e.T)
	}
	nd := newNode(e.T, kids...)
	nd.kern = func(rows int, act []uint64) error {
		s, ch := nd.in[0], nd.in[1]
		nd.out.valid = nil
		switch {
		case ch.null():
			nd.out.valid = grow(&nd.own.valid, words(rows))
			fill(nd.out.valid, 0)
		case !ch.konst:
			nd.out.valid = ch.valid
		}
		o := out[int64](nd, rows)
		var want []byte
		for i := range o {
			o[i] = 0
			if !on(act, i) || !validAt(ch, i) {
				continue
			}
			if want == nil || !ch.konst {
				c := ch.str(i)
				if len(c) == 0 {
					return fmt.Errorf("%w: COUNT_CHAR's character is empty", ErrRuntime)
				}
				_, w := utf8.DecodeRune(c)
				want = c[:w]
			}
			if validAt(s, i) {
				o[i] = int64(bytes.Count(s.str(i), want))
			}
		}
		return nil
	}
	return nd, nil
}

// validAt reports whether row i of v is not NULL.
func validAt(v *vec, i int) bool {
	if v.konst {
		i = 0
	}
	return isSet(v.valid, i)
}

// uuid makes one random (version 4) UUID per row. It reads no column and
// is never folded, and it is not deterministic: a replay after recovery
// gives other UUIDs.
func (c *compiler) uuid(e *Call) (*node, error) {
	if err := arity(e, 0, 0); err != nil {
		return nil, err
	}
	if e.T.Kind != types.String {
		return nil, errorf(e, "UUID returns STRING, not %s", e.T)
	}
	nd := newNode(e.T)
	nd.clock = true // never folded
	var buf []byte
	nd.run = func(_ *state, n int, _ []uint64) (*vec, error) {
		nd.out = vec{}
		raw := grow(&buf, 16*n)
		if _, err := rand.Read(raw); err != nil {
			return nil, fmt.Errorf("%w: UUID: %v", ErrRuntime, err)
		}
		offs := nd.strs(n, 36*n)
		d := nd.own.data
		for i := 0; i < n; i++ {
			u := raw[16*i : 16*i+16]
			u[6] = u[6]&0x0f | 0x40
			u[8] = u[8]&0x3f | 0x80
			d = hex.AppendEncode(d, u[:4])
			d = append(d, '-')
			d = hex.AppendEncode(d, u[4:6])
			d = append(d, '-')
			d = hex.AppendEncode(d, u[6:8])
			d = append(d, '-')
			d = hex.AppendEncode(d, u[8:10])
			d = append(d, '-')
			d = hex.AppendEncode(d, u[10:])
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return &nd.out, nil
	}
	return nd, nil
}
