package expr

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/strandsql/strand/types"
)

type num interface {
	~int32 | ~int64 | ~float32 | ~float64
}

type integer interface{ ~int32 | ~int64 }

type float interface{ ~float32 | ~float64 }

var errDivZero = fmt.Errorf("%w: division by zero", ErrRuntime)

func (c *compiler) arith(e *Call) (*node, error) {
	if err := arity(e, 2, 2); err != nil {
		return nil, err
	}
	if e.T.Kind == types.Decimal {
		return c.decArith(e)
	}
	ok := e.T.IsNumeric() || (e.T.IsInterval() && (e.Fn == Add || e.Fn == Sub))
	if !ok {
		return nil, errorf(e, "%s is not defined on %s", e.Fn, e.T)
	}
	for _, a := range e.Args {
		if !sameType(a.Type(), e.T) {
			return nil, errorf(e, "operand %s is %s, the result %s", a, a.Type(), e.T)
		}
	}
	x, err := c.arg(e.Args[0], e.T)
	if err != nil {
		return nil, err
	}
	y, err := c.arg(e.Args[1], e.T)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x, y)
	nd.strict = true
	switch nd.p {
	case pI32:
		nd.kern = intArith[int32](nd, e.Fn)
	case pI64:
		nd.kern = intArith[int64](nd, e.Fn)
	case pF32:
		nd.kern = arithKern[float32](nd, e.Fn)
	case pF64:
		nd.kern = arithKern[float64](nd, e.Fn)
	}
	return nd, nil
}

func intArith[T integer](nd *node, op Fn) func(int, []uint64) error {
	if op == Div || op == Mod {
		return intDiv[T](nd, op == Mod)
	}
	return arithKern[T](nd, op)
}

// arithKern computes + - * (and / and MOD for floats), with a constant
// operand kept scalar. Integer overflow wraps, as in Java; float division by
// zero follows IEEE.
func arithKern[T num](nd *node, op Fn) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		a, b := nd.in[0], nd.in[1]
		o := out[T](nd, rows)
		x, y := col[T](a), col[T](b)
		switch {
		case b.konst && !a.konst:
			arithVS(op, o, x[:rows], y[0])
		case a.konst && !b.konst:
			arithSV(op, o, x[0], y[:rows])
		default:
			arithVV(op, o, x[:rows], y[:rows])
		}
		return nil
	}
}

func arithVV[T num](op Fn, o, x, y []T) {
	x, y = x[:len(o)], y[:len(o)]
	switch op {
	case Add:
		for i := range o {
			o[i] = x[i] + y[i]
		}
	case Sub:
		for i := range o {
			o[i] = x[i] - y[i]
		}
	case Mul:
		for i := range o {
			o[i] = x[i] * y[i]
		}
	case Div:
		for i := range o {
			o[i] = x[i] / y[i]
		}
	case Mod:
		for i := range o {
			o[i] = fmod(x[i], y[i])
		}
	}
}

func arithVS[T num](op Fn, o, x []T, c T) {
	x = x[:len(o)]
	switch op {
	case Add:
		for i, v := range x {
			o[i] = v + c
		}
	case Sub:
		for i, v := range x {
			o[i] = v - c
		}
	case Mul:
		for i, v := range x {
			o[i] = v * c
		}
	case Div:
		for i, v := range x {
			o[i] = v / c
		}
	case Mod:
		for i, v := range x {
			o[i] = fmod(v, c)
		}
	}
}

func arithSV[T num](op Fn, o []T, c T, y []T) {
	y = y[:len(o)]
	switch op {
	case Add:
		for i, v := range y {
			o[i] = c + v
		}
	case Sub:
		for i, v := range y {
			o[i] = c - v
		}
	case Mul:
		for i, v := range y {
			o[i] = c * v
		}
	case Div:
		for i, v := range y {
			o[i] = c / v
		}
	case Mod:
		for i, v := range y {
			o[i] = fmod(c, v)
		}
	}
}

// fmod is Java's % on floating point: the sign of the dividend.
func fmod[T num](a, b T) T { return T(math.Mod(float64(a), float64(b))) }

// intDiv divides integers, truncating toward zero (MOD takes the sign of
// the dividend), as Java does. A zero divisor on a non-NULL active row is an
// error.
func intDiv[T integer](nd *node, mod bool) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		a, b := nd.in[0], nd.in[1]
		o := out[T](nd, rows)
		x, y := col[T](a), col[T](b)
		if b.konst {
			d := y[0]
			if d == 0 {
				return nd.divZero(rows, act)
			}
			x = x[:rows]
			if mod {
				for i, v := range x {
					o[i] = v % d
				}
			} else {
				for i, v := range x {
					o[i] = v / d
				}
			}
			return nil
		}
		for i := 0; i < rows; i++ {
			d := y[i]
			if d == 0 {
				if isSet(nd.out.valid, i) && on(act, i) {
					return errDivZero
				}
				nd.setNull(i, rows)
				o[i] = 0
				continue
			}
			v := x[0]
			if !a.konst {
				v = x[i]
			}
			if mod {
				o[i] = v % d
			} else {
				o[i] = v / d
			}
		}
		return nil
	}
}

// divZero handles a constant zero divisor: an error if any row needs the
// quotient, else every row is NULL.
func (nd *node) divZero(rows int, act []uint64) error {
	for i := 0; i < rows; i++ {
		if isSet(nd.out.valid, i) && on(act, i) {
			return errDivZero
		}
	}
	nd.out.valid = grow(&nd.own.valid, words(rows))
	fill(nd.out.valid, 0)
	return nil
}

// isSet reports whether bit i of a validity bitmap is set, nil meaning all.
func isSet(w []uint64, i int) bool {
	return w == nil || w[i>>6]>>(uint(i)&63)&1 != 0
}

func (c *compiler) unary(e *Call) (*node, error) {
	max := 1
	if e.Fn == Round {
		max = 2
	}
	if err := arity(e, 1, max); err != nil {
		return nil, err
	}
	t := e.Args[0].Type()
	ok := t.IsNumeric() || (t.IsInterval() && (e.Fn == Neg || e.Fn == Abs))
	if !ok && t.Kind != types.Null {
		return nil, errorf(e, "%s is not defined on %s", e.Fn, t)
	}
	digits := 0
	if len(e.Args) == 2 {
		l, isLit := e.Args[1].(*Lit)
		if !isLit || l.V.IsNull || !l.V.Type.IsIntegral() {
			return nil, errorf(e, "ROUND's digits must be an integer literal")
		}
		digits = int(l.V.Int)
	}
	if e.T.Kind == types.Decimal || t.Kind == types.Decimal {
		return c.decUnary(e, digits)
	}
	if !sameType(t, e.T) {
		return nil, errorf(e, "operand is %s, the result %s", t, e.T)
	}
	x, err := c.arg(e.Args[0], e.T)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	integral := nd.p == pI32 || nd.p == pI64
	if integral && (e.Fn == Floor || e.Fn == Ceil || (e.Fn == Round && digits >= 0)) {
		nd.run = func(s *state, n int, act []uint64) (*vec, error) { return x.eval(s, n, act) }
		return nd, nil
	}
	switch nd.p {
	case pI32:
		nd.kern = intUnary[int32](nd, e.Fn, digits)
	case pI64:
		nd.kern = intUnary[int64](nd, e.Fn, digits)
	case pF32:
		nd.kern = floatUnary[float32](nd, e.Fn, digits, 32)
	case pF64:
		nd.kern = floatUnary[float64](nd, e.Fn, digits, 64)
	default:
		return nil, errorf(e, "%s is not defined on %s", e.Fn, e.T)
	}
	return nd, nil
}

func intUnary[T integer](nd *node, fn Fn, digits int) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		x := col[T](nd.in[0])[:rows]
		o := out[T](nd, rows)
		switch fn {
		case Neg:
			for i, v := range x {
				o[i] = -v
			}
		case Abs:
			for i, v := range x {
				if v < 0 {
					v = -v
				}
				o[i] = v
			}
		case Round:
			for i, v := range x {
				o[i] = roundInt(v, -digits)
			}
		}
		return nil
	}
}

// roundInt rounds v to a multiple of 10^k, half away from zero.
func roundInt[T integer](v T, k int) T {
	if k >= len(pow10) {
		return 0
	}
	p := pow10[k]
	x := int64(v)
	q, r := x/p, x%p
	switch {
	case r >= p/2 && r > 0:
		q++
	case r <= -p/2 && r < 0:
		q--
	}
	return T(q * p)
}

var pow10 = [...]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

func floatUnary[T float](nd *node, fn Fn, digits, bits int) func(int, []uint64) error {
	return func(rows int, _ []uint64) error {
		x := col[T](nd.in[0])[:rows]
		o := out[T](nd, rows)
		switch fn {
		case Neg:
			for i, v := range x {
				o[i] = -v
			}
		case Abs:
			for i, v := range x {
				o[i] = T(math.Abs(float64(v)))
			}
		case Floor:
			for i, v := range x {
				o[i] = T(math.Floor(float64(v)))
			}
		case Ceil:
			for i, v := range x {
				o[i] = T(math.Ceil(float64(v)))
			}
		case Round:
			buf := nd.own.data[:0]
			for i, v := range x {
				var r float64
				r, buf = roundFloat(float64(v), digits, bits, buf)
				o[i] = T(r)
			}
			nd.own.data = buf
		}
		return nil
	}
}

// roundFloat rounds f half away from zero to digits decimal places, on the
// shortest decimal that reads back as f: Flink rounds
// BigDecimal.valueOf(f), so ROUND(2.675, 2) is 2.68 although the binary
// value is a little below 2.675.
func roundFloat(f float64, digits, bits int, buf []byte) (float64, []byte) {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f, buf
	}
	if cap(buf) < 128 {
		buf = make([]byte, 0, 128)
	}
	buf = strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	neg := buf[0] == '-'
	m := buf
	if neg {
		m = m[1:]
	}
	e := 0
	for i, ch := range m {
		if ch == 'e' {
			for _, d := range m[i+2:] {
				e = e*10 + int(d-'0')
			}
			if m[i+1] == '-' {
				e = -e
			}
			m = m[:i]
			break
		}
	}
	// m is d[.ddd]; collect the digits in place: f = 0.DIGITS * 10^(e+1).
	n := 0
	for _, ch := range m {
		if ch != '.' {
			m[n] = ch
			n++
		}
	}
	ds := m[:n]
	keep := e + 1 + digits
	if keep >= len(ds) {
		return f, buf
	}
	if keep < 0 {
		return 0, buf
	}
	up := ds[keep] >= '5'
	ds = ds[:keep]
	for i := len(ds) - 1; up && i >= 0; i-- {
		if ds[i] == '9' {
			ds[i] = '0'
		} else {
			ds[i]++
			up = false
		}
	}
	// Build "[-][1]DIGITSe-digits" after the scratch digits.
	tmp := buf[len(buf):]
	if neg {
		tmp = append(tmp, '-')
	}
	if up {
		tmp = append(tmp, '1')
	}
	tmp = append(tmp, ds...)
	if len(ds) == 0 && !up {
		return 0, buf
	}
	tmp = append(tmp, 'e')
	tmp = strconv.AppendInt(tmp, int64(-digits), 10)
	// Out of range, ParseFloat saturates to ±Inf as Java does.
	r, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(tmp), len(tmp)), bits)
	return r, buf
}
