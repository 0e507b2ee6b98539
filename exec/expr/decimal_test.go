package expr

import (
	"errors"
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestDecimalArith(t *testing.T) {
	a, b := tDec(10, 2), tDec(5, 3)
	cs := cols(
		column{a, []any{"12.34", "-12.34", "0.00", nil, "99999999.99"}},
		column{b, []any{"1.005", "1.005", "-2.500", "1.000", "99.999"}},
	)
	x, y := c(0, a), c(1, b)
	check(t, call(Add, tDec(12, 3), x, y), cs, "13.345", "-11.335", "-2.500", nil, "100000099.989")
	check(t, call(Sub, tDec(12, 3), x, y), cs, "11.335", "-13.345", "2.500", nil, "99999899.991")
	check(t, call(Mul, tDec(16, 5), x, y), cs, "12.40170", "-12.40170", "0.00000", nil, "9999899999.00001")
	check(t, call(Mul, tDec(16, 2), x, y), cs, "12.40", "-12.40", "0.00", nil, "9999899999.00")
	check(t, call(Div, tDec(20, 6), x, y), cs, "12.278607", "-12.278607", "0.000000", nil, "1000010.000000")
	check(t, call(Mod, tDec(5, 3), x, y), cs, "0.280", "-0.280", "0.000", nil, "0.000")
	check(t, call(Neg, a, x), cs, "-12.34", "12.34", "0.00", nil, "-99999999.99")
	check(t, call(Abs, a, x), cs, "12.34", "12.34", "0.00", nil, "99999999.99")
	check(t, call(Floor, tDec(8, 0), x), cs, "12", "-13", "0", nil, "99999999")
	check(t, call(Ceil, tDec(9, 0), x), cs, "13", "-12", "0", nil, "100000000")
	check(t, call(Round, tDec(10, 1), x, i32(1)), cs, "12.3", "-12.3", "0.0", nil, "100000000.0")
	check(t, call(Round, tDec(10, 0), x, i32(-1)), cs, "10", "-10", "0", nil, "100000000")
	// Constants on either side.
	check(t, call(Div, tDec(20, 4), dec("1", 1, 0), y), cs, "0.9950", "0.9950", "-0.4000", "1.0000", "0.0100")
	check(t, call(Sub, tDec(12, 3), x, dec("0.001", 4, 3)), cs, "12.339", "-12.341", "-0.001", nil, "99999999.989")
}

func TestDecimalDivisionRounding(t *testing.T) {
	cs := cols(column{tDec(5, 0), []any{"1", "2", "-2", "5"}})
	x := c(0, tDec(5, 0))
	check(t, call(Div, tDec(10, 6), x, dec("3", 1, 0)), cs, "0.333333", "0.666667", "-0.666667", "1.666667")
	check(t, call(Div, tDec(10, 0), x, dec("2", 1, 0)), cs, "1", "1", "-1", "3")
}

func TestDecimalOverflow(t *testing.T) {
	cs := cols(column{tDec(3, 2), []any{"9.99"}})
	for _, e := range []Expr{
		call(Add, tDec(3, 2), c(0, tDec(3, 2)), dec("0.01", 3, 2)),
		call(Mul, tDec(3, 2), c(0, tDec(3, 2)), dec("2", 1, 0)),
		call(Div, tDec(3, 2), c(0, tDec(3, 2)), dec("0.5", 2, 1)),
		&Cast{X: c(0, tDec(3, 2)), T: tDec(2, 1)},
		&Cast{X: c(0, tDec(3, 2)), T: tDec(3, 3)},
	} {
		if _, err := run(t, e, cs); !errors.Is(err, ErrRuntime) {
			t.Errorf("%s: err = %v, want ErrRuntime", e, err)
		}
	}
	check(t, &Cast{X: c(0, tDec(3, 2)), T: tDec(3, 3), Try: true}, cs, nil)
	check(t, &Cast{X: c(0, tDec(3, 2)), T: tDec(3, 1)}, cs, "10.0")
}

// Wide decimals go through 256-bit intermediates (and math/big for huge
// divisors); compare with math/big.
func TestDecimalWide(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	rnd := func(digits int) string {
		b := make([]byte, 0, digits+2)
		if r.Intn(2) == 0 {
			b = append(b, '-')
		}
		b = append(b, byte('1'+r.Intn(9)))
		for i := 1; i < digits; i++ {
			b = append(b, byte('0'+r.Intn(10)))
		}
		return string(b)
	}
	ta, tb := tDec(38, 10), tDec(38, 5)
	var as, bs []any
	for i := 0; i < 50; i++ {
		as = append(as, insertPoint(rnd(1+r.Intn(28)), 10))
		bs = append(bs, insertPoint(rnd(1+r.Intn(33)), 5))
	}
	cs := cols(column{ta, as}, column{tb, bs})
	res := tDec(38, 12)
	got, err := run(t, call(Div, res, c(0, ta), c(1, tb)), cs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range as {
		want := bigDiv(as[i].(string), bs[i].(string), 12)
		if got[i] != want {
			t.Errorf("%s / %s = %v, want %s", as[i], bs[i], got[i], want)
		}
	}
	mul := tDec(38, 6)
	got, err = run(t, call(Mul, mul, c(0, ta), c(0, ta)), cols(column{ta, []any{"1234567890123.4567890123", "-0.0000000001", "99999999.9999999999"}}))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"1524157875323883675049422.368847", "0.000000", "9999999999999999.980000"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mul row %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func insertPoint(s string, scale int) string {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for len(s) <= scale {
		s = "0" + s
	}
	s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// bigDiv divides two decimal strings, rounding half away from zero.
func bigDiv(a, b string, scale int) string {
	x, _ := new(big.Rat).SetString(a)
	y, _ := new(big.Rat).SetString(b)
	q := new(big.Rat).Quo(x, y)
	q.Mul(q, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	n, d := q.Num(), q.Denom()
	neg := n.Sign() < 0
	n.Abs(n)
	quo, rem := new(big.Int).QuoRem(n, d, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(d) >= 0 {
		quo.Add(quo, big.NewInt(1))
	}
	if neg {
		quo.Neg(quo)
	}
	return decimal128.FromBigInt(quo).ToString(int32(scale))
}
