package expr

import "github.com/strandsql/strand/types"

func (c *compiler) logic(e *Call) (*node, error) {
	if err := arity(e, 1, -1); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	nd := newNode(e.T)
	for _, a := range e.Args {
		k, err := c.typed(e, a, types.TBoolean, isBool)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, k)
	}
	or := e.Fn == Or
	nd.run = func(s *state, n int, act []uint64) (*vec, error) { return nd.logic(s, n, act, or) }
	return nd, nil
}

// logic evaluates an n-ary AND (or OR) with SQL's three-valued logic. A row
// is decided once an argument is FALSE (TRUE for OR); later arguments are
// evaluated only for the rows still undecided, which both saves work and
// keeps `b <> 0 AND a / b > 1` from dividing by zero.
func (nd *node) logic(s *state, n int, act []uint64, or bool) (*vec, error) {
	nw := words(n)
	dec := grow(&nd.own.mask, nw)
	unk := grow(&nd.own.valid, nw) // some argument is NULL
	fill(dec, 0)
	fill(unk, 0)
	nulls := false
	sub := act
	for k, kid := range nd.kids {
		if k > 0 {
			sub = grow(&nd.own.sub, nw)
			for w := range sub {
				a := ^uint64(0)
				if act != nil {
					a = act[w]
				}
				sub[w] = a &^ dec[w]
			}
			if !anySet(sub, n) {
				break
			}
		}
		v, err := kid.eval(s, n, sub)
		if err != nil {
			return nil, err
		}
		nulls = nulls || v.valid != nil
		for w := range dec {
			vw, bw := v.validWord(w), v.bitsWord(w)
			if or {
				dec[w] |= vw & bw
			} else {
				dec[w] |= vw &^ bw
			}
			unk[w] |= ^vw
		}
	}
	nd.out = vec{}
	bits := nd.outBits(n)
	for w := range bits {
		if or {
			bits[w] = dec[w]
		} else {
			bits[w] = ^dec[w]
		}
	}
	if nulls {
		for w := range unk {
			unk[w] = dec[w] | ^unk[w]
		}
		nd.out.valid = unk
	}
	return &nd.out, nil
}

func (c *compiler) not(e *Call) (*node, error) {
	if err := arity(e, 1, 1); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	x, err := c.typed(e, e.Args[0], types.TBoolean, isBool)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	nd.kern = func(rows int, _ []uint64) error {
		v := nd.in[0]
		o := nd.outBits(rows)
		for w := range o {
			o[w] = ^v.bitsWord(w)
		}
		return nil
	}
	return nd, nil
}

// test compiles the IS [NOT] NULL/TRUE/FALSE predicates, which are never
// NULL.
func (c *compiler) test(e *Call) (*node, error) {
	if err := arity(e, 1, 1); err != nil {
		return nil, err
	}
	if !isBool(e.T) {
		return nil, errorf(e, "result must be BOOLEAN, not %s", e.T)
	}
	var x *node
	var err error
	if e.Fn == IsNull || e.Fn == IsNotNull {
		x, err = c.arg(e.Args[0], types.TBoolean)
	} else {
		x, err = c.typed(e, e.Args[0], types.TBoolean, isBool)
	}
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	fn := e.Fn
	nd.kern = func(rows int, _ []uint64) error {
		v := nd.in[0]
		o := nd.outBits(rows)
		for w := range o {
			vw := v.validWord(w)
			switch fn {
			case IsNull:
				o[w] = ^vw
			case IsNotNull:
				o[w] = vw
			case IsTrue:
				o[w] = vw & v.bitsWord(w)
			case IsNotTrue:
				o[w] = ^(vw & v.bitsWord(w))
			case IsFalse:
				o[w] = vw &^ v.bitsWord(w)
			case IsNotFalse:
				o[w] = ^(vw &^ v.bitsWord(w))
			}
		}
		return nil
	}
	return nd, nil
}
