package types

import (
	"testing"
	"time"
)

func TestTimestampRoundTrip(t *testing.T) {
	for _, ms := range []int64{0, 1, -1, 999, 1700000000123, -86400001, 253402300799999, -62135596800000} {
		s := FormatTimestamp(ms)
		got, ok := ParseTimestamp(s)
		if !ok || got != ms {
			t.Errorf("round trip %d -> %q -> %d, %v", ms, s, got, ok)
		}
		want := time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
		if s != want {
			t.Errorf("FormatTimestamp(%d) = %q, want %q", ms, s, want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	cases := map[string]int64{
		"1970-01-01 00:00:00":        0,
		"1970-01-01 00:00:01.5":      1500,
		"1970-01-01T00:00:01.123456": 1123,
		"1970-01-02":                 86400000,
	}
	for s, want := range cases {
		got, ok := ParseTimestamp(s)
		if !ok || got != want {
			t.Errorf("ParseTimestamp(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, bad := range []string{"", "x", "2020-13-01 00:00:00", "2020-02-30 00:00:00", "2020-01-01 00:00", "2020-01-01 00:00:00.", "2020-01-01 00:00:00.1x"} {
		if _, ok := ParseTimestamp(bad); ok {
			t.Errorf("ParseTimestamp(%q) accepted", bad)
		}
	}
}

func TestFloorTimestamp(t *testing.T) {
	ts, _ := ParseTimestamp("2024-05-17 13:45:12.345")
	for unit, want := range map[string]string{
		"SECOND":  "2024-05-17 13:45:12.000",
		"MINUTE":  "2024-05-17 13:45:00.000",
		"HOUR":    "2024-05-17 13:00:00.000",
		"DAY":     "2024-05-17 00:00:00.000",
		"WEEK":    "2024-05-13 00:00:00.000",
		"MONTH":   "2024-05-01 00:00:00.000",
		"QUARTER": "2024-04-01 00:00:00.000",
		"YEAR":    "2024-01-01 00:00:00.000",
	} {
		got, ok := FloorTimestamp(ts, unit)
		if !ok || FormatTimestamp(got) != want {
			t.Errorf("FLOOR TO %s = %s, want %s", unit, FormatTimestamp(got), want)
		}
	}
	if DayOfWeek(ts) != 6 { // Friday
		t.Errorf("DayOfWeek = %d", DayOfWeek(ts))
	}
}

func TestParseDecimalRejectsNonNumbers(t *testing.T) {
	for _, s := range []string{"Inf", "-Inf", "NaN", "", "1.2.x", "e"} {
		if _, err := ParseDecimal(s, 10, 2); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", s)
		}
	}
	if n, err := ParseDecimal("-12.345", 10, 2); err != nil || n.ToString(2) != "-12.35" && n.ToString(2) != "-12.34" {
		t.Errorf("ParseDecimal(-12.345) = %v, %v", n.ToString(2), err)
	}
}
