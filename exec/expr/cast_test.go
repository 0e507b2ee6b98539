package expr

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/strandsql/strand/types"
)

func cast(x Expr, t types.Type) *Cast    { return &Cast{X: x, T: t} }
func tryCast(x Expr, t types.Type) *Cast { return &Cast{X: x, T: t, Try: true} }

func TestCastNumeric(t *testing.T) {
	ls := cols(column{tL, []any{int64(1), int64(-3_000_000_000), nil, int64(math.MaxInt32)}})
	l := c(0, tL)
	check(t, tryCast(l, tI), ls, int32(1), nil, nil, int32(math.MaxInt32))
	check(t, cast(l, tD), ls, 1.0, -3e9, nil, float64(math.MaxInt32))
	check(t, cast(l, tF), ls, float32(1), float32(-3e9), nil, float32(math.MaxInt32))
	check(t, cast(l, tDec(12, 2)), ls, "1.00", "-3000000000.00", nil, "2147483647.00")
	check(t, tryCast(l, tDec(5, 2)), ls, "1.00", nil, nil, nil)
	check(t, cast(l, tB), ls, true, true, nil, true)
	expectError(t, cast(l, tI), ls, "cannot cast '-3000000000' to INT")

	ds := cols(column{tD, []any{1.9, -1.9, 2.675, math.NaN(), 1e10, math.Copysign(0, -1)}})
	d := c(0, tD)
	check(t, tryCast(d, tI), ds, int32(1), int32(-1), int32(2), nil, nil, int32(0))
	check(t, tryCast(d, tL), ds, int64(1), int64(-1), int64(2), nil, int64(1e10), int64(0))
	check(t, tryCast(d, tDec(5, 2)), ds, "1.90", "-1.90", "2.68", nil, nil, "0.00")
	check(t, cast(d, tF), ds, float32(1.9), float32(-1.9), float32(2.675), float32(math.NaN()), float32(1e10), float32(math.Copysign(0, -1)))
	expectError(t, cast(d, tI), ds, "cannot cast 'NaN' to INT")

	is := cols(column{tI, []any{int32(0), int32(7)}})
	check(t, cast(c(0, tI), tL), is, int64(0), int64(7))
	check(t, cast(c(0, tI), tB), is, false, true)

	bs := cols(column{tB, []any{true, false, nil}})
	check(t, cast(c(0, tB), tI), bs, int32(1), int32(0), nil)
	check(t, cast(c(0, tB), tD), bs, 1.0, 0.0, nil)
	check(t, cast(c(0, tB), tDec(3, 1)), bs, "1.0", "0.0", nil)
}

func TestCastDecimal(t *testing.T) {
	cs := cols(column{tDec(10, 3), []any{"1.005", "-1.005", "2.5", "-2.5", "12345.678", nil}})
	x := c(0, tDec(10, 3))
	check(t, cast(x, tDec(10, 2)), cs, "1.01", "-1.01", "2.50", "-2.50", "12345.68", nil)
	check(t, cast(x, tDec(10, 0)), cs, "1", "-1", "3", "-3", "12346", nil)
	check(t, cast(x, tI), cs, int32(1), int32(-1), int32(2), int32(-2), int32(12345), nil) // truncates, as Flink
	check(t, cast(x, tL), cs, int64(1), int64(-1), int64(2), int64(-2), int64(12345), nil)
	check(t, cast(x, tD), cs, 1.005, -1.005, 2.5, -2.5, 12345.678, nil)
	check(t, cast(x, tF), cs, float32(1.005), float32(-1.005), float32(2.5), float32(-2.5), float32(12345.678), nil)
	check(t, cast(x, tS), cs, "1.005", "-1.005", "2.500", "-2.500", "12345.678", nil)
	check(t, cast(x, tB), cs, true, true, true, true, true, nil)
	check(t, tryCast(x, tDec(4, 1)), cs, "1.0", "-1.0", "2.5", "-2.5", nil, nil)
	big := cols(column{tDec(38, 0), []any{"99999999999999999999999999999999999999"}})
	check(t, cast(c(0, tDec(38, 0)), tS), big, "99999999999999999999999999999999999999")
	check(t, cast(c(0, tDec(38, 0)), tD), big, 1e38)
	check(t, tryCast(c(0, tDec(38, 0)), tL), big, nil)
}

func TestCastToString(t *testing.T) {
	check(t, cast(c(0, tB), tS), cols(column{tB, []any{true, false, nil}}), "TRUE", "FALSE", nil)
	check(t, cast(c(0, tI), tS), cols(column{tI, []any{int32(-12), int32(0)}}), "-12", "0")
	check(t, cast(c(0, tD), tS), cols(column{tD, []any{1.0, 1.5, -0.25, math.Inf(1), math.NaN(), 1e10, 1e-4}}), "1.0", "1.5", "-0.25", "Infinity", "NaN", "1.0E10", "1.0E-4")
	check(t, cast(c(0, tF), tS), cols(column{tF, []any{float32(1.1), float32(3)}}), "1.1", "3.0")
	check(t, cast(c(0, tDt), tS), cols(column{tDt, []any{"2024-02-29"}}), "2024-02-29")
	check(t, cast(c(0, tTs), tS), cols(column{tTs, []any{"2024-02-29 13:14:15.016", "1969-12-31 23:59:59.999"}}), "2024-02-29 13:14:15.016", "1969-12-31 23:59:59.999")
	check(t, cast(c(0, types.TIntervalDT), tS), cols(column{types.TIntervalDT, []any{int64(90061001)}}), "+1 01:01:01.001")
	check(t, cast(c(0, types.TIntervalYM), tS), cols(column{types.TIntervalYM, []any{int32(-14)}}), "-1-02")
	// VARCHAR(n) keeps n code points.
	us := cols(column{tS, []any{"äöü日本", "ab", nil}})
	check(t, cast(c(0, tS), types.Type{Kind: types.String, Precision: 3}), us, "äöü", "ab", nil)
	check(t, cast(c(0, tI), types.Type{Kind: types.String, Precision: 2}), cols(column{tI, []any{int32(12345)}}), "12")
}

func TestCastFromString(t *testing.T) {
	cs := cols(column{tS, []any{"12", " -7 ", "1.9", "abc", "", nil, "99999999999"}})
	x := c(0, tS)
	check(t, tryCast(x, tI), cs, int32(12), int32(-7), int32(1), nil, nil, nil, nil)
	check(t, tryCast(x, tL), cs, int64(12), int64(-7), int64(1), nil, nil, nil, int64(99999999999))
	check(t, tryCast(x, tD), cs, 12.0, -7.0, 1.9, nil, nil, nil, 99999999999.0)
	check(t, tryCast(x, tDec(5, 1)), cs, "12.0", "-7.0", "1.9", nil, nil, nil, nil)
	expectError(t, cast(x, tI), cs, "cannot cast 'abc' to INT")

	ds := cols(column{tS, []any{"1.005", "-1.005", "1e2", "1.5E-1", ".5", "5.", "-", "1e", "0.0000001"}})
	check(t, tryCast(c(0, tS), tDec(6, 2)), ds, "1.01", "-1.01", "100.00", "0.15", "0.50", "5.00", nil, nil, "0.00")

	bs := cols(column{tS, []any{"true", "FALSE", " Yes ", "0", "t", "maybe"}})
	check(t, tryCast(c(0, tS), tB), bs, true, false, true, false, true, nil)

	ts := cols(column{tS, []any{"2024-05-17 13:45:12.345", "2024-05-17", " 2024-05-17T01:02:03 ", "2024-13-01", "x"}})
	check(t, tryCast(c(0, tS), tTs), ts, "2024-05-17 13:45:12.345", "2024-05-17 00:00:00.000", "2024-05-17 01:02:03.000", nil, nil)
	check(t, tryCast(c(0, tS), types.TTimestampLTZ), ts, "2024-05-17 13:45:12.345", "2024-05-17 00:00:00.000", "2024-05-17 01:02:03.000", nil, nil)
	check(t, tryCast(c(0, tS), tDt), ts, nil, "2024-05-17", nil, nil, nil)
	expectError(t, cast(c(0, tS), tDt), ts, "cannot cast '2024-05-17 13:45:12.345' to DATE")
}

func TestCastTime(t *testing.T) {
	cs := cols(column{tTs, []any{"2024-05-17 13:45:12.345", "1969-12-31 23:00:00.000", nil}})
	check(t, cast(c(0, tTs), tDt), cs, "2024-05-17", "1969-12-31", nil)
	check(t, cast(c(0, tTs), types.TTimestampLTZ), cs, "2024-05-17 13:45:12.345", "1969-12-31 23:00:00.000", nil)
	ds := cols(column{tDt, []any{"2024-05-17", "1969-12-31"}})
	check(t, cast(c(0, tDt), tTs), ds, "2024-05-17 00:00:00.000", "1969-12-31 00:00:00.000")
}

func TestCastNullAndLiterals(t *testing.T) {
	one := cols(column{tI, []any{int32(1), int32(2)}})
	check(t, cast(null(types.TNull), tI), one, nil, nil)
	check(t, cast(str("42"), tI), one, int32(42), int32(42))
	// A failing constant cast is an error only when there are rows.
	e := call(Add, tI, c(0, tI), cast(str("x"), tI))
	if _, err := Compile(e, schemaOf(one)); err != nil {
		t.Fatalf("Compile: %v", err)
	}
	expectError(t, e, one, "cannot cast 'x' to INT")
	check(t, e, cols(column{tI, []any{}}))
	// Unsupported pairs fail at compile time.
	if _, err := Compile(cast(c(0, tDt), tI), schemaOf(cols(column{tDt, nil}))); err == nil {
		t.Error("CAST(DATE AS INT) compiled")
	}
}

func expectError(t *testing.T, e Expr, cs []column, msg string) {
	t.Helper()
	_, err := run(t, e, cs)
	if !errors.Is(err, ErrRuntime) {
		t.Errorf("%s: err = %v, want ErrRuntime", e, err)
		return
	}
	if want := "runtime error: " + msg; err.Error() != want {
		t.Errorf("%s: err = %q, want %q", e, err, want)
	}
}

func TestAppendInt(t *testing.T) {
	for _, v := range []int64{0, 9, 10, -1, -10, 99, 100, 12345, math.MaxInt64, math.MinInt64, 1e18, 1e18 - 1, -1e18} {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %s, want %s", v, got, want)
		}
	}
}
