package expr

import (
	"errors"
	"math"
	"testing"

	"github.com/strandsql/strand/types"
)

func TestArithIntegers(t *testing.T) {
	cs := cols(
		column{tI, []any{int32(7), int32(-7), int32(math.MaxInt32), nil, int32(math.MinInt32)}},
		column{tI, []any{int32(2), int32(2), int32(1), int32(1), int32(-1)}},
	)
	a, b := c(0, tI), c(1, tI)
	check(t, call(Add, tI, a, b), cs, int32(9), int32(-5), int32(math.MinInt32), nil, int32(math.MaxInt32)) // wraps as Java
	check(t, call(Sub, tI, a, b), cs, int32(5), int32(-9), int32(math.MaxInt32-1), nil, int32(math.MinInt32+1))
	check(t, call(Mul, tI, a, b), cs, int32(14), int32(-14), int32(math.MaxInt32), nil, int32(math.MinInt32))
	check(t, call(Div, tI, a, b), cs, int32(3), int32(-3), int32(math.MaxInt32), nil, int32(math.MinInt32))
	check(t, call(Mod, tI, a, b), cs, int32(1), int32(-1), int32(0), nil, int32(0))
	check(t, call(Mod, tI, a, i32(-3)), cs, int32(1), int32(-1), int32(1), nil, int32(-2))
	check(t, call(Sub, tI, i32(1), a), cs, int32(-6), int32(8), int32(math.MinInt32+2), nil, int32(math.MinInt32+1))
	check(t, call(Div, tI, i32(100), b), cs, int32(50), int32(50), int32(100), int32(100), int32(-100))
	check(t, call(Neg, tI, a), cs, int32(-7), int32(7), int32(-math.MaxInt32), nil, int32(math.MinInt32))
	check(t, call(Abs, tI, a), cs, int32(7), int32(7), int32(math.MaxInt32), nil, int32(math.MinInt32))
	check(t, call(Add, tI, a, null(tI)), cs, nil, nil, nil, nil, nil)

	ls := cols(column{tL, []any{int64(math.MaxInt64), int64(-15), int64(25), int64(-25)}})
	l := c(0, tL)
	check(t, call(Add, tL, l, i64(1)), ls, int64(math.MinInt64), int64(-14), int64(26), int64(-24))
	check(t, call(Mul, tL, i64(2), l), ls, int64(-2), int64(-30), int64(50), int64(-50))
	check(t, call(Round, tL, l, i32(-1)), ls, int64(-9223372036854775806), int64(-20), int64(30), int64(-30))
	check(t, call(Floor, tL, l), ls, int64(math.MaxInt64), int64(-15), int64(25), int64(-25))
}

func TestDivisionByZero(t *testing.T) {
	cs := cols(column{tI, []any{int32(1), int32(2)}}, column{tI, []any{int32(1), int32(0)}})
	for _, e := range []Expr{
		call(Div, tI, c(0, tI), c(1, tI)),
		call(Mod, tI, c(0, tI), c(1, tI)),
		call(Div, tI, c(0, tI), i32(0)),
		call(Div, tL, i64(1), i64(0)),
		call(Div, tDec(10, 2), c(0, tDec(5, 2)), dec("0", 5, 2)),
	} {
		cols := cs
		if e.Type().Kind == types.Decimal {
			cols = []column{{tDec(5, 2), []any{"1.00"}}}
		}
		_, err := run(t, e, cols)
		if !errors.Is(err, ErrRuntime) {
			t.Errorf("%s: err = %v, want ErrRuntime", e, err)
		} else if err.Error() != "runtime error: division by zero" {
			t.Errorf("%s: message %q", e, err)
		}
	}
	// A NULL dividend or divisor is NULL, not an error.
	ns := cols(column{tI, []any{nil, int32(3)}}, column{tI, []any{int32(0), nil}})
	check(t, call(Div, tI, c(0, tI), c(1, tI)), ns, nil, nil)
	check(t, call(Div, tI, c(0, tI), i32(0)), cols(column{tI, []any{nil}}), nil)
	// Floats follow IEEE.
	fs := cols(column{tD, []any{1.0, -1.0, 0.0}})
	check(t, call(Div, tD, c(0, tD), f64(0)), fs, math.Inf(1), math.Inf(-1), math.NaN())
}

func TestArithFloats(t *testing.T) {
	cs := cols(column{tD, []any{1.5, -2.5, nil, 7.0}}, column{tD, []any{0.5, 2.0, 1.0, -2.0}})
	a, b := c(0, tD), c(1, tD)
	check(t, call(Add, tD, a, b), cs, 2.0, -0.5, nil, 5.0)
	check(t, call(Sub, tD, a, b), cs, 1.0, -4.5, nil, 9.0)
	check(t, call(Mul, tD, a, b), cs, 0.75, -5.0, nil, -14.0)
	check(t, call(Div, tD, a, b), cs, 3.0, -1.25, nil, -3.5)
	check(t, call(Mod, tD, a, b), cs, 0.0, -0.5, nil, 1.0)
	check(t, call(Neg, tD, a), cs, -1.5, 2.5, nil, -7.0)
	check(t, call(Abs, tD, a), cs, 1.5, 2.5, nil, 7.0)
	check(t, call(Floor, tD, a), cs, 1.0, -3.0, nil, 7.0)
	check(t, call(Ceil, tD, a), cs, 2.0, -2.0, nil, 7.0)
	check(t, call(Round, tD, a), cs, 2.0, -3.0, nil, 7.0)
	fs := cols(column{tF, []any{float32(1.5), float32(-2.25)}})
	check(t, call(Mul, tF, c(0, tF), &Lit{V: types.FloatValue(tF, 2)}), fs, float32(3), float32(-4.5))
	check(t, call(Round, tF, c(0, tF), i32(1)), fs, float32(1.5), float32(-2.3))
}

func TestRoundHalfAwayFromZero(t *testing.T) {
	cs := cols(column{tD, []any{2.675, -2.675, 0.5, -0.5, 1.005, 123.456, 0.0004, 1e300, math.Inf(1), 9.995}})
	x := c(0, tD)
	check(t, call(Round, tD, x, i32(2)), cs, 2.68, -2.68, 0.5, -0.5, 1.01, 123.46, 0.0, 1e300, math.Inf(1), 10.0)
	check(t, call(Round, tD, x), cs, 3.0, -3.0, 1.0, -1.0, 1.0, 123.0, 0.0, 1e300, math.Inf(1), 10.0)
	check(t, call(Round, tD, x, i32(-1)), cs, 0.0, 0.0, 0.0, 0.0, 0.0, 120.0, 0.0, 1e300, math.Inf(1), 10.0)
	is := cols(column{tI, []any{int32(15), int32(-15), int32(14), int32(-25)}})
	check(t, call(Round, tI, c(0, tI), i32(-1)), is, int32(20), int32(-20), int32(10), int32(-30))
	check(t, call(Round, tI, c(0, tI), i32(2)), is, int32(15), int32(-15), int32(14), int32(-25))
}

func TestIntervalArith(t *testing.T) {
	dt := types.TIntervalDT
	cs := cols(column{dt, []any{int64(1000), int64(-5)}})
	check(t, call(Add, dt, c(0, dt), &Lit{V: types.IntValue(dt, 500)}), cs, int64(1500), int64(495))
	check(t, call(Neg, dt, c(0, dt)), cs, int64(-1000), int64(5))
}
