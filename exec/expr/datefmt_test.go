package expr

import (
	"math"
	"testing"

	"github.com/strandsql/strand/types"
)

func TestDateFormatLetters(t *testing.T) {
	x := c(0, tTs)
	f := func(p string) Expr { return call(DateFormat, tS, x, str(p)) }
	// 2024-05-17 was a Friday; 1969-12-31 a Wednesday; 2021-01-03 a Sunday.
	check(t, f("G GGGG GGGGG u uuuu"), stamps, "AD Anno Domini A 2024 2024", "AD Anno Domini A 1969 1969", "AD Anno Domini A 2021 2021", nil, "AD Anno Domini A 2020 2020")
	check(t, f("E EEEE EEEEE e ee eee c"), stamps, "Fri Friday F 6 06 Fri 6", "Wed Wednesday W 4 04 Wed 4", "Sun Sunday S 1 01 Sun 1", nil, "Thu Thursday T 5 05 Thu 5")
	check(t, f("Q QQQ QQQQ L LLL MMMMM"), stamps, "2 Q2 2nd quarter 5 May M", "4 Q4 4th quarter 12 Dec D", "1 Q1 1st quarter 1 Jan J", nil, "4 Q4 4th quarter 12 Dec D")
	check(t, f("D DDD d F"), stamps, "138 138 17 3", "365 365 31 3", "3 003 3 3", nil, "366 366 31 3")
	check(t, f("h hh K k a"), stamps, "1 01 1 13 PM", "11 11 11 23 PM", "12 12 0 24 AM", nil, "8 08 8 8 AM")
	check(t, f("A n N"), stamps, "49512345 345000000 49512345000000", "86399999 999000000 86399999000000", "0 0 0", nil, "29350011 11000000 29350011000000")
	// Week-based fields, weeks from Sunday with week 1 holding January 1st.
	check(t, f("Y w W"), stamps, "2024 20 3", "1970 1 5", "2021 2 2", nil, "2021 1 5")
	check(t, f("yyyy[ 'T' HH]"), stamps, "2024 T 13", "1969 T 23", "2021 T 00", nil, "2020 T 08")
}

func TestParseTime(t *testing.T) {
	ms := func(s string) int64 { v, _ := types.ParseTimestamp(s); return v }
	cases := []struct {
		in, pat string
		want    int64 // math.MinInt64: no match
	}{
		{"2024-05-17 13:45:12", "yyyy-MM-dd HH:mm:ss", ms("2024-05-17 13:45:12")},
		{"20240517134512345", "yyyyMMddHHmmssSSS", ms("2024-05-17 13:45:12.345")},
		{"17/May/2024:01:45:12 PM", "dd/MMM/yyyy:hh:mm:ss a", ms("2024-05-17 13:45:12")},
		{"Fri, 17 May 2024", "EEE, d MMM yyyy", ms("2024-05-17 00:00:00")},
		{"2024-05-17T13:45:12+0200", "yyyy-MM-dd'T'HH:mm:ssX", ms("2024-05-17 11:45:12")},
		{"2024-05-17T13:45:12Z", "yyyy-MM-dd'T'HH:mm:ssXXX", ms("2024-05-17 13:45:12")},
		{"2024-05-17", "yyyy-MM-dd[ HH:mm]", ms("2024-05-17 00:00:00")},
		{"2024-05-17 07:30", "yyyy-MM-dd[ HH:mm]", ms("2024-05-17 07:30:00")},
		{"2023-02-30", "yyyy-MM-dd", ms("2023-02-28 00:00:00")}, // Java's SMART resolver
		{"24-1-2", "yy-M-d", ms("2024-01-02 00:00:00")},
		{"2024-139", "yyyy-DDD", ms("2024-05-18 00:00:00")},
		{"2024-13-01", "yyyy-MM-dd", math.MinInt64},
		{"2024-05-17 25:00", "yyyy-MM-dd HH:mm", math.MinInt64},
		{"2024-05-17x", "yyyy-MM-dd", math.MinInt64},
		{"garbage", "yyyy", math.MinInt64},
	}
	for _, tc := range cases {
		toks, err := parseFormat(tc.pat, true)
		if err != nil {
			t.Fatalf("%q: %v", tc.pat, err)
		}
		got, ok := parseTime([]byte(tc.in), toks, false)
		if !ok {
			got = math.MinInt64
		}
		if got != tc.want {
			t.Errorf("parse %q with %q = %s, want %s", tc.in, tc.pat, types.FormatTimestamp(got), types.FormatTimestamp(tc.want))
		}
	}
	// TO_TIMESTAMP and TO_DATE over columns; UNIX_TIMESTAMP ignores text
	// after the pattern, and gives Long.MIN_VALUE for no match.
	ss := cols(column{tS, []any{"2024-05-17 13:45:12.345", "bad", nil}})
	s := c(0, tS)
	check(t, call(ParseTime, tTs, s, str("yyyy-MM-dd HH:mm:ss.SSS")), ss, "2024-05-17 13:45:12.345", nil, nil)
	check(t, call(ParseTime, tDt, s, str("yyyy-MM-dd HH:mm:ss.SSS")), ss, "2024-05-17", nil, nil)
	check(t, call(UnixTime, tL, s, str("yyyy-MM-dd HH:mm:ss")), ss, int64(1715953512), int64(math.MinInt64), nil)
}

// FuzzDatePattern: a pattern that parses never makes formatting or parsing
// panic, and a numeric pattern reads back what it wrote.
func FuzzDatePattern(f *testing.F) {
	f.Add("yyyy-MM-dd HH:mm:ss.SSS", int64(1715953512345))
	f.Add("EEE, d MMM yyyy hh:mm a [G]", int64(-1))
	f.Add("yyyyMMddHHmmssSSS", int64(0))
	f.Fuzz(func(t *testing.T, p string, ms int64) {
		ms %= 250000 * 365 * types.MsDay // years 0..~250000, either side
		ftoks, err := parseFormat(p, false)
		if err != nil {
			return
		}
		out := appendFormat(nil, ftoks, ms)
		ptoks, err := parseFormat(p, true)
		if err != nil {
			return
		}
		parseTime(out, ptoks, false)
		if p == "yyyy-MM-dd HH:mm:ss.SSS" && ms >= 0 && ms < 9000*365*types.MsDay {
			if got, ok := parseTime(out, ptoks, false); !ok || got != ms {
				t.Fatalf("%q: wrote %q, read %d, want %d", p, out, got, ms)
			}
		}
	})
}
