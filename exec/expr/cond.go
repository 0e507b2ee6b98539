package expr

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/types"
)

func (c *compiler) caseWhen(e *Case) (*node, error) {
	if e.Else == nil {
		return nil, errorf(e, "CASE without ELSE")
	}
	if e.T.Kind == types.Null {
		return c.lit(types.NullOf(e.T))
	}
	if physOf(e.T) == pNull {
		return nil, errorf(e, "unsupported type %s", e.T)
	}
	nd := newNode(e.T)
	for _, w := range e.Whens {
		if w.Cond == nil || w.Then == nil {
			return nil, errorf(e, "incomplete WHEN")
		}
		cond, err := c.typed(e, w.Cond, types.TBoolean, isBool)
		if err != nil {
			return nil, err
		}
		then, err := c.branch(e, w.Then, e.T)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, cond, then)
	}
	els, err := c.branch(e, e.Else, e.T)
	if err != nil {
		return nil, err
	}
	nd.kids = append(nd.kids, els)
	srcs := make([]*vec, len(e.Whens)+1)
	nd.run = func(s *state, n int, act []uint64) (*vec, error) { return nd.caseRun(s, n, act, srcs) }
	return nd, nil
}

// branch compiles a value of a CASE or COALESCE, which must have type t.
func (c *compiler) branch(e, a Expr, t types.Type) (*node, error) {
	if !sameType(a.Type(), t) {
		return nil, errorf(e, "branch %s is %s, the result %s", a, a.Type(), t)
	}
	return c.arg(a, t)
}

// caseRun evaluates each THEN only for the rows its WHEN takes, and the
// conditions only for the rows not yet taken.
func (nd *node) caseRun(s *state, n int, act []uint64, srcs []*vec) (*vec, error) {
	nw := words(n)
	rest := nd.active(act, n)
	masks := nd.masks(len(srcs), nw)
	valid := grow(&nd.own.valid, nw)
	fill(valid, 0)
	clear(srcs)
	whens := len(srcs) - 1
	for k := 0; k <= whens && anySet(rest, n); k++ {
		take := masks[k]
		if k < whens {
			cv, err := nd.kids[2*k].eval(s, n, rest)
			if err != nil {
				return nil, err
			}
			for w := range take {
				take[w] = rest[w] & cv.validWord(w) & cv.bitsWord(w)
			}
			if !anySet(take, n) {
				continue
			}
		} else {
			copy(take, rest)
		}
		then := nd.kids[len(nd.kids)-1]
		if k < whens {
			then = nd.kids[2*k+1]
		}
		v, err := then.eval(s, n, take)
		if err != nil {
			return nil, err
		}
		srcs[k] = v
		for w, t := range take {
			valid[w] |= t & v.validWord(w)
			rest[w] &^= t
		}
	}
	nd.assemble(n, srcs, masks, valid)
	return &nd.out, nil
}

// active returns a private copy of the active mask, with no bits past n.
func (nd *node) active(act []uint64, n int) []uint64 {
	rest := grow(&nd.own.mask, words(n))
	if act == nil {
		fill(rest, ^uint64(0))
	} else {
		copy(rest, act)
	}
	rest[len(rest)-1] &= tail(n)
	return rest
}

// masks returns k scratch masks of nw words.
func (nd *node) masks(k, nw int) [][]uint64 {
	if len(nd.own.masks) < k {
		nd.own.masks = make([][]uint64, k)
	}
	m := nd.own.masks[:k]
	for i := range m {
		grow(&m[i], nw)
	}
	return m
}

func (c *compiler) coalesce(e *Call) (*node, error) {
	if err := arity(e, 1, -1); err != nil {
		return nil, err
	}
	if e.T.Kind == types.Null {
		return c.lit(types.NullOf(e.T))
	}
	if physOf(e.T) == pNull {
		return nil, errorf(e, "unsupported type %s", e.T)
	}
	nd := newNode(e.T)
	for _, a := range e.Args {
		k, err := c.branch(e, a, e.T)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, k)
	}
	srcs := make([]*vec, len(nd.kids))
	nd.run = func(s *state, n int, act []uint64) (*vec, error) { return nd.coalesceRun(s, n, act, srcs) }
	return nd, nil
}

// coalesceRun evaluates each argument only for the rows still NULL.
func (nd *node) coalesceRun(s *state, n int, act []uint64, srcs []*vec) (*vec, error) {
	first, err := nd.kids[0].eval(s, n, act)
	if err != nil || first.valid == nil || len(nd.kids) == 1 {
		return first, err
	}
	nw := words(n)
	rest := nd.active(act, n)
	masks := nd.masks(len(srcs), nw)
	valid := grow(&nd.own.valid, nw)
	fill(valid, 0)
	clear(srcs)
	for k := 0; k < len(srcs) && anySet(rest, n); k++ {
		v := first
		if k > 0 {
			if v, err = nd.kids[k].eval(s, n, rest); err != nil {
				return nil, err
			}
		}
		srcs[k] = v
		take := masks[k]
		for w := range take {
			take[w] = rest[w] & v.validWord(w)
			valid[w] |= take[w]
			rest[w] &^= take[w]
		}
	}
	nd.assemble(n, srcs, masks, valid)
	return &nd.out, nil
}

func (c *compiler) nullIf(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	if !sameType(e.Args[0].Type(), e.T) {
		return nil, errorf(e, "NULLIF's result must have its first argument's type")
	}
	if e.T.Kind == types.Null {
		return c.lit(types.NullOf(e.T))
	}
	x, y, err := c.operands(e, e.Args[0], e.Args[1])
	if err != nil {
		return nil, err
	}
	eq := cmpNode(types.TBoolean, Eq, x, y)
	c.fold(eq)
	nd := newNode(e.T, x, eq)
	srcs, masks := make([]*vec, 1), make([][]uint64, 1)
	nd.run = func(s *state, n int, act []uint64) (*vec, error) {
		a, err := x.eval(s, n, act)
		if err != nil || a.null() {
			return a, err
		}
		q, err := eq.eval(s, n, act)
		if err != nil {
			return nil, err
		}
		nw := words(n)
		valid := grow(&nd.own.valid, nw)
		for w := range valid {
			valid[w] = a.validWord(w) &^ (q.validWord(w) & q.bitsWord(w))
		}
		valid[nw-1] &= tail(n)
		if a.konst {
			srcs[0], masks[0] = a, valid
			nd.assemble(n, srcs, masks, valid)
		} else {
			nd.out = *a
			nd.out.valid = valid
		}
		return &nd.out, nil
	}
	return nd, nil
}

// assemble builds out from srcs[k] on the rows of masks[k]; the masks are
// disjoint and clear past n, and the rows in none of them are NULL.
func (nd *node) assemble(n int, srcs []*vec, masks [][]uint64, valid []uint64) {
	nd.out = vec{valid: valid}
	switch nd.p {
	case pBool:
		o := nd.outBits(n)
		fill(o, 0)
		for k, v := range srcs {
			if v != nil {
				for w, m := range masks[k] {
					o[w] |= v.bitsWord(w) & m
				}
			}
		}
	case pI32:
		blendAll[int32](nd, n, srcs, masks)
	case pI64:
		blendAll[int64](nd, n, srcs, masks)
	case pF32:
		blendAll[float32](nd, n, srcs, masks)
	case pF64:
		blendAll[float64](nd, n, srcs, masks)
	case pDec:
		blendAll[decimal128.Num](nd, n, srcs, masks)
	case pStr:
		pick := grow(&nd.own.pick, n)
		for i := range pick {
			pick[i] = -1
		}
		size := 0
		for k, v := range srcs {
			if v == nil {
				continue
			}
			for w, m := range masks[k] {
				for ; m != 0; m &= m - 1 {
					i := w*64 + bits.TrailingZeros64(m)
					pick[i] = int32(k)
					size += len(v.str(i))
				}
			}
		}
		offs := nd.strs(n, size)
		data := nd.own.data
		for i, k := range pick {
			if k >= 0 {
				data = append(data, srcs[k].str(i)...)
			}
			offs[i+1] = int32(len(data))
		}
		nd.own.data = data
		nd.strsDone(offs)
	}
}

func blendAll[T any](nd *node, n int, srcs []*vec, masks [][]uint64) {
	o := out[T](nd, n)
	for k, v := range srcs {
		if v == nil {
			continue
		}
		x := col[T](v)
		for w, m := range masks[k] {
			base := w * 64
			switch {
			case m == 0:
			case v.konst:
				c := x[0]
				for ; m != 0; m &= m - 1 {
					o[base+bits.TrailingZeros64(m)] = c
				}
			case m == ^uint64(0) && base+64 <= n:
				copy(o[base:base+64], x[base:base+64])
			default:
				for ; m != 0; m &= m - 1 {
					i := base + bits.TrailingZeros64(m)
					o[i] = x[i]
				}
			}
		}
	}
}
