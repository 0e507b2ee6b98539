package expr

import (
	"bytes"
	"math"
	"math/bits"
	"slices"

	"github.com/strandsql/strand/types"
)

type ordered interface {
	~int32 | ~int64 | ~float32 | ~float64
}

// comparable reports whether a and b may be compared: the same type, or two
// decimals of any precision and scale.
func comparable(a, b types.Type) bool {
	return sameType(a, b) || (a.Kind == types.Decimal && b.Kind == types.Decimal)
}

func (c *compiler) compare(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	x, y, err := c.operands(e, e.Args[0], e.Args[1])
	if err != nil {
		return nil, err
	}
	return cmpNode(e.T, e.Fn, x, y), nil
}

// operands compiles the two operands of a comparison.
func (c *compiler) operands(e, a, b Expr) (*node, *node, error) {
	ta, tb := a.Type(), b.Type()
	if !comparable(ta, tb) {
		return nil, nil, errorf(e, "cannot compare %s with %s", ta, tb)
	}
	if ta.Kind == types.Null {
		ta = tb
	}
	if tb.Kind == types.Null {
		tb = ta
	}
	if ta.Kind == types.Null {
		ta, tb = types.TBoolean, types.TBoolean
	}
	if physOf(ta) == pNull {
		return nil, nil, errorf(e, "cannot compare values of type %s", ta)
	}
	x, err := c.arg(a, ta)
	if err != nil {
		return nil, nil, err
	}
	y, err := c.arg(b, tb)
	if err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

func cmpNode(t types.Type, op Fn, x, y *node) *node {
	nd := newNode(t, x, y)
	nd.strict = true
	switch x.p {
	case pBool:
		nd.kern = boolCmp(nd, op)
	case pI32:
		nd.kern = ordCmp[int32](nd, op)
	case pI64:
		nd.kern = ordCmp[int64](nd, op)
	case pF32:
		nd.kern = ordCmp[float32](nd, op)
	case pF64:
		nd.kern = ordCmp[float64](nd, op)
	case pDec:
		nd.kern = decCmp(nd, op, x.t.Scale, y.t.Scale)
	case pStr:
		nd.kern = strCmp(nd, op)
	}
	return nd
}

// flip gives the operator with its operands swapped: a < b is b > a.
func flip(op Fn) Fn {
	switch op {
	case Lt:
		return Gt
	case Le:
		return Ge
	case Gt:
		return Lt
	case Ge:
		return Le
	}
	return op
}

// holds reports whether op holds for a three-way comparison result.
func holds(op Fn, r int) bool {
	switch op {
	case Eq:
		return r == 0
	case Ne:
		return r != 0
	case Lt:
		return r < 0
	case Le:
		return r <= 0
	case Gt:
		return r > 0
	}
	return r >= 0
}

func ordCmp[T ordered](nd *node, op Fn) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		a, b := nd.in[0], nd.in[1]
		o := nd.outBits(rows)
		x, y := col[T](a), col[T](b)
		switch {
		case b.konst && !a.konst:
			cmpVS(op, o, x[:rows], y[0])
		case a.konst && !b.konst:
			cmpVS(flip(op), o, y[:rows], x[0])
		default:
			cmpVV(op, o, x[:rows], y[:rows])
		}
		return nil
	}
}

func cmpVS[T ordered](op Fn, o []uint64, x []T, c T) {
	switch op {
	case Eq:
		eqVS(o, x, c)
	case Ne:
		eqVS(o, x, c)
		invert(o)
	case Lt:
		ltVS(o, x, c)
	case Le:
		leVS(o, x, c)
	case Gt:
		gtVS(o, x, c)
	case Ge:
		geVS(o, x, c)
	}
}

func cmpVV[T ordered](op Fn, o []uint64, x, y []T) {
	switch op {
	case Eq:
		eqVV(o, x, y)
	case Ne:
		eqVV(o, x, y)
		invert(o)
	case Lt:
		ltVV(o, x, y)
	case Le:
		leVV(o, x, y)
	case Gt:
		ltVV(o, y, x)
	case Ge:
		leVV(o, y, x)
	}
}

func invert(o []uint64) {
	for i := range o {
		o[i] = ^o[i]
	}
}

// The comparison loops pack 64 results into a word at a time, branch-free.

func eqVS[T ordered](o []uint64, x []T, c T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		var m uint64
		for j, v := range s {
			m |= b2u(v == c) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func ltVS[T ordered](o []uint64, x []T, c T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		var m uint64
		for j, v := range s {
			m |= b2u(v < c) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func leVS[T ordered](o []uint64, x []T, c T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		var m uint64
		for j, v := range s {
			m |= b2u(v <= c) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func gtVS[T ordered](o []uint64, x []T, c T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		var m uint64
		for j, v := range s {
			m |= b2u(v > c) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func geVS[T ordered](o []uint64, x []T, c T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		var m uint64
		for j, v := range s {
			m |= b2u(v >= c) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func eqVV[T ordered](o []uint64, x, y []T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		t := y[w*64 : w*64+len(s)]
		var m uint64
		for j, v := range s {
			m |= b2u(v == t[j]) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func ltVV[T ordered](o []uint64, x, y []T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		t := y[w*64 : w*64+len(s)]
		var m uint64
		for j, v := range s {
			m |= b2u(v < t[j]) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func leVV[T ordered](o []uint64, x, y []T) {
	for w := range o {
		s := x[w*64 : min(w*64+64, len(x))]
		t := y[w*64 : w*64+len(s)]
		var m uint64
		for j, v := range s {
			m |= b2u(v <= t[j]) << (uint(j) & 63)
		}
		o[w] = m
	}
}

func boolCmp(nd *node, op Fn) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		a, b := nd.in[0], nd.in[1]
		o := nd.outBits(rows)
		for w := range o {
			x, y := a.bitsWord(w), b.bitsWord(w)
			switch op { // FALSE < TRUE
			case Eq:
				o[w] = ^(x ^ y)
			case Ne:
				o[w] = x ^ y
			case Lt:
				o[w] = ^x & y
			case Le:
				o[w] = ^x | y
			case Gt:
				o[w] = x &^ y
			case Ge:
				o[w] = x | ^y
			}
		}
		return nil
	}
}

// strCmp compares UTF-8 bytes, which orders strings by code point as
// Flink's binary strings do. It visits only the live rows.
func strCmp(nd *node, op Fn) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		a, b := nd.in[0], nd.in[1]
		o := nd.outBits(rows)
		eq := op == Eq || op == Ne
		if a.konst != b.konst && eq {
			col, lit := a, b.str(0)
			if a.konst {
				col, lit = b, a.str(0)
			}
			if s, ok := shortOf(lit); ok {
				nd.matchShort(o, rows, act, col, s, whole)
				if op == Ne {
					invert(o)
				}
				return nil
			}
		}
		for w := range o {
			var r uint64
			for m := nd.liveWord(w, rows, act); m != 0; m &= m - 1 {
				j := bits.TrailingZeros64(m)
				x, y := a.str(w*64+j), b.str(w*64+j)
				var t bool
				if eq {
					t = string(x) == string(y)
				} else {
					t = holds(op, bytes.Compare(x, y))
				}
				r |= b2u(t) << (uint(j) & 63)
			}
			if op == Ne {
				r = ^r
			}
			o[w] = r
		}
		return nil
	}
}

// in compiles x IN (items). A list of literals becomes a sorted set probed
// per row; otherwise the call is OR(x = item, ...) over one shared x, which
// gives SQL's NULL rules for free.
func (c *compiler) in(e *Call) (*node, error) {
	if err := arity(e, 2, -1); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	xt := e.Args[0].Type()
	lits := true
	for _, a := range e.Args[1:] {
		if !comparable(xt, a.Type()) {
			return nil, errorf(e, "cannot compare %s with %s", xt, a.Type())
		}
		if xt.Kind == types.Null {
			xt = a.Type()
		}
		_, isLit := a.(*Lit)
		lits = lits && isLit
	}
	if xt.Kind == types.Null {
		xt = types.TBoolean
	}
	if physOf(xt) == pNull {
		return nil, errorf(e, "cannot compare values of type %s", xt)
	}
	x, err := c.arg(e.Args[0], xt)
	if err != nil {
		return nil, err
	}
	if lits {
		if nd := setNode(e, x); nd != nil {
			return nd, nil
		}
	}
	or := newNode(e.T)
	for _, a := range e.Args[1:] {
		t := a.Type()
		if t.Kind == types.Null {
			t = xt
		}
		y, err := c.arg(a, t)
		if err != nil {
			return nil, err
		}
		eq := cmpNode(e.T, Eq, x, y)
		c.fold(eq)
		or.kids = append(or.kids, eq)
	}
	or.run = func(s *state, n int, act []uint64) (*vec, error) { return or.logic(s, n, act, true) }
	return or, nil
}

// setNode builds the IN node probing a set of literals, or returns nil for
// types without a set probe.
func setNode(e *Call, x *node) *node {
	nd := newNode(e.T, x)
	nd.strict = true
	hasNull := false
	var i32 []int32
	var i64 []int64
	var f32 []float32
	var f64 []float64
	var strs []string
	for _, a := range e.Args[1:] {
		v := a.(*Lit).V
		if v.IsNull || v.Type.Kind == types.Null {
			hasNull = true
			continue
		}
		switch x.p {
		case pI32:
			i32 = append(i32, int32(v.Int))
		case pI64:
			i64 = append(i64, v.Int)
		case pF32:
			if !math.IsNaN(v.Float) { // NaN equals nothing
				f32 = append(f32, float32(v.Float))
			}
		case pF64:
			if !math.IsNaN(v.Float) {
				f64 = append(f64, v.Float)
			}
		case pStr:
			strs = append(strs, v.Str)
		}
	}
	switch x.p {
	case pI32:
		nd.kern = inSet(nd, i32, hasNull)
	case pI64:
		nd.kern = inSet(nd, i64, hasNull)
	case pF32:
		nd.kern = inSet(nd, f32, hasNull)
	case pF64:
		nd.kern = inSet(nd, f64, hasNull)
	case pStr:
		slices.Sort(strs)
		nd.kern = func(rows int, _ []uint64) error {
			x := nd.in[0]
			o := nd.outBits(rows)
			fill(o, 0)
			for i := 0; i < rows; i++ {
				o[i>>6] |= b2u(hasStr(strs, x.str(i))) << (uint(i) & 63)
			}
			nd.inNulls(rows, hasNull)
			return nil
		}
	default:
		return nil
	}
	return nd
}

func inSet[T ordered](nd *node, set []T, hasNull bool) func(int, []uint64) error {
	slices.Sort(set)
	return func(rows int, _ []uint64) error {
		x := col[T](nd.in[0])[:rows]
		o := nd.outBits(rows)
		if len(set) <= 8 { // a pass per item, as x = c OR x = d ...
			fill(o, 0)
			for _, c := range set {
				for w := range o {
					s := x[w*64 : min(w*64+64, len(x))]
					var m uint64
					for j, v := range s {
						m |= b2u(v == c) << (uint(j) & 63)
					}
					o[w] |= m
				}
			}
		} else {
			for w := range o {
				s := x[w*64 : min(w*64+64, len(x))]
				var m uint64
				for j, v := range s {
					m |= b2u(has(set, v)) << (uint(j) & 63)
				}
				o[w] = m
			}
		}
		nd.inNulls(rows, hasNull)
		return nil
	}
}

// inNulls makes the rows not found NULL when the list holds a NULL.
func (nd *node) inNulls(rows int, hasNull bool) {
	if !hasNull {
		return
	}
	v := nd.in[0]
	valid := grow(&nd.own.valid, words(rows))
	for w := range valid {
		valid[w] = v.validWord(w) & nd.out.bits[w]
	}
	nd.out.valid = valid
}

// has reports whether v is in the sorted set.
func has[T ordered](set []T, v T) bool {
	lo, hi := 0, len(set)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if set[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(set) && set[lo] == v
}

func hasStr(set []string, v []byte) bool {
	lo, hi := 0, len(set)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if set[m] < string(v) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(set) && set[lo] == string(v)
}
