package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/types"
)

// i256 is a two's-complement 256-bit integer, least significant word
// first: wide enough that the product, or the rescale, of two 38-digit
// decimals is exact.
type i256 [4]uint64

// pows[k] is 10^k, for every k a 38-digit decimal may be scaled by.
var pows = func() (p [78]i256) {
	p[0] = i256{1}
	for k := 1; k < len(p); k++ {
		p[k], _ = p[k-1].mulSmall(10)
	}
	return
}()

func fromNum(n decimal128.Num) i256 {
	hi := n.HighBits()
	ext := uint64(hi >> 63)
	return i256{n.LowBits(), uint64(hi), ext, ext}
}

func fromInt(v int64) i256 {
	ext := uint64(v >> 63)
	return i256{uint64(v), ext, ext, ext}
}

func (a i256) neg() bool { return int64(a[3]) < 0 }

func (a i256) isZero() bool { return a[0]|a[1]|a[2]|a[3] == 0 }

func (a i256) add(b i256) i256 {
	var c uint64
	a[0], c = bits.Add64(a[0], b[0], 0)
	a[1], c = bits.Add64(a[1], b[1], c)
	a[2], c = bits.Add64(a[2], b[2], c)
	a[3], _ = bits.Add64(a[3], b[3], c)
	return a
}

func (a i256) negate() i256 {
	for i := range a {
		a[i] = ^a[i]
	}
	return a.add(i256{1})
}

func (a i256) sub(b i256) i256 { return a.add(b.negate()) }

func (a i256) abs() i256 {
	if a.neg() {
		return a.negate()
	}
	return a
}

// cmp compares a and b as signed integers.
func (a i256) cmp(b i256) int {
	if a.neg() != b.neg() {
		if a.neg() {
			return -1
		}
		return 1
	}
	return a.cmpMag(b)
}

// cmpMag compares a and b as unsigned integers.
func (a i256) cmpMag(b i256) int {
	for i := 3; i >= 0; i-- {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// mulSmall multiplies an unsigned a by m, reporting overflow.
func (a i256) mulSmall(m uint64) (i256, bool) {
	var r i256
	var carry uint64
	for i := range a {
		hi, lo := bits.Mul64(a[i], m)
		var c uint64
		r[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	return r, carry != 0
}

// divSmall divides an unsigned a by d.
func (a i256) divSmall(d uint64) (i256, uint64) {
	var q i256
	var r uint64
	i := 3
	for i > 0 && a[i] == 0 {
		i--
	}
	for ; i >= 0; i-- {
		q[i], r = bits.Div64(r, a[i], d)
	}
	return q, r
}

// mulMag multiplies two unsigned values below 2^128.
func mulMag(a, b i256) i256 {
	var r i256
	h00, l00 := bits.Mul64(a[0], b[0])
	h01, l01 := bits.Mul64(a[0], b[1])
	h10, l10 := bits.Mul64(a[1], b[0])
	h11, l11 := bits.Mul64(a[1], b[1])
	var c, c2 uint64
	r[0] = l00
	r[1], c = bits.Add64(h00, l01, 0)
	r[1], c2 = bits.Add64(r[1], l10, 0)
	r[2], c = bits.Add64(h01, h10, c)
	r[3] = c
	r[2], c = bits.Add64(r[2], l11, c2)
	r[3] += h11 + c
	return r
}

// mul multiplies two signed values below 2^127 in magnitude.
func (a i256) mul(b i256) i256 {
	p := mulMag(a.abs(), b.abs())
	if a.neg() != b.neg() {
		return p.negate()
	}
	return p
}

// scaleUp multiplies by 10^k. The caller keeps the result within range
// (a 38-digit value times at most 10^38).
func (a i256) scaleUp(k int) i256 {
	if k == 0 {
		return a
	}
	n := a.neg()
	m := a.abs()
	for k > 0 {
		s := min(k, 18)
		m, _ = m.mulSmall(uint64(pow10[s]))
		k -= s
	}
	if n {
		return m.negate()
	}
	return m
}

// divPow divides an unsigned a by 10^k, truncating, and reports whether
// anything was cut off.
func (a i256) divPow(k int) (i256, bool) {
	cut := false
	for k > 0 {
		s := min(k, 18)
		var r uint64
		a, r = a.divSmall(uint64(pow10[s]))
		cut = cut || r != 0
		k -= s
	}
	return a, cut
}

// scaleDown divides by 10^k, rounding half away from zero: only the first
// digit cut off decides.
func (a i256) scaleDown(k int) i256 {
	if k == 0 {
		return a
	}
	n := a.neg()
	m, _ := a.abs().divPow(k - 1)
	m, r := m.divSmall(10)
	if r >= 5 {
		m = m.add(i256{1})
	}
	if n {
		return m.negate()
	}
	return m
}

// rescale changes a's scale, rounding half away from zero.
func (a i256) rescale(from, to int) i256 {
	if to >= from {
		return a.scaleUp(to - from)
	}
	return a.scaleDown(from - to)
}

// floorScale rounds a at scale from down (or, if up, up) to an integer.
func (a i256) floorScale(from int, up bool) i256 {
	n := a.neg()
	m, cut := a.abs().divPow(from)
	if cut && n != up {
		m = m.add(i256{1})
	}
	if n {
		return m.negate()
	}
	return m
}

// num converts to a decimal of precision p, reporting whether it fits.
func (a i256) num(p int) (decimal128.Num, bool) {
	if a.abs().cmpMag(pows[p]) >= 0 {
		return decimal128.Num{}, false
	}
	return decimal128.New(int64(a[1]), a[0]), true
}

// fits reports whether n has at most p digits.
func fits(n decimal128.Num, p int) bool {
	return fromNum(n).abs().cmpMag(pows[p]) < 0
}

func (a i256) big() *big.Int {
	m := a.abs()
	b := new(big.Int)
	for i := 3; i >= 0; i-- {
		b.Lsh(b, 64)
		b.Or(b, new(big.Int).SetUint64(m[i]))
	}
	if a.neg() {
		b.Neg(b)
	}
	return b
}

func fromBig(b *big.Int) (i256, bool) {
	if b.BitLen() > 254 {
		return i256{}, false
	}
	var m i256
	words := new(big.Int).Abs(b)
	mask := new(big.Int).SetUint64(^uint64(0))
	for i := range m {
		m[i] = new(big.Int).And(words, mask).Uint64()
		words.Rsh(words, 64)
	}
	if b.Sign() < 0 {
		return m.negate(), true
	}
	return m, true
}

// quo divides a by b (b not zero), rounding half away from zero. A divisor
// beyond 64 bits is rare enough to go through math/big.
func quo(a, b i256) (i256, bool) {
	n := a.neg() != b.neg()
	ma, mb := a.abs(), b.abs()
	var q i256
	if mb[1]|mb[2]|mb[3] == 0 {
		var r uint64
		q, r = ma.divSmall(mb[0])
		if r >= mb[0]-r {
			q = q.add(i256{1})
		}
	} else {
		bq, br := new(big.Int).QuoRem(ma.big(), mb.big(), new(big.Int))
		if br.Lsh(br, 1).Cmp(mb.big()) >= 0 {
			bq.Add(bq, big.NewInt(1))
		}
		var ok bool
		if q, ok = fromBig(bq); !ok {
			return i256{}, false
		}
	}
	if n {
		return q.negate(), true
	}
	return q, true
}

// rem is a % b (b not zero) with the sign of a.
func rem(a, b i256) i256 {
	ma, mb := a.abs(), b.abs()
	var r i256
	if mb[1]|mb[2]|mb[3] == 0 {
		_, r0 := ma.divSmall(mb[0])
		r = i256{r0}
	} else {
		r, _ = fromBig(new(big.Int).Rem(ma.big(), mb.big()))
	}
	if a.neg() {
		return r.negate()
	}
	return r
}

// decOp computes one decimal operation between operands of scales sa and
// sb into DECIMAL(p, s).
type decOp struct {
	fn           Fn
	sa, sb, p, s int
	// small is set when every value involved fits an int64: a sum is then
	// x*ka + y*kb, a product x*y/kd rounded, with no i256 at all.
	small      bool
	ka, kb, kd int64
}

func overflow(p, s int) error {
	return fmt.Errorf("%w: numeric overflow: value does not fit DECIMAL(%d, %d)", ErrRuntime, p, s)
}

// plan decides whether the operation can run on int64s: operands of
// precision pa and pb whose every intermediate stays below 10^18.
func (o *decOp) plan(pa, pb int) {
	switch o.fn {
	case Add, Sub:
		if o.s >= o.sa && o.s >= o.sb && pa-o.sa+o.s <= 18 && pb-o.sb+o.s <= 18 && o.p <= 18 {
			o.small, o.ka, o.kb = true, pow10[o.s-o.sa], pow10[o.s-o.sb]
			if o.fn == Sub {
				o.kb = -o.kb
			}
		}
	case Mul:
		if pa+pb <= 18 && o.s <= o.sa+o.sb && o.p <= 18 {
			o.small, o.kd = true, pow10[o.sa+o.sb-o.s]
		}
	}
}

func (o *decOp) apply64(x, y int64) (int64, bool) {
	var v int64
	if o.fn == Mul {
		v = roundDiv(x*y, o.kd)
	} else {
		v = x*o.ka + y*o.kb
	}
	return v, v > -pow10[o.p] && v < pow10[o.p]
}

// roundDiv is v / k rounded half away from zero.
func roundDiv(v, k int64) int64 {
	q, r := v/k, v%k
	switch {
	case r > 0 && r >= k-r:
		q++
	case r < 0 && -r >= k+r:
		q--
	}
	return q
}

// int64Of returns n as an int64 if it fits one.
func int64Of(n decimal128.Num) (int64, bool) {
	lo := int64(n.LowBits())
	return lo, n.HighBits() == lo>>63
}

// mul64 multiplies on int64s when the values of this row allow it (both
// fit an int64, the product stays below 2^62 and is not scaled up), as a
// BIGINT times a short constant does, whatever the declared precisions.
// ok is false when the row needs the general path, overflow included.
func (o *decOp) mul64(x, y decimal128.Num) (decimal128.Num, bool) {
	a, ok1 := int64Of(x)
	b, ok2 := int64Of(y)
	k := o.sa + o.sb - o.s
	if !ok1 || !ok2 || k < 0 || k > 18 {
		return decimal128.Num{}, false
	}
	hi, lo := bits.Mul64(uint64(max(a, -a)), uint64(max(b, -b)))
	if hi != 0 || lo >= 1<<62 || a == math.MinInt64 || b == math.MinInt64 {
		return decimal128.Num{}, false
	}
	v := a * b
	if k > 0 {
		v = roundDiv(v, pow10[k])
	}
	if o.p < 19 && (v >= pow10[o.p] || v <= -pow10[o.p]) {
		return decimal128.Num{}, false
	}
	return decimal128.FromI64(v), true
}

func (o *decOp) apply(x, y decimal128.Num) (decimal128.Num, error) {
	if o.fn == Mul {
		if r, ok := o.mul64(x, y); ok {
			return r, nil
		}
	}
	a, b := fromNum(x), fromNum(y)
	var r i256
	switch o.fn {
	case Add, Sub:
		cs := max(o.sa, o.sb)
		a, b = a.scaleUp(cs-o.sa), b.scaleUp(cs-o.sb)
		if o.fn == Add {
			r = a.add(b)
		} else {
			r = a.sub(b)
		}
		r = r.rescale(cs, o.s)
	case Mul:
		r = a.mul(b).rescale(o.sa+o.sb, o.s)
	case Div:
		if b.isZero() {
			return decimal128.Num{}, errDivZero
		}
		// a/10^sa / (b/10^sb) at scale s is a * 10^(s+sb-sa) / b.
		e := o.s + o.sb - o.sa
		if e > 38 || e < -38 {
			return decBig(a, b, e, o.p, o.s)
		}
		if e >= 0 {
			a = a.scaleUp(e)
		} else {
			b = b.scaleUp(-e)
		}
		var ok bool
		if r, ok = quo(a, b); !ok {
			return decimal128.Num{}, overflow(o.p, o.s)
		}
	case Mod:
		if b.isZero() {
			return decimal128.Num{}, errDivZero
		}
		cs := max(o.sa, o.sb)
		r = rem(a.scaleUp(cs-o.sa), b.scaleUp(cs-o.sb)).rescale(cs, o.s)
	}
	n, ok := r.num(o.p)
	if !ok {
		return decimal128.Num{}, overflow(o.p, o.s)
	}
	return n, nil
}

// decBig divides when the scales are too far apart for i256.
func decBig(a, b i256, e, p, s int) (decimal128.Num, error) {
	num, den := a.big(), b.big()
	ten := big.NewInt(10)
	if e >= 0 {
		num.Mul(num, new(big.Int).Exp(ten, big.NewInt(int64(e)), nil))
	} else {
		den.Mul(den, new(big.Int).Exp(ten, big.NewInt(int64(-e)), nil))
	}
	neg := num.Sign()*den.Sign() < 0
	num.Abs(num)
	den.Abs(den)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	v, ok := fromBig(q)
	if !ok {
		return decimal128.Num{}, overflow(p, s)
	}
	n, ok := v.num(p)
	if !ok {
		return decimal128.Num{}, overflow(p, s)
	}
	return n, nil
}

func validDecimal(t types.Type) bool {
	return t.Kind == types.Decimal && t.Precision >= 1 && t.Precision <= 38 && t.Scale >= 0 && t.Scale <= t.Precision
}

func (c *compiler) decArith(e *Call) (*node, error) {
	ta, tb := e.Args[0].Type(), e.Args[1].Type()
	if ta.Kind == types.Null {
		ta = e.T
	}
	if tb.Kind == types.Null {
		tb = e.T
	}
	for _, t := range []types.Type{ta, tb, e.T} {
		if !validDecimal(t) {
			return nil, errorf(e, "%s needs DECIMAL operands and result, got %s", e.Fn, t)
		}
	}
	x, err := c.arg(e.Args[0], ta)
	if err != nil {
		return nil, err
	}
	y, err := c.arg(e.Args[1], tb)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x, y)
	nd.strict = true
	op := &decOp{fn: e.Fn, sa: ta.Scale, sb: tb.Scale, p: e.T.Precision, s: e.T.Scale}
	op.plan(ta.Precision, tb.Precision)
	nd.kern = func(rows int, act []uint64) error {
		a, b := nd.in[0], nd.in[1]
		x, y := col[decimal128.Num](a), col[decimal128.Num](b)
		xi, yi := step(a), step(b)
		o := out[decimal128.Num](nd, rows)
		if op.small {
			for i := range o {
				// The low word of a value below 10^18 is the value.
				v, ok := op.apply64(int64(x[i*xi].LowBits()), int64(y[i*yi].LowBits()))
				if !ok && nd.live(i, act) {
					return overflow(op.p, op.s)
				}
				o[i] = decimal128.FromI64(v)
			}
			return nil
		}
		for i := range o {
			if !nd.live(i, act) {
				o[i] = decimal128.Num{}
				continue
			}
			r, err := op.apply(x[i*xi], y[i*yi])
			if err != nil {
				return err
			}
			o[i] = r
		}
		return nil
	}
	return nd, nil
}

// step is the index stride of a vec's values: 0 for a constant.
func step(v *vec) int {
	if v.konst {
		return 0
	}
	return 1
}

// decCmp compares decimals, aligning scales when they differ.
func decCmp(nd *node, op Fn, sa, sb int) func(int, []uint64) error {
	cs := max(sa, sb)
	return func(rows int, _ []uint64) error {
		a, b := nd.in[0], nd.in[1]
		x, y := col[decimal128.Num](a), col[decimal128.Num](b)
		xi, yi := step(a), step(b)
		o := nd.outBits(rows)
		fill(o, 0)
		for i := 0; i < rows; i++ {
			var r int
			if sa == sb {
				r = x[i*xi].Cmp(y[i*yi])
			} else {
				r = fromNum(x[i*xi]).scaleUp(cs - sa).cmp(fromNum(y[i*yi]).scaleUp(cs - sb))
			}
			o[i>>6] |= b2u(holds(op, r)) << (uint(i) & 63)
		}
		return nil
	}
}

// decUnary compiles NEG, ABS, FLOOR, CEIL and ROUND on decimals; the
// result is rescaled to the call's type.
func (c *compiler) decUnary(e *Call, digits int) (*node, error) {
	t := e.Args[0].Type()
	if t.Kind == types.Null {
		t = e.T
	}
	if !validDecimal(t) || !validDecimal(e.T) {
		return nil, errorf(e, "%s needs a DECIMAL operand and result", e.Fn)
	}
	x, err := c.arg(e.Args[0], t)
	if err != nil {
		return nil, err
	}
	nd := newNode(e.T, x)
	nd.strict = true
	s, p, rs := t.Scale, e.T.Precision, e.T.Scale
	fn := e.Fn
	nd.kern = func(rows int, act []uint64) error {
		v := col[decimal128.Num](nd.in[0])[:rows]
		o := out[decimal128.Num](nd, rows)
		for i, n := range v {
			a := fromNum(n)
			switch fn {
			case Neg:
				a = a.negate().rescale(s, rs)
			case Abs:
				a = a.abs().rescale(s, rs)
			case Floor, Ceil:
				a = a.floorScale(s, fn == Ceil).scaleUp(rs)
			case Round:
				if digits < s {
					a = a.rescale(s, max(digits, -38)).rescale(max(digits, -38), rs)
				} else {
					a = a.rescale(s, rs)
				}
			}
			r, ok := a.num(p)
			if !ok {
				if isSet(nd.out.valid, i) && on(act, i) {
					return overflow(p, rs)
				}
				nd.setNull(i, rows)
			}
			o[i] = r
		}
		return nil
	}
	return nd, nil
}
