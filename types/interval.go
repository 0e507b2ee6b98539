package types

import "strconv"

// SQLIntervalDayTime renders milliseconds as an INTERVAL literal a user
// would write, in the largest unit that holds the value whole: 60000 is
// INTERVAL '1' MINUTE, 90000 INTERVAL '90' SECOND, 1500 INTERVAL '1.5'
// SECOND. EXPLAIN shows intervals so, where values show as Flink prints
// them (FormatIntervalDayTime).
func SQLIntervalDayTime(ms int64) string {
	for _, u := range []struct {
		ms   int64
		name string
	}{{MsDay, "DAY"}, {MsHour, "HOUR"}, {MsMinute, "MINUTE"}} {
		if ms != 0 && ms%u.ms == 0 {
			return "INTERVAL '" + strconv.FormatInt(ms/u.ms, 10) + "' " + u.name
		}
	}
	return "INTERVAL '" + strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) + "' SECOND"
}

// SQLIntervalYearMonth renders months as an INTERVAL literal: whole years
// in YEAR, the rest in MONTH.
func SQLIntervalYearMonth(m int32) string {
	if m != 0 && m%12 == 0 {
		return "INTERVAL '" + strconv.Itoa(int(m/12)) + "' YEAR"
	}
	return "INTERVAL '" + strconv.Itoa(int(m)) + "' MONTH"
}
