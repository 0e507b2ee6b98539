package types

import (
	"fmt"
	"strconv"
	"time"
)

// MaxWatermark is the watermark a bounded source emits when it ends, so
// that every window fires.
const MaxWatermark = int64(1<<63 - 1)

// MinWatermark is the watermark before any row has been seen.
const MinWatermark = int64(-1 << 63)

// Milliseconds per unit, for intervals and FLOOR(ts TO unit).
const (
	MsSecond = int64(1000)
	MsMinute = 60 * MsSecond
	MsHour   = 60 * MsMinute
	MsDay    = 24 * MsHour
)

// ParseTimestamp parses "yyyy-MM-dd HH:mm:ss[.fraction]" (also with a 'T'
// between date and time, and a date alone) into milliseconds since the epoch,
// UTC. Fractions beyond milliseconds are truncated.
func ParseTimestamp(s string) (int64, bool) {
	b := []byte(s)
	if len(b) < 10 {
		return 0, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	if !ok1 || !ok2 || !ok3 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	var h, mi, sec, ms int
	if len(b) > 10 {
		if len(b) < 19 || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' || b[16] != ':' {
			return 0, false
		}
		var ok4, ok5, ok6 bool
		h, ok4 = digits(b[11:13])
		mi, ok5 = digits(b[14:16])
		sec, ok6 = digits(b[17:19])
		if !ok4 || !ok5 || !ok6 {
			return 0, false
		}
		if len(b) > 19 {
			if b[19] != '.' || len(b) == 20 {
				return 0, false
			}
			frac := b[20:]
			for i, c := range frac {
				if c < '0' || c > '9' {
					return 0, false
				}
				if i < 3 {
					ms = ms*10 + int(c-'0')
				}
			}
			for i := len(frac); i < 3; i++ {
				ms *= 10
			}
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return days*MsDay + int64(h)*MsHour + int64(mi)*MsMinute + int64(sec)*MsSecond + int64(ms), true
}

// ParseDate parses "yyyy-MM-dd" into days since the epoch.
func ParseDate(s string) (int32, bool) {
	if len(s) != 10 {
		return 0, false
	}
	ms, ok := ParseTimestamp(s)
	if !ok {
		return 0, false
	}
	return int32(ms / MsDay), true
}

// FormatTimestamp renders epoch milliseconds as "yyyy-MM-dd HH:mm:ss.SSS".
func FormatTimestamp(ms int64) string {
	return string(AppendTimestamp(nil, ms))
}

// AppendTimestamp appends the rendering of FormatTimestamp to dst without
// allocating.
func AppendTimestamp(dst []byte, ms int64) []byte {
	days := floorDiv(ms, MsDay)
	rem := ms - days*MsDay
	y, mo, d := civilFromDays(days)
	h := rem / MsHour
	rem -= h * MsHour
	mi := rem / MsMinute
	rem -= mi * MsMinute
	sec := rem / MsSecond
	frac := rem - sec*MsSecond
	dst = appendYear(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, mo)
	dst = append(dst, '-')
	dst = append2(dst, d)
	dst = append(dst, ' ')
	dst = append2(dst, int(h))
	dst = append(dst, ':')
	dst = append2(dst, int(mi))
	dst = append(dst, ':')
	dst = append2(dst, int(sec))
	dst = append(dst, '.')
	dst = append(dst, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return dst
}

// FormatDate renders days since the epoch as "yyyy-MM-dd".
func FormatDate(days int32) string {
	return string(AppendDate(nil, days))
}

// AppendDate appends the rendering of FormatDate to dst without allocating.
func AppendDate(dst []byte, days int32) []byte {
	y, mo, d := civilFromDays(int64(days))
	dst = appendYear(dst, y)
	dst = append(dst, '-')
	dst = append2(dst, mo)
	dst = append(dst, '-')
	return append2(dst, d)
}

// FormatIntervalDayTime renders milliseconds as Flink does: +D HH:mm:ss.SSS.
func FormatIntervalDayTime(ms int64) string {
	sign := "+"
	if ms < 0 {
		sign, ms = "-", -ms
	}
	d := ms / MsDay
	ms -= d * MsDay
	return fmt.Sprintf("%s%d %02d:%02d:%02d.%03d", sign, d, ms/MsHour, ms%MsHour/MsMinute, ms%MsMinute/MsSecond, ms%MsSecond)
}

// FormatIntervalYearMonth renders months as Flink does: +Y-MM.
func FormatIntervalYearMonth(m int32) string {
	sign := "+"
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d-%02d", sign, m/12, m%12)
}

// AddMonths adds n months to a timestamp, clamping the day to the end of the
// target month as Flink does.
func AddMonths(ms int64, n int32) int64 {
	t := time.UnixMilli(ms).UTC().AddDate(0, int(n), 0)
	orig := time.UnixMilli(ms).UTC()
	want := (int(orig.Month()) - 1 + int(n)) % 12
	if want < 0 {
		want += 12
	}
	if int(t.Month())-1 != want {
		t = t.AddDate(0, 0, -t.Day())
	}
	return t.UnixMilli()
}

// UnitMillis returns the length of a fixed-length time unit.
func UnitMillis(unit string) (int64, bool) {
	switch unit {
	case "MILLISECOND":
		return 1, true
	case "SECOND":
		return MsSecond, true
	case "MINUTE":
		return MsMinute, true
	case "HOUR":
		return MsHour, true
	case "DAY":
		return MsDay, true
	case "WEEK":
		return 7 * MsDay, true
	}
	return 0, false
}

// FloorTimestamp rounds ms down to a multiple of unit. Fixed units are
// aligned to the epoch (WEEK to the Monday on or before); MONTH, QUARTER and
// YEAR to the calendar.
func FloorTimestamp(ms int64, unit string) (int64, bool) {
	switch unit {
	case "WEEK":
		// 1970-01-01 was a Thursday; Monday-aligned weeks start 3 days earlier.
		const shift = 3 * MsDay
		return floorDiv(ms+shift, 7*MsDay)*7*MsDay - shift, true
	case "MONTH", "QUARTER", "YEAR":
		days := floorDiv(ms, MsDay)
		y, m, _ := civilFromDays(days)
		switch unit {
		case "QUARTER":
			m = (m-1)/3*3 + 1
		case "YEAR":
			m = 1
		}
		return daysFromCivil(y, m, 1) * MsDay, true
	}
	u, ok := UnitMillis(unit)
	if !ok {
		return 0, false
	}
	return floorDiv(ms, u) * u, true
}

// CeilTimestamp rounds ms up to a multiple of unit.
func CeilTimestamp(ms int64, unit string) (int64, bool) {
	f, ok := FloorTimestamp(ms, unit)
	if !ok || f == ms {
		return f, ok
	}
	switch unit {
	case "MONTH":
		return AddMonths(f, 1), true
	case "QUARTER":
		return AddMonths(f, 3), true
	case "YEAR":
		return AddMonths(f, 12), true
	case "WEEK":
		return f + 7*MsDay, true
	}
	u, _ := UnitMillis(unit)
	return f + u, true
}

// Civil splits epoch milliseconds into calendar fields (UTC).
func Civil(ms int64) (year, month, day, hour, minute, second, milli int) {
	days := floorDiv(ms, MsDay)
	rem := ms - days*MsDay
	year, month, day = civilFromDays(days)
	return year, month, day, int(rem / MsHour), int(rem % MsHour / MsMinute), int(rem % MsMinute / MsSecond), int(rem % MsSecond)
}

// DayOfWeek returns 1 (Sunday) to 7 (Saturday), as SQL's EXTRACT(DOW).
func DayOfWeek(ms int64) int {
	days := floorDiv(ms, MsDay)
	// 1970-01-01 was a Thursday (5).
	return int((days%7+7+4)%7) + 1
}

// DayOfYear returns 1..366.
func DayOfYear(ms int64) int {
	days := floorDiv(ms, MsDay)
	y, _, _ := civilFromDays(days)
	return int(days-daysFromCivil(y, 1, 1)) + 1
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorDiv is integer division rounding toward negative infinity.
func FloorDiv(a, b int64) int64 { return floorDiv(a, b) }

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil converts a proleptic Gregorian date to days since the epoch
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func civilFromDays(z int64) (int, int, int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return int(y), int(m), int(d)
}

func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10%10), byte('0'+v%10))
}

func appendYear(dst []byte, y int) []byte {
	if y >= 0 && y <= 9999 {
		return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	return strconv.AppendInt(dst, int64(y), 10)
}

// DaysFromCivil returns the days since the epoch of a proleptic Gregorian
// date, for parsers that assemble dates from fields.
func DaysFromCivil(year, month, day int) int64 { return daysFromCivil(year, month, day) }

// DaysIn returns the number of days of a month.
func DaysIn(year, month int) int { return daysIn(year, month) }
