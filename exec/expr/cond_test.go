package expr

import (
	"testing"

	"github.com/strandsql/strand/types"
)

func caseOf(t types.Type, els Expr, whens ...Expr) *Case {
	e := &Case{Else: els, T: t}
	for i := 0; i < len(whens); i += 2 {
		e.Whens = append(e.Whens, When{Cond: whens[i], Then: whens[i+1]})
	}
	return e
}

func TestCase(t *testing.T) {
	cs := cols(
		column{tI, []any{int32(1), int32(5), int32(10), nil, int32(-3)}},
		column{tB, []any{true, nil, false, true, nil}},
	)
	x, b := c(0, tI), c(1, tB)
	// A NULL condition is not TRUE: the next branch decides.
	check(t, caseOf(tS, str("else"), b, str("b"), call(Gt, tB, x, i32(3)), str("big")), cs, "b", "big", "big", "b", "else")
	check(t, caseOf(tI, null(types.TNull), call(Lt, tB, x, i32(3)), x), cs, int32(1), nil, nil, nil, int32(-3))
	check(t, caseOf(tI, i32(0), b, call(Mul, tI, x, i32(2))), cs, int32(2), int32(0), int32(0), nil, int32(0))
	check(t, caseOf(tB, boolean(false), b, call(IsNull, tB, x)), cs, false, false, false, true, false)
	check(t, caseOf(tD, f64(-1), call(IsNotNull, tB, x), f64(1)), cs, 1.0, 1.0, 1.0, -1.0, 1.0)
	check(t, caseOf(tDec(5, 2), dec("0.00", 5, 2), b, dec("1.50", 5, 2)), cs, "1.50", "0.00", "0.00", "1.50", "0.00")
	check(t, caseOf(tS, null(tS)), cs, nil, nil, nil, nil, nil)
	check(t, caseOf(tS, str("x")), cs, "x", "x", "x", "x", "x")
	// Constant conditions fold.
	check(t, caseOf(tI, i32(2), boolean(true), i32(1)), cs, int32(1), int32(1), int32(1), int32(1), int32(1))
	check(t, caseOf(tI, i32(2), null(tB), i32(1)), cs, int32(2), int32(2), int32(2), int32(2), int32(2))
}

// CASE evaluates a branch only for the rows it takes: the division never
// sees a zero.
func TestCaseGuardsDivision(t *testing.T) {
	cs := cols(column{tI, []any{int32(10), int32(7), nil}}, column{tI, []any{int32(2), int32(0), int32(0)}})
	a, b := c(0, tI), c(1, tI)
	e := caseOf(tI, i32(-1), call(Ne, tB, b, i32(0)), call(Div, tI, a, b))
	check(t, e, cs, int32(5), int32(-1), int32(-1))
	e = caseOf(tI, call(Div, tI, a, b), call(Eq, tB, b, i32(0)), i32(0))
	check(t, e, cs, int32(5), int32(0), int32(0))
	d := caseOf(tDec(10, 2), dec("0", 10, 2), call(Ne, tB, b, i32(0)),
		call(Div, tDec(10, 2), &Cast{X: a, T: tDec(10, 0)}, &Cast{X: b, T: tDec(10, 0)}))
	check(t, d, cs, "5.00", "0.00", "0.00")
	s := caseOf(tI, i32(0), call(Gt, tB, b, i32(0)), &Cast{X: str("x"), T: tI})
	expectError(t, s, cs, "cannot cast 'x' to INT")
	s = caseOf(tI, i32(0), call(Gt, tB, b, i32(5)), &Cast{X: str("x"), T: tI})
	check(t, s, cs, int32(0), int32(0), int32(0))
}

func TestCoalesce(t *testing.T) {
	cs := cols(
		column{tS, []any{"a", nil, nil, nil}},
		column{tS, []any{"b", "B", nil, nil}},
		column{tI, []any{int32(1), int32(0), int32(3), nil}},
	)
	x, y, n := c(0, tS), c(1, tS), c(2, tI)
	check(t, call(Coalesce, tS, x, y, str("z")), cs, "a", "B", "z", "z")
	check(t, call(Coalesce, tS, x, y), cs, "a", "B", nil, nil)
	check(t, call(Coalesce, tS, null(types.TNull), y), cs, "b", "B", nil, nil)
	check(t, call(Coalesce, tI, n, i32(-1)), cs, int32(1), int32(0), int32(3), int32(-1))
	check(t, call(Coalesce, tI, i32(7), n), cs, int32(7), int32(7), int32(7), int32(7))
	check(t, call(Coalesce, tB, call(IsNull, tB, x)), cs, false, true, true, true)
	// Later arguments run only for rows still NULL.
	guarded := call(Coalesce, tI, n, call(Div, tI, i32(10), call(Sub, tI, n, n)), i32(-9))
	check(t, guarded, cs, int32(1), int32(0), int32(3), int32(-9))
	expectError(t, call(Coalesce, tI, call(NullIf, tI, n, i32(0)), call(Div, tI, i32(10), n)), cs, "division by zero")
}

func TestNullIf(t *testing.T) {
	cs := cols(column{tI, []any{int32(1), int32(2), nil, int32(4)}}, column{tI, []any{int32(1), nil, int32(3), int32(5)}})
	a, b := c(0, tI), c(1, tI)
	check(t, call(NullIf, tI, a, b), cs, nil, int32(2), nil, int32(4))
	check(t, call(NullIf, tI, a, i32(4)), cs, int32(1), int32(2), nil, nil)
	check(t, call(NullIf, tI, i32(4), a), cs, int32(4), int32(4), int32(4), nil)
	ss := cols(column{tS, []any{"", "x"}})
	check(t, call(NullIf, tS, c(0, tS), str("")), ss, nil, "x")
	check(t, call(NullIf, tS, str("k"), c(0, tS)), ss, "k", "k")
}
