package agg

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Sums are kept exactly, wider than their values, so that whether a sum
// fits its result type depends only on the rows summed, not on the order
// in which they arrived (which can differ with the parallelism): an i128
// holds any sum of 2^63 BIGINT values, an i192 any sum of 2^63 DECIMAL(38)
// values. Adding a DECIMAL is a carry chain of bits.Add64, without
// branches; a BIGINT sum adds in 64 bits and counts its wrap-arounds
// (intSumAcc).

// i128 is a two's complement signed 128-bit integer.
type i128 struct {
	lo uint64
	hi int64
}

func (x *i128) addWide(y i128) {
	var c uint64
	x.lo, c = bits.Add64(x.lo, y.lo, 0)
	x.hi += y.hi + int64(c)
}

// int64 returns x if it fits an int64.
func (x i128) int64() (int64, bool) {
	return int64(x.lo), x.hi == int64(x.lo)>>63
}

// magnitude returns |x| and whether x is negative.
func (x i128) magnitude() (u256, bool) {
	hi := uint64(x.hi)
	m := u256{x.lo, hi}
	if x.hi < 0 {
		m = u256{^x.lo, ^hi}.plus1()
	}
	return m, x.hi < 0
}

// i192 is a two's complement signed 192-bit integer.
type i192 struct {
	lo, mid uint64
	hi      int64
}

func (x *i192) add(v decimal128.Num) {
	var c uint64
	vh := v.HighBits()
	x.lo, c = bits.Add64(x.lo, v.LowBits(), 0)
	x.mid, c = bits.Add64(x.mid, uint64(vh), c)
	x.hi += int64(c) + vh>>63
}

func (x *i192) addWide(y i192) {
	var c uint64
	x.lo, c = bits.Add64(x.lo, y.lo, 0)
	x.mid, c = bits.Add64(x.mid, y.mid, c)
	x.hi += y.hi + int64(c)
}

// dec128 returns x if it fits 128 bits.
func (x i192) dec128() (decimal128.Num, bool) {
	return decimal128.New(int64(x.mid), x.lo), x.hi == int64(x.mid)>>63
}

// magnitude returns |x| and whether x is negative.
func (x i192) magnitude() (u256, bool) {
	hi := uint64(x.hi)
	m := u256{x.lo, x.mid, hi}
	if x.hi < 0 {
		m = u256{^x.lo, ^x.mid, ^hi}.plus1()
	}
	return m, x.hi < 0
}

// u256 is an unsigned 256-bit integer, least significant word first.
type u256 [4]uint64

func (x u256) plus1() u256 {
	var c uint64 = 1
	for i := range x {
		x[i], c = bits.Add64(x[i], 0, c)
	}
	return x
}

// mul64 returns x·m; the caller knows that it fits.
func (x u256) mul64(m uint64) u256 {
	var out u256
	var carry uint64
	for i, w := range x {
		hi, lo := bits.Mul64(w, m)
		var c uint64
		out[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	return out
}

// divRound64 returns x/d rounded half up (away from zero, on a magnitude).
func (x u256) divRound64(d uint64) u256 {
	q, r := x.div64(d)
	if r >= d-r {
		q = q.plus1()
	}
	return q
}

// div64 returns x/d, truncated, and the remainder.
func (x u256) div64(d uint64) (u256, uint64) {
	var q u256
	var r uint64
	for i := len(x) - 1; i >= 0; i-- {
		q[i], r = bits.Div64(r, x[i], d)
	}
	return q, r
}

// fits128 reports whether x is below 2^127, a positive signed 128-bit value.
func (x u256) fits128() bool { return x[3] == 0 && x[2] == 0 && x[1]>>63 == 0 }
