package agg

import (
	"errors"
	"math"
	"math/bits"
)

// Exact floating-point sums. Every finite double is an integer multiple of
// 2^-1074 (the smallest subnormal) below 2^1024, so a sum of doubles is an
// integer in those units: a fixed-point number of 2098 bits plus carries.
// strand keeps that integer exactly (a Kulisch accumulator) and rounds it
// once, to nearest even, when the result is taken. The result then depends
// only on the multiset of values added and retracted, never on their order
// or on how partial sums were merged, and retracting a value returns the
// state to exactly what it was.
//
// Most groups hold values of similar magnitude, so a group's slot keeps
// only a window of three 64-bit limbs of that integer (fslot): the values
// land in its two lower limbs, and the top limb takes the carries. Adding
// a double there is a shift and a carry chain of three bits.Add64, with no
// branch but the (predicted) test that the value falls in the window and
// the sum does not overflow it. A value outside the window moves the
// window when the sum fits the moved one; otherwise, and for NaN and the
// infinities, the group moves to a full accumulator (fwide) in a side
// table, rarely.

const (
	// fsumLimbs is a full accumulator's width: 34 limbs of 64 bits. Bit i
	// weighs 2^(i-1074); a double's mantissa reaches bit 2097 at most, so
	// the 78 bits above take the carries of any count of additions that
	// fits an int64.
	fsumLimbs = 34
	// fsumTop is the highest base of a slot's window.
	fsumTop = fsumLimbs - 3
	// fsumHome is the base of an empty slot's window: limbs 15 and 16
	// hold the values from 2^-62 to 2^65 (about 2e-19 to 4e19), so the
	// first value of a new group mostly needs no move.
	fsumHome = 15
	// fsumBig is the base of a slot whose sum is in the side table, at
	// w[0].
	fsumBig = 0xff ^ fsumHome
	signBit = 1 << 63
	// fsumLater is the bit of an exact sum's header byte (floatSumAcc.Put)
	// that marks an encoding of a later strand: this one writes headers
	// below 0x80 (k ≤ fsumLimbs) and refuses any other.
	fsumLater = 0x80
)

// ErrLaterFormat is wrapped by the error of Get when its input is state
// that a later version of strand wrote in a format this one does not
// read: a restore refuses it rather than guess.
var ErrLaterFormat = errors.New("agg: accumulator state of a later strand, which this one cannot read")

// fslot is a group's exact float sum: the two's complement integer w
// whose limb i weighs 2^(64·(base+i)) units of 2^-1074, and the count of
// non-NULL values n, kept as nb = n<<8 | base^fsumHome so that a slot is
// 32 bytes, half a cache line. The zero fslot is an empty group (sum 0,
// base fsumHome: a zero sum takes any base).
type fslot struct {
	w  [3]uint64
	nb int64
}

func (s *fslot) n() int64        { return s.nb >> 8 }
func (s *fslot) base() int32     { return int32(s.nb&0xff) ^ fsumHome }
func (s *fslot) setBase(b int32) { s.nb = s.nb&^0xff | int64(b^fsumHome) }

// addLimbs adds the three limbs v plus carry c to s's window, unless the
// window overflows: then s is unchanged and addLimbs reports false.
func (s *fslot) addLimbs(v0, v1, v2, c uint64) bool {
	w0, c := bits.Add64(s.w[0], v0, c)
	w1, c := bits.Add64(s.w[1], v1, c)
	w2, _ := bits.Add64(s.w[2], v2, c)
	if int64((s.w[2]^w2)&(v2^w2)) < 0 {
		return false
	}
	s.w = [3]uint64{w0, w1, w2}
	return true
}

// fwide is a full accumulator: the sum's finite part as a two's complement
// integer over every limb, and counts of the NaN and infinite values.
type fwide struct {
	w               [fsumLimbs]uint64
	nan, pinf, ninf int64
}

// finite splits a finite, nonzero double's bits into its mantissa m and
// the position p of m's lowest bit: |x| = m·2^p units of 2^-1074.
func finite(b uint64) (p int, m uint64) {
	e := int(b>>52) & 0x7ff
	m = b & (1<<52 - 1)
	if e == 0 {
		return 0, m
	}
	return e - 1, m | 1<<52
}

// place returns m·2^p as the limb L it starts in and the two limbs it
// covers there.
func place(p int, m uint64) (l int, lo, hi uint64) {
	s := uint(p & 63)
	return p >> 6, m << s, m >> (64 - s)
}

// preferredBase is the window base for a first value that starts in limb
// l: one limb below it when the value fits that limb, so that smaller
// values fit too.
func preferredBase(l int, hi uint64) int {
	if hi == 0 {
		l--
	}
	return min(max(l, 0), fsumTop)
}

// add adds m·2^p units, negated when neg, carrying as far as needed.
func (w *fwide) add(p int, m uint64, neg bool) {
	l, lo, hi := place(p, m)
	var c uint64
	if !neg {
		w.w[l], c = bits.Add64(w.w[l], lo, 0)
		w.w[l+1], c = bits.Add64(w.w[l+1], hi, c)
		for i := l + 2; c != 0 && i < fsumLimbs; i++ {
			w.w[i], c = bits.Add64(w.w[i], 0, c)
		}
		return
	}
	w.w[l], c = bits.Sub64(w.w[l], lo, 0)
	w.w[l+1], c = bits.Sub64(w.w[l+1], hi, c)
	for i := l + 2; c != 0 && i < fsumLimbs; i++ {
		w.w[i], c = bits.Sub64(w.w[i], 0, c)
	}
}

// addWindow adds a slot's window v at base, sign-extended above it.
func (w *fwide) addWindow(v [3]uint64, base int) {
	var c uint64
	for i, x := range v {
		w.w[base+i], c = bits.Add64(w.w[base+i], x, c)
	}
	ext := uint64(int64(v[2]) >> 63)
	for i := base + 3; i < fsumLimbs; i++ {
		w.w[i], c = bits.Add64(w.w[i], ext, c)
	}
}

// addWide adds o, its special values too.
func (w *fwide) addWide(o *fwide) {
	var c uint64
	for i := range w.w {
		w.w[i], c = bits.Add64(w.w[i], o.w[i], c)
	}
	w.nan += o.nan
	w.pinf += o.pinf
	w.ninf += o.ninf
}

// count adds d to the count of the special value of bits b.
func (w *fwide) count(b uint64, d int64) {
	switch {
	case b&(1<<52-1) != 0:
		w.nan += d
	case b&signBit != 0:
		w.ninf += d
	default:
		w.pinf += d
	}
}

// window returns the sum as a slot's window, with the base closest to pref
// at which it fits; ok is false if it has special values or does not fit
// three limbs.
func (w *fwide) window(pref int) (v [3]uint64, base int32, ok bool) {
	if w.nan != 0 || w.pinf != 0 || w.ninf != 0 {
		return v, 0, false
	}
	lz := 0
	for lz < fsumLimbs && w.w[lz] == 0 {
		lz++
	}
	if lz == fsumLimbs {
		return v, int32(min(max(pref, 0), fsumTop)), true
	}
	hz := significant(w.w[:])
	lowest, highest := max(hz-2, 0), min(lz, fsumTop)
	if lowest > highest {
		return v, 0, false
	}
	b := min(max(pref, lowest), highest)
	copy(v[:], w.w[b:])
	return v, int32(b), true
}

// significant returns the index of the highest limb of the two's
// complement integer l that is not the sign extension of the limbs below
// it.
func significant(l []uint64) int {
	t := len(l) - 1
	for t > 0 && l[t] == uint64(int64(l[t-1])>>63) {
		t--
	}
	return t
}

// fsumFormat is an IEEE binary format to round to: frac fraction bits, its
// smallest subnormal 2^shift units of 2^-1074, and its exponent field of
// all ones (infinity and NaN) maxE.
type fsumFormat struct {
	frac, shift int
	maxE        uint64
}

var (
	binary64 = fsumFormat{frac: 52, shift: 0, maxE: 0x7ff}
	binary32 = fsumFormat{frac: 23, shift: 1074 - 149, maxE: 0xff}
)

// round rounds the sum of two's complement limbs l (limb i weighs
// 2^(64·(base+i)) units) to nearest, ties to even, in format f: it returns
// the format's bits, with the sign, and whether the sum was not exact. A
// sum past the format's range is an infinity, as IEEE addition overflows;
// a zero sum is +0, as IEEE addition gives for x + -x.
func (f fsumFormat) round(l []uint64, base int) (uint64, bool) {
	neg := int64(l[len(l)-1]) < 0
	var buf [fsumLimbs]uint64
	mag := buf[:len(l)]
	copy(mag, l)
	if neg {
		negate(mag)
	}
	return f.roundMag(mag, base, neg)
}

// roundWindow is round of a slot's window (round takes a full
// accumulator, and zeroes one on the stack).
func (f fsumFormat) roundWindow(w [3]uint64, base int) (uint64, bool) {
	if f == binary64 {
		return roundWindow64(&w, base)
	}
	neg := int64(w[2]) < 0
	if neg {
		negate(w[:])
	}
	return f.roundMag(w[:], base, neg)
}

// roundWindow64 is binary64.roundWindow, in straight-line code for a
// normal double. It takes the window by pointer: an array argument is
// copied through the stack.
func roundWindow64(w *[3]uint64, base int) (uint64, bool) {
	neg := uint64(int64(w[2]) >> 63)
	m0, c := bits.Add64(w[0]^neg, neg&1, 0)
	m1, c := bits.Add64(w[1]^neg, 0, c)
	m2, _ := bits.Add64(w[2]^neg, 0, c)
	hi, lo, rest, t := m2, m1, m0, 2
	if m2 == 0 {
		hi, lo, rest, t = m1, m0, 0, 1
		if m1 == 0 {
			hi, lo, t = m0, 0, 0
		}
	}
	lz := bits.LeadingZeros64(hi)
	top := 64*(base+t) + 63 - lz
	if hi == 0 || top < 53 || top > 2096 {
		mag := [3]uint64{m0, m1, m2}
		return binary64.roundMag(mag[:], base, neg != 0)
	}
	// x holds the sum's top 64 bits, its highest bit set; y is x over
	// 2 with the bits shifted out, and those below x, sticky in its
	// lowest bit. The conversion rounds y to 53 bits, to nearest even,
	// as the whole sum rounds, and the sum's scale goes into the
	// exponent, which stays that of a normal double.
	x := hi<<lz | lo>>(64-lz)
	y := x>>1 | b2u(x&1|lo<<lz|rest != 0)
	out := math.Float64bits(float64(int64(y))) + uint64(top-62-1074)<<52
	return out | neg&signBit, y&(1<<10-1) != 0
}

// negate negates the two's complement integer l.
func negate(l []uint64) {
	c := uint64(1)
	for i, x := range l {
		l[i], c = bits.Add64(^x, 0, c)
	}
}

// roundMag is round of the magnitude mag, negative if neg.
func (f fsumFormat) roundMag(mag []uint64, base int, neg bool) (uint64, bool) {
	t := len(mag) - 1
	for t >= 0 && mag[t] == 0 {
		t--
	}
	if t < 0 {
		return 0, false
	}
	top := 64*(base+t) + 63 - bits.LeadingZeros64(mag[t])
	sh := max(top-f.shift-f.frac, 0)
	lsb := sh + f.shift
	x := bitsAt(mag, base, lsb-1)
	sticky := anyBelow(mag, base, lsb-1)
	m, r := x>>1, x&1
	out := uint64(sh)<<f.frac + m + r&(m&1|b2u(sticky))
	inexact := r != 0 || sticky
	if out >= f.maxE<<f.frac {
		out, inexact = f.maxE<<f.frac, true
	}
	if neg {
		out |= 1 << (f.frac + bitsExp(f))
	}
	return out, inexact
}

// bitsExp is the width of f's exponent field.
func bitsExp(f fsumFormat) int { return bits.Len64(f.maxE) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// bitsAt returns the 64 bits of l (limb i at 64·(base+i)) from bit q up;
// bits outside l are 0.
func bitsAt(l []uint64, base, q int) uint64 {
	q -= 64 * base
	i, s := q>>6, uint(q&63)
	x := limbAt(l, i) >> s
	if s != 0 {
		x |= limbAt(l, i+1) << (64 - s)
	}
	return x
}

func limbAt(l []uint64, i int) uint64 {
	if i < 0 || i >= len(l) {
		return 0
	}
	return l[i]
}

// anyBelow reports whether l (limb i at 64·(base+i)) has a bit set below
// bit q.
func anyBelow(l []uint64, base, q int) bool {
	q -= 64 * base
	if q <= 0 {
		return false
	}
	i, s := q>>6, uint(q&63)
	for j := range min(i, len(l)) {
		if l[j] != 0 {
			return true
		}
	}
	return i < len(l) && l[i]&(1<<s-1) != 0
}
