package expr

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// randInt64 draws magnitudes of every size, signs and the extremes.
func randInt64(r *rand.Rand) int64 {
	switch r.IntN(10) {
	case 0:
		return []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 62, -1 << 62, 999, -1000}[r.IntN(9)]
	}
	v := int64(r.Uint64() >> r.IntN(64))
	if r.IntN(2) == 0 {
		v = -v
	}
	return v
}

// TestDecimalInt64Paths checks the int64 shortcuts of decimal products and
// casts against the general 256-bit path, wherever they answer.
func TestDecimalInt64Paths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	answered := 0
	for range 200000 {
		x, y := randInt64(r), randInt64(r)
		sa, sb := r.IntN(20), r.IntN(20)
		o := &decOp{fn: Mul, sa: sa, sb: sb, s: r.IntN(sa + sb + 3), p: 1 + r.IntN(38)}
		got, ok := o.mul64(decimal128.FromI64(x), decimal128.FromI64(y))
		if !ok {
			continue
		}
		answered++
		want, okw := fromInt(x).mul(fromInt(y)).rescale(sa+sb, o.s).num(o.p)
		if !okw || got != want {
			t.Fatalf("%d * %d (scales %d, %d -> DECIMAL(%d, %d)): %v, want %v (fits %v)", x, y, sa, sb, o.p, o.s, got, want, okw)
		}
	}
	for range 200000 {
		x, k, p := randInt64(r), r.IntN(22), 1+r.IntN(38)
		got, ok := scale64(x, k, p)
		if !ok {
			continue
		}
		answered++
		want, okw := fromInt(x).scaleUp(k).num(p)
		if !okw || got != want {
			t.Fatalf("%d * 10^%d as DECIMAL(%d): %v, want %v (fits %v)", x, k, p, got, want, okw)
		}
	}
	if answered < 100000 {
		t.Errorf("the shortcuts answered only %d of 400000 cases", answered)
	}
}
