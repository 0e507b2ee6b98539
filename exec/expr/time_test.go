package expr

import (
	"github.com/apache/arrow-go/v18/arrow/memory"
	"testing"

	"github.com/strandsql/strand/types"
)

var stamps = cols(column{tTs, []any{"2024-05-17 13:45:12.345", "1969-12-31 23:59:59.999", "2021-01-03 00:00:00.000", nil, "2020-12-31 08:09:10.011"}})

func TestDateFormat(t *testing.T) {
	x := c(0, tTs)
	f := func(p string) Expr { return call(DateFormat, tS, x, str(p)) }
	check(t, f("yyyy-MM-dd HH:mm"), stamps, "2024-05-17 13:45", "1969-12-31 23:59", "2021-01-03 00:00", nil, "2020-12-31 08:09")
	check(t, f("yy/M/d H:m:s.SSS"), stamps, "24/5/17 13:45:12.345", "69/12/31 23:59:59.999", "21/1/3 0:0:0.000", nil, "20/12/31 8:9:10.011")
	check(t, f("'at' HH 'o''clock' ''MMM'' MMMM"), stamps, "at 13 o'clock 'May' May", "at 23 o'clock 'Dec' December", "at 00 o'clock 'Jan' January", nil, "at 08 o'clock 'Dec' December")
	// S is the fraction of the second (DateTimeFormatter), not a count of
	// milliseconds (SimpleDateFormat).
	check(t, f("S"), stamps, "3", "9", "0", nil, "0")
	check(t, f("SSSSS"), stamps, "34500", "99900", "00000", nil, "01100")
	check(t, call(DateFormat, tS, c(0, tDt), str("dd.MM.yyyy")), cols(column{tDt, []any{"2024-02-29"}}), "29.02.2024")
	ss := cols(column{tS, []any{"2024-05-17 13:45:12", "garbage"}})
	check(t, call(DateFormat, tS, c(0, tS), str("yyyyMMdd")), ss, "20240517", nil)
	ps := cols(column{tTs, []any{"2024-05-17 13:45:12.345", "2024-05-17 13:45:12.345"}}, column{tS, []any{"yyyy", "HH"}})
	check(t, call(DateFormat, tS, c(0, tTs), c(1, tS)), ps, "2024", "13")
	for _, p := range []string{"yyyy-b", "ddd", "HH z", "yyyy #", "[yyyy", "MMMMMM"} {
		if _, err := Compile(f(p), schemaOf(stamps)); err == nil {
			t.Errorf("pattern %q compiled", p)
		}
	}
}

func TestExtract(t *testing.T) {
	x := c(0, tTs)
	ex := func(unit string) Expr { return call(Extract, tL, str(unit), x) }
	check(t, ex("YEAR"), stamps, int64(2024), int64(1969), int64(2021), nil, int64(2020))
	check(t, ex("QUARTER"), stamps, int64(2), int64(4), int64(1), nil, int64(4))
	check(t, ex("MONTH"), stamps, int64(5), int64(12), int64(1), nil, int64(12))
	check(t, ex("WEEK"), stamps, int64(20), int64(1), int64(53), nil, int64(53))
	check(t, ex("DAY"), stamps, int64(17), int64(31), int64(3), nil, int64(31))
	check(t, ex("HOUR"), stamps, int64(13), int64(23), int64(0), nil, int64(8))
	check(t, ex("MINUTE"), stamps, int64(45), int64(59), int64(0), nil, int64(9))
	check(t, ex("SECOND"), stamps, int64(12), int64(59), int64(0), nil, int64(10))
	check(t, ex("MILLISECOND"), stamps, int64(345), int64(999), int64(0), nil, int64(11))
	check(t, ex("DOW"), stamps, int64(6), int64(4), int64(1), nil, int64(5))
	check(t, ex("DOY"), stamps, int64(138), int64(365), int64(3), nil, int64(366))
	check(t, ex("EPOCH"), stamps, int64(1715953512), int64(0), int64(1609632000), nil, int64(1609402150))
	ds := cols(column{tDt, []any{"2024-05-17", "1969-12-31"}})
	check(t, call(Extract, tL, str("DAY"), c(0, tDt)), ds, int64(17), int64(31))
	check(t, call(Extract, tI, str("YEAR"), c(0, tDt)), ds, int32(2024), int32(1969))
	check(t, call(Extract, tL, str("HOUR"), c(0, tDt)), ds, int64(0), int64(0))
	dt, ym := types.TIntervalDT, types.TIntervalYM
	is := cols(column{dt, []any{int64(90061001), int64(-90061001)}}, column{ym, []any{int32(14), int32(-14)}})
	check(t, call(Extract, tL, str("DAY"), c(0, dt)), is, int64(1), int64(-1))
	check(t, call(Extract, tL, str("HOUR"), c(0, dt)), is, int64(1), int64(-1))
	check(t, call(Extract, tL, str("MILLISECOND"), c(0, dt)), is, int64(1), int64(-1))
	check(t, call(Extract, tL, str("YEAR"), c(1, ym)), is, int64(1), int64(-1))
	check(t, call(Extract, tL, str("MONTH"), c(1, ym)), is, int64(2), int64(-2))
	if _, err := Compile(call(Extract, tL, str("FORTNIGHT"), x), schemaOf(stamps)); err == nil {
		t.Error("unknown unit compiled")
	}
}

func TestFloorCeilTime(t *testing.T) {
	x := c(0, tTs)
	fl := func(unit string) Expr { return call(FloorTime, tTs, x, str(unit)) }
	ce := func(unit string) Expr { return call(CeilTime, tTs, x, str(unit)) }
	check(t, fl("SECOND"), stamps, "2024-05-17 13:45:12.000", "1969-12-31 23:59:59.000", "2021-01-03 00:00:00.000", nil, "2020-12-31 08:09:10.000")
	check(t, fl("HOUR"), stamps, "2024-05-17 13:00:00.000", "1969-12-31 23:00:00.000", "2021-01-03 00:00:00.000", nil, "2020-12-31 08:00:00.000")
	check(t, fl("DAY"), stamps, "2024-05-17 00:00:00.000", "1969-12-31 00:00:00.000", "2021-01-03 00:00:00.000", nil, "2020-12-31 00:00:00.000")
	check(t, fl("WEEK"), stamps, "2024-05-13 00:00:00.000", "1969-12-29 00:00:00.000", "2020-12-28 00:00:00.000", nil, "2020-12-28 00:00:00.000")
	check(t, fl("MONTH"), stamps, "2024-05-01 00:00:00.000", "1969-12-01 00:00:00.000", "2021-01-01 00:00:00.000", nil, "2020-12-01 00:00:00.000")
	check(t, fl("YEAR"), stamps, "2024-01-01 00:00:00.000", "1969-01-01 00:00:00.000", "2021-01-01 00:00:00.000", nil, "2020-01-01 00:00:00.000")
	check(t, ce("MINUTE"), stamps, "2024-05-17 13:46:00.000", "1970-01-01 00:00:00.000", "2021-01-03 00:00:00.000", nil, "2020-12-31 08:10:00.000")
	check(t, ce("DAY"), stamps, "2024-05-18 00:00:00.000", "1970-01-01 00:00:00.000", "2021-01-03 00:00:00.000", nil, "2021-01-01 00:00:00.000")
	check(t, ce("QUARTER"), stamps, "2024-07-01 00:00:00.000", "1970-01-01 00:00:00.000", "2021-04-01 00:00:00.000", nil, "2021-01-01 00:00:00.000")
	ds := cols(column{tDt, []any{"2024-05-17", "2024-01-01"}})
	check(t, call(FloorTime, tDt, c(0, tDt), str("MONTH")), ds, "2024-05-01", "2024-01-01")
	check(t, call(CeilTime, tDt, c(0, tDt), str("MONTH")), ds, "2024-06-01", "2024-01-01")
	check(t, call(FloorTime, tDt, c(0, tDt), str("DAY")), ds, "2024-05-17", "2024-01-01")
}

func TestIntervals(t *testing.T) {
	x := c(0, tTs)
	hour := &Lit{V: types.IntValue(types.TIntervalDT, types.MsHour)}
	month := &Lit{V: types.IntValue(types.TIntervalYM, 1)}
	check(t, call(AddInterval, tTs, x, hour), stamps, "2024-05-17 14:45:12.345", "1970-01-01 00:59:59.999", "2021-01-03 01:00:00.000", nil, "2020-12-31 09:09:10.011")
	check(t, call(AddInterval, tTs, hour, x), stamps, "2024-05-17 14:45:12.345", "1970-01-01 00:59:59.999", "2021-01-03 01:00:00.000", nil, "2020-12-31 09:09:10.011")
	check(t, call(SubInterval, tTs, x, hour), stamps, "2024-05-17 12:45:12.345", "1969-12-31 22:59:59.999", "2021-01-02 23:00:00.000", nil, "2020-12-31 07:09:10.011")
	check(t, call(AddInterval, tTs, x, month), stamps, "2024-06-17 13:45:12.345", "1970-01-31 23:59:59.999", "2021-02-03 00:00:00.000", nil, "2021-01-31 08:09:10.011")
	check(t, call(SubInterval, tTs, x, month), stamps, "2024-04-17 13:45:12.345", "1969-11-30 23:59:59.999", "2020-12-03 00:00:00.000", nil, "2020-11-30 08:09:10.011")
	ds := cols(column{tDt, []any{"2024-01-31", "2024-03-01"}}, column{types.TIntervalDT, []any{int64(36 * types.MsHour), int64(-36 * types.MsHour)}})
	check(t, call(AddInterval, tDt, c(0, tDt), month), ds, "2024-02-29", "2024-04-01")
	check(t, call(AddInterval, tDt, c(0, tDt), c(1, types.TIntervalDT)), ds, "2024-02-01", "2024-02-29")
	check(t, call(AddInterval, tTs, c(0, tDt), c(1, types.TIntervalDT)), ds, "2024-02-01 12:00:00.000", "2024-02-28 12:00:00.000")
	check(t, call(AddInterval, tTs, x, null(types.TIntervalDT)), stamps, nil, nil, nil, nil, nil)
}

func TestClock(t *testing.T) {
	now := types.FormatTimestamp(1_700_000_000_123)
	check(t, call(CurrentTimestamp, types.TTimestampLTZ), stamps, now, now, now, now, now)
}

func TestClockNeedsNow(t *testing.T) {
	e := call(Ge, tB, call(ProcTime, types.TTimestampLTZ), &Cast{X: c(0, tTs), T: types.TTimestampLTZ})
	check(t, e, stamps, false, true, true, nil, true)
	p, err := Compile(e, schemaOf(stamps))
	if err != nil {
		t.Fatal(err)
	}
	b := makeBatch(t, memory.NewGoAllocator(), stamps)
	defer b.Release()
	if _, err := p.Eval(&Ctx{}, b); err == nil {
		t.Error("no error without a clock")
	}
}
