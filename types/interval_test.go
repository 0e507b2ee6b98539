package types

import "testing"

func TestSQLInterval(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{60_000, "INTERVAL '1' MINUTE"},
		{5_000, "INTERVAL '5' SECOND"},
		{90_000, "INTERVAL '90' SECOND"},
		{1_500, "INTERVAL '1.5' SECOND"},
		{1, "INTERVAL '0.001' SECOND"},
		{0, "INTERVAL '0' SECOND"},
		{-10_000, "INTERVAL '-10' SECOND"},
		{2 * MsHour, "INTERVAL '2' HOUR"},
		{3 * MsDay, "INTERVAL '3' DAY"},
		{25 * MsHour, "INTERVAL '25' HOUR"},
	} {
		if got := SQLIntervalDayTime(c.ms); got != c.want {
			t.Errorf("%d ms: %s, want %s", c.ms, got, c.want)
		}
	}
	for _, c := range []struct {
		m    int32
		want string
	}{{12, "INTERVAL '1' YEAR"}, {14, "INTERVAL '14' MONTH"}, {-24, "INTERVAL '-2' YEAR"}, {0, "INTERVAL '0' MONTH"}} {
		if got := SQLIntervalYearMonth(c.m); got != c.want {
			t.Errorf("%d months: %s, want %s", c.m, got, c.want)
		}
	}
}
