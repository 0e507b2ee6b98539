package expr

import (
	"testing"

	"github.com/strandsql/strand/types"
)

func TestTimestampDiff(t *testing.T) {
	pairs := cols(column{tTs, []any{"2024-01-31 10:00:00.000", "2024-03-01 00:00:00.000", "2024-01-31 10:00:00.000", nil}},
		column{tTs, []any{"2024-02-29 09:59:59.999", "2023-02-28 00:00:00.000", "2024-02-29 10:00:00.000", "2024-01-01 00:00:00.000"}})
	d := func(unit string) Expr { return call(TimestampDiff, tI, str(unit), c(0, tTs), c(1, tTs)) }
	check(t, d("DAY"), pairs, int32(28), int32(-367), int32(29), nil)
	check(t, d("HOUR"), pairs, int32(695), int32(-8808), int32(696), nil)
	check(t, d("MONTH"), pairs, int32(0), int32(-12), int32(1), nil) // a month from Jan 31 is Feb 29
	check(t, d("YEAR"), pairs, int32(0), int32(-1), int32(0), nil)
	check(t, d("QUARTER"), pairs, int32(0), int32(-4), int32(0), nil)
}

func TestEpochFunctions(t *testing.T) {
	ns := cols(column{tL, []any{int64(1700000000), int64(-1), nil}})
	ltz := types.TTimestampLTZ
	check(t, call(EpochToTime, ltz, c(0, tL), i32(0)), ns, "2023-11-14 22:13:20.000", "1969-12-31 23:59:59.000", nil)
	check(t, call(EpochToTime, ltz, c(0, tL), i32(3)), ns, "1970-01-20 16:13:20.000", "1969-12-31 23:59:59.999", nil)
	check(t, call(FromUnixTime, tS, c(0, tL), str("yyyy-MM-dd HH:mm:ss")), ns, "2023-11-14 22:13:20", "1969-12-31 23:59:59", nil)
	check(t, &Cast{X: c(0, tL), T: ltz}, ns, "2023-11-14 22:13:20.000", "1969-12-31 23:59:59.000", nil)
	check(t, &Cast{X: &Cast{X: c(0, tL), T: ltz}, T: tL}, ns, int64(1700000000), int64(-1), nil)
}

func TestIntervalTimesInteger(t *testing.T) {
	ns := cols(column{tL, []any{int64(3), int64(-2), nil}})
	dt, ym := types.TIntervalDT, types.TIntervalYM
	check(t, call(Mul, dt, &Lit{V: types.IntValue(dt, types.MsHour)}, c(0, tL)), ns, int64(3*types.MsHour), int64(-2*types.MsHour), nil)
	check(t, call(Mul, ym, c(0, tL), &Lit{V: types.IntValue(ym, 12)}), ns, int32(36), int32(-24), nil)
}
