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

func TestFormatFloatAsJava(t *testing.T) {
	cases := []struct {
		f    float64
		bits int
		want string
	}{
		{1e7, 64, "1.0E7"}, {1e-4, 64, "1.0E-4"}, {1234567, 64, "1234567.0"}, {0.001, 64, "0.001"},
		{-1e-10, 64, "-1.0E-10"}, {123456789.125, 64, "1.23456789125E8"}, {1.5, 64, "1.5"},
		{100, 64, "100.0"}, {0, 64, "0.0"}, {-2.5, 64, "-2.5"}, {9999999, 64, "9999999.0"},
		{0.1, 32, "0.1"}, {3.4e38, 32, "3.4E38"}, {0.0123, 64, "0.0123"},
	}
	for _, c := range cases {
		f := c.f
		if c.bits == 32 {
			f = float64(float32(f))
		}
		if got := FormatFloat(f, c.bits); got != c.want {
			t.Errorf("FormatFloat(%v, %d) = %s, want %s", c.f, c.bits, got, c.want)
		}
	}
}
