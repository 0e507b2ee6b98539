package expr

import (
	"math"
	"testing"

	"github.com/strandsql/strand/types"
)

func TestCompareAllTypes(t *testing.T) {
	ops := []Fn{Eq, Ne, Lt, Le, Gt, Ge}
	// For rows (1,2), (2,2), (3,2), (NULL,2): the expected result per op.
	want := map[Fn][]any{
		Eq: {false, true, false, nil},
		Ne: {true, false, true, nil},
		Lt: {true, false, false, nil},
		Le: {true, true, false, nil},
		Gt: {false, false, true, nil},
		Ge: {false, true, true, nil},
	}
	cases := []struct {
		t    types.Type
		a    []any
		b    any
		bLit Expr
	}{
		{tI, []any{int32(1), int32(2), int32(3), nil}, int32(2), i32(2)},
		{tL, []any{int64(1), int64(2), int64(3), nil}, int64(2), i64(2)},
		{tF, []any{float32(1), float32(2), float32(3), nil}, float32(2), &Lit{V: types.FloatValue(tF, 2)}},
		{tD, []any{1.0, 2.0, 3.0, nil}, 2.0, f64(2)},
		{tDec(5, 2), []any{"1.00", "2.00", "3.00", nil}, "2.00", dec("2.00", 5, 2)},
		{tS, []any{"a", "b", "c", nil}, "b", str("b")},
		{tS, []any{"ä", "öx", "日本", nil}, "öx", str("öx")},
		{tDt, []any{"2020-01-01", "2020-01-02", "2020-01-03", nil}, "2020-01-02", date("2020-01-02")},
		{tTs, []any{"2020-01-01 00:00:00.001", "2020-01-01 00:00:00.002", "2020-01-01 00:00:00.003", nil}, "2020-01-01 00:00:00.002", ts("2020-01-01 00:00:00.002")},
		{types.TIntervalDT, []any{int64(1), int64(2), int64(3), nil}, int64(2), &Lit{V: types.IntValue(types.TIntervalDT, 2)}},
		{tB, []any{false, true, true, nil}, true, boolean(true)},
	}
	for _, tc := range cases {
		bs := []any{tc.b, tc.b, tc.b, tc.b}
		cs := cols(column{tc.t, tc.a}, column{tc.t, bs})
		for _, op := range ops {
			w := want[op]
			if tc.t.Kind == types.Boolean { // rows are (F,T), (T,T), (T,T)
				w = []any{w[0], w[1], w[1], nil}
			}
			check(t, call(op, tB, c(0, tc.t), c(1, tc.t)), cs, w...)
			check(t, call(op, tB, c(0, tc.t), tc.bLit), cs, w...)
			// Constant on the left: b op' a with op' flipped is a op b.
			check(t, call(flip(op), tB, tc.bLit, c(0, tc.t)), cs, w...)
			check(t, call(op, tB, c(0, tc.t), null(tc.t)), cs, nil, nil, nil, nil)
		}
	}
}

func TestCompareDecimalScales(t *testing.T) {
	cs := cols(column{tDec(10, 2), []any{"1.50", "1.49", "-1.50", nil}})
	x := c(0, tDec(10, 2))
	check(t, call(Eq, tB, x, dec("1.5", 5, 1)), cs, true, false, false, nil)
	check(t, call(Lt, tB, x, dec("1.495", 6, 3)), cs, false, true, true, nil)
	check(t, call(Gt, tB, dec("1.495", 6, 3), x), cs, false, true, true, nil)
	check(t, call(Ge, tB, x, dec("-1.5", 38, 1)), cs, true, true, true, nil)
}

func TestCompareNaN(t *testing.T) {
	nan := math.NaN()
	cs := cols(column{tD, []any{nan, 1.0}})
	x := c(0, tD)
	check(t, call(Eq, tB, x, x), cs, false, true)
	check(t, call(Ne, tB, x, x), cs, true, false)
	check(t, call(Lt, tB, x, f64(2)), cs, false, true)
	check(t, call(Ge, tB, x, f64(2)), cs, false, false)
}

func TestCompareLongBatch(t *testing.T) {
	// Cross the 64-row word boundary, with NULLs in both words.
	var a, want []any
	for i := 0; i < 150; i++ {
		switch {
		case i%7 == 0:
			a = append(a, nil)
			want = append(want, nil)
		default:
			a = append(a, int64(i))
			want = append(want, i > 70)
		}
	}
	check(t, call(Gt, tB, c(0, tL), i64(70)), cols(column{tL, a}), want...)
}

func TestIn(t *testing.T) {
	cs := cols(column{tI, []any{int32(1), int32(2), int32(5), nil}})
	x := c(0, tI)
	in := func(items ...Expr) Expr { return call(In, tB, append([]Expr{x}, items...)...) }
	check(t, in(i32(1), i32(2), i32(3)), cs, true, true, false, nil)
	check(t, in(i32(1), null(tI)), cs, true, nil, nil, nil)
	check(t, in(null(types.TNull)), cs, nil, nil, nil, nil)
	// A long list goes through the sorted probe.
	var many []Expr
	for i := int32(100); i > 4; i-- {
		many = append(many, i32(i))
	}
	check(t, in(many...), cs, false, false, true, nil)
	// Non-literal items: OR of equalities.
	y := c(1, tI)
	cs2 := cols(column{tI, []any{int32(1), int32(2), int32(5), nil, int32(3)}}, column{tI, []any{int32(1), nil, int32(6), int32(1), int32(4)}})
	check(t, call(In, tB, x, y, i32(2)), cs2, true, true, false, nil, false)
	cs3 := cols(column{tI, []any{int32(1), int32(7)}}, column{tI, []any{nil, nil}})
	check(t, call(In, tB, c(0, tI), c(1, tI), i32(1)), cs3, true, nil)
	// Strings, floats, decimals.
	sc := cols(column{tS, []any{"b", "z", nil}})
	check(t, call(In, tB, c(0, tS), str("a"), str("b"), str("c")), sc, true, false, nil)
	fc := cols(column{tD, []any{1.5, math.NaN(), 2.0}})
	check(t, call(In, tB, c(0, tD), f64(1.5), f64(math.NaN())), fc, true, false, false)
	dc := cols(column{tDec(5, 2), []any{"1.50", "2.00"}})
	check(t, call(In, tB, c(0, tDec(5, 2)), dec("1.5", 3, 1)), dc, true, false)
}
