package expr

import (
	"testing"

	"github.com/strandsql/strand/types"
)

// Every combination of two three-valued booleans.
var (
	tvA = []any{true, true, true, false, false, false, nil, nil, nil}
	tvB = []any{true, false, nil, true, false, nil, true, false, nil}
)

func TestAndOrTruthTables(t *testing.T) {
	cs := cols(column{tB, tvA}, column{tB, tvB})
	a, b := c(0, tB), c(1, tB)
	check(t, call(And, tB, a, b), cs, true, false, nil, false, false, false, nil, false, nil)
	check(t, call(Or, tB, a, b), cs, true, true, true, true, false, nil, true, nil, nil)
	check(t, call(Not, tB, a), cs, false, false, false, true, true, true, nil, nil, nil)
	// With constants on either side.
	check(t, call(And, tB, a, boolean(false)), cs, false, false, false, false, false, false, false, false, false)
	check(t, call(And, tB, null(tB), a), cs, nil, nil, nil, false, false, false, nil, nil, nil)
	check(t, call(Or, tB, boolean(true), b), cs, true, true, true, true, true, true, true, true, true)
	check(t, call(Or, tB, a, null(types.TNull)), cs, true, true, true, nil, nil, nil, nil, nil, nil)
	// n-ary
	check(t, call(And, tB, a, b, boolean(true)), cs, true, false, nil, false, false, false, nil, false, nil)
	check(t, call(Or, tB, a, b, boolean(false)), cs, true, true, true, true, false, nil, true, nil, nil)
}

func TestIsPredicates(t *testing.T) {
	cs := cols(column{tB, []any{true, false, nil}})
	a := c(0, tB)
	check(t, call(IsNull, tB, a), cs, false, false, true)
	check(t, call(IsNotNull, tB, a), cs, true, true, false)
	check(t, call(IsTrue, tB, a), cs, true, false, false)
	check(t, call(IsNotTrue, tB, a), cs, false, true, true)
	check(t, call(IsFalse, tB, a), cs, false, true, false)
	check(t, call(IsNotFalse, tB, a), cs, true, false, true)
	check(t, call(IsNull, tB, null(types.TNull)), cs, true, true, true)
	sc := cols(column{tS, []any{"x", nil}})
	check(t, call(IsNull, tB, c(0, tS)), sc, false, true)
}

// AND and OR evaluate later arguments only for the undecided rows, so a
// guard protects a division.
func TestShortCircuitGuards(t *testing.T) {
	cs := cols(column{tI, []any{int32(10), int32(5), nil, int32(7)}}, column{tI, []any{int32(2), int32(0), int32(0), int32(0)}})
	a, b := c(0, tI), c(1, tI)
	guard := call(Ne, tB, b, i32(0))
	div := call(Gt, tB, call(Div, tI, a, b), i32(1))
	check(t, call(And, tB, guard, div), cs, true, false, false, false)
	check(t, call(Or, tB, call(Eq, tB, b, i32(0)), div), cs, true, true, true, true)
	// Without the guard the zero divisor is an error.
	if _, err := run(t, div, cs); err == nil {
		t.Errorf("%s: no error", div)
	}
}
