package expr

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// GREATEST and LEAST take arguments of the call's type (the planner casts
// them to their common type) and are strict, as Flink's: one NULL argument
// makes the row NULL. Strings compare by UTF-8 bytes, as everywhere.

func (c *compiler) choose(e *Call) (*node, error) {
	if err := arity(e, 1, -1); err != nil {
		return nil, err
	}
	nd := newNode(e.T)
	for _, a := range e.Args {
		k, err := c.branch(e, a, e.T)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, k)
	}
	nd.in = make([]*vec, len(nd.kids))
	nd.strict = true
	most := e.Fn == Greatest
	switch nd.p {
	case pI32:
		nd.kern = chooseKern[int32](nd, most)
	case pI64:
		nd.kern = chooseKern[int64](nd, most)
	case pF32:
		nd.kern = chooseKern[float32](nd, most)
	case pF64:
		nd.kern = chooseKern[float64](nd, most)
	case pDec:
		nd.kern = chooseDec(nd, most)
	case pStr:
		nd.kern = chooseStr(nd, most)
	default:
		return nil, errorf(e, "%s is not defined on %s", e.Fn, e.T)
	}
	return nd, nil
}

func chooseKern[T ordered](nd *node, most bool) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		o := out[T](nd, rows)
		first := nd.in[0]
		x := col[T](first)
		if first.konst {
			for i := range o {
				o[i] = x[0]
			}
		} else {
			copy(o, x[:rows])
		}
		for _, v := range nd.in[1:] {
			y := col[T](v)
			if v.konst {
				for i := range o {
					o[i] = pick(o[i], y[0], most)
				}
				continue
			}
			for i := range o {
				o[i] = pick(o[i], y[i], most)
			}
		}
		return nil
	}
}

func pick[T ordered](a, b T, most bool) T {
	if (most && b > a) || (!most && b < a) {
		return b
	}
	return a
}

func chooseDec(nd *node, most bool) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		o := out[decimal128.Num](nd, rows)
		for i := range o {
			best := col[decimal128.Num](nd.in[0])[i*step(nd.in[0])]
			for _, v := range nd.in[1:] {
				x := col[decimal128.Num](v)[i*step(v)]
				if (most && x.Greater(best)) || (!most && x.Less(best)) {
					best = x
				}
			}
			o[i] = best
		}
		return nil
	}
}

func chooseStr(nd *node, most bool) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		n := 0
		for _, v := range nd.in {
			n = max(n, size(v, rows))
		}
		offs := nd.strs(rows, n)
		d := nd.own.data
		for i := 0; i < rows; i++ {
			if nd.live(i, act) {
				best := nd.in[0].str(i)
				for _, v := range nd.in[1:] {
					s := bytes.Compare(v.str(i), best)
					if (most && s > 0) || (!most && s < 0) {
						best = v.str(i)
					}
				}
				d = append(d, best...)
			}
			offs[i+1] = int32(len(d))
		}
		nd.own.data = d
		nd.strsDone(offs)
		return nil
	}
}
