package expr

import (
	"fmt"
	"strconv"

	"github.com/strandsql/strand/types"
)

// Date patterns. Flink formats a TIMESTAMP with Java's DateTimeFormatter
// (DATE_FORMAT) and parses with it (TO_TIMESTAMP, TO_DATE); strand reads
// the same pattern language, in the en-US locale Flink's JVM defaults to:
//
//	G era            AD; GGGG Anno Domini; GGGGG A
//	u y year         y year of era; yy two digits; n >= 4 pads to n
//	Y week year      w week of week year, W week of month (weeks start on Sunday)
//	D day of year    d day of month
//	M L month        1-2 digits; MMM Jan; MMMM January; MMMMM J
//	Q q quarter      1-2 digits; QQQ Q1; QQQQ 1st quarter
//	E day of week    Tue; EEEE Tuesday; EEEEE T
//	e c day of week  as a number from Sunday = 1 (e, ee, c), or as E (3-5 letters)
//	F                aligned day of week in month, (d - 1) % 7 + 1, as Java 11 and 17
//	a AM or PM       h 1-12, K 0-11, k 1-24, H 0-23
//	m minute         s second
//	S fraction       n digits of the second's fraction
//	A milli of day   n nano of second, N nano of day
//	'text'           literal text ('' is a quote); [ ] an optional section
//
// Every other ASCII letter, too many letters (ddd), and the reserved
// characters # { } are refused at plan time for a literal pattern. The
// zone letters (V z O X x Z) are refused for formatting: a TIMESTAMP has no
// zone, and Flink fails the job on them; parsing reads X x Z as an offset
// (Z, +08, +0800, +08:00). Parsing reads the numeric letters, month and day
// names, AM/PM and eras (week-based letters are refused there); missing
// fields default to 1970-01-01 00:00:00, a day past the month's end is
// moved to its last day (Java's SMART resolver), and the whole input must
// match.

// token is one element of a date pattern: a pattern letter repeated n
// times, literal text, or the start (open) or end (close) of an optional
// section.
type token struct {
	letter byte
	n      int
	lit    string
	open   bool
	close  bool
}

// maxLetters is the most letters of each kind DateTimeFormatter accepts.
var maxLetters = map[byte]int{
	'G': 5, 'u': 19, 'y': 19, 'Y': 19, 'D': 3, 'M': 5, 'L': 5, 'd': 2, 'Q': 5, 'q': 5,
	'w': 2, 'W': 1, 'E': 5, 'e': 5, 'c': 5, 'F': 1, 'a': 1, 'h': 2, 'K': 2, 'k': 2,
	'H': 2, 'm': 2, 's': 2, 'S': 9, 'A': 19, 'n': 19, 'N': 19,
	'V': 2, 'z': 4, 'O': 4, 'X': 5, 'x': 5, 'Z': 5,
}

// CheckDateFormat returns the error DATE_FORMAT would raise for pattern
// p, so that a literal pattern is refused when the query is planned.
func CheckDateFormat(p string) error {
	_, err := parseFormat(p, false)
	return err
}

// CheckParseFormat is CheckDateFormat for the patterns TO_TIMESTAMP,
// TO_DATE and UNIX_TIMESTAMP parse with.
func CheckParseFormat(p string) error {
	_, err := parseFormat(p, true)
	return err
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// parseFormat reads a pattern for formatting, or for parsing when parse.
func parseFormat(p string, parse bool) ([]token, error) {
	var toks []token
	depth := 0
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			if i+1 < len(p) && p[i+1] == '\'' {
				toks = append(toks, token{lit: "'"})
				i += 2
				continue
			}
			var lit []byte
			j := i + 1
			for ; j < len(p); j++ {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit = append(lit, '\'')
						j++
						continue
					}
					break
				}
				lit = append(lit, p[j])
			}
			if j == len(p) {
				return nil, fmt.Errorf("unterminated quote in date format %q", p)
			}
			toks = append(toks, token{lit: string(lit)})
			i = j + 1
		case c == '[':
			depth++
			toks = append(toks, token{open: true})
			i++
		case c == ']':
			if depth == 0 {
				return nil, fmt.Errorf("']' without '[' in date format %q", p)
			}
			depth--
			toks = append(toks, token{close: true})
			i++
		case c == '#' || c == '{' || c == '}':
			return nil, fmt.Errorf("reserved character %q in date format %q", c, p)
		case isLetter(c):
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			n := j - i
			if err := checkLetter(c, n, parse); err != nil {
				return nil, fmt.Errorf("date format %q: %v", p, err)
			}
			toks = append(toks, token{letter: c, n: n})
			i = j
		default:
			j := i
			for j < len(p) && p[j] != '\'' && p[j] != '[' && p[j] != ']' && p[j] != '#' && p[j] != '{' && p[j] != '}' && !isLetter(p[j]) {
				j++
			}
			toks = append(toks, token{lit: p[i:j]})
			i = j
		}
	}
	if depth > 0 {
		return nil, fmt.Errorf("'[' without ']' in date format %q", p)
	}
	return toks, nil
}

func checkLetter(c byte, n int, parse bool) error {
	most, ok := maxLetters[c]
	switch {
	case !ok:
		return fmt.Errorf("unknown pattern letter %q", c)
	case n > most, c == 'c' && n == 2:
		return fmt.Errorf("too many pattern letters %q", c)
	}
	switch c {
	case 'V', 'z', 'O':
		return fmt.Errorf("pattern letter %q needs a time zone, and strand's timestamps are UTC without one", c)
	case 'X', 'x', 'Z':
		if !parse {
			return fmt.Errorf("pattern letter %q formats a zone offset, which a TIMESTAMP does not have", c)
		}
	case 'Y', 'w', 'W', 'e', 'c', 'F', 'Q', 'q':
		if parse {
			return fmt.Errorf("pattern letter %q is not supported for parsing", c)
		}
	}
	return nil
}

var (
	months   = [...]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	weekdays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	quarters = [...]string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}
)

// text renders a name by letter count: 3 or fewer short, 4 full, 5 narrow.
func text(dst []byte, name string, n int) []byte {
	switch {
	case n == 4:
		return append(dst, name...)
	case n == 5:
		return append(dst, name[0])
	}
	return append(dst, name[:3]...)
}

// appendFormat renders ms with a pattern.
func appendFormat(dst []byte, toks []token, ms int64) []byte {
	y, mo, d, h, mi, s, milli := types.Civil(ms)
	days := types.FloorDiv(ms, types.MsDay)
	dow := int(((days+4)%7 + 7) % 7) // 0 Sunday; 1970-01-01 was a Thursday
	msOfDay := ms - days*types.MsDay
	for _, t := range toks {
		switch t.letter {
		case 0:
			dst = append(dst, t.lit...)
		case 'G':
			era := "AD"
			full := "Anno Domini"
			if y <= 0 {
				era, full = "BC", "Before Christ"
			}
			switch t.n {
			case 4:
				dst = append(dst, full...)
			case 5:
				dst = append(dst, era[0])
			default:
				dst = append(dst, era...)
			}
		case 'y', 'u', 'Y':
			v := y
			if t.letter == 'Y' {
				v = weekYear(days, dow)
			}
			if t.letter == 'y' && v <= 0 {
				v = 1 - v
			}
			dst = appendYearN(dst, v, t.n)
		case 'M', 'L':
			if t.n >= 3 {
				dst = text(dst, months[mo-1], t.n)
			} else {
				dst = appendPad(dst, mo, t.n)
			}
		case 'Q', 'q':
			qu := (mo + 2) / 3
			switch t.n {
			case 3:
				dst = append(append(dst, 'Q'), byte('0'+qu))
			case 4:
				dst = append(dst, quarters[qu-1]...)
			default:
				dst = appendPad(dst, qu, t.n)
			}
		case 'd':
			dst = appendPad(dst, d, t.n)
		case 'D':
			dst = appendPad(dst, types.DayOfYear(ms), t.n)
		case 'w':
			dst = appendPad(dst, weekOfWeekYear(days, dow), t.n)
		case 'W':
			first := ((dow-(d-1))%7 + 7) % 7
			dst = appendPad(dst, (d+first-1)/7+1, t.n)
		case 'E':
			dst = text(dst, weekdays[dow], t.n)
		case 'e', 'c':
			if t.n <= 2 {
				dst = appendPad(dst, dow+1, t.n)
			} else {
				dst = text(dst, weekdays[dow], t.n)
			}
		case 'F':
			dst = appendPad(dst, (d-1)%7+1, t.n)
		case 'a':
			if h < 12 {
				dst = append(dst, "AM"...)
			} else {
				dst = append(dst, "PM"...)
			}
		case 'h':
			dst = appendPad(dst, (h+11)%12+1, t.n)
		case 'K':
			dst = appendPad(dst, h%12, t.n)
		case 'k':
			dst = appendPad(dst, (h+23)%24+1, t.n)
		case 'H':
			dst = appendPad(dst, h, t.n)
		case 'm':
			dst = appendPad(dst, mi, t.n)
		case 's':
			dst = appendPad(dst, s, t.n)
		case 'S':
			frac := strconv.Itoa(1000 + milli)[1:] + "000000"
			dst = append(dst, frac[:t.n]...)
		case 'A':
			dst = appendPad64(dst, msOfDay, t.n)
		case 'n':
			dst = appendPad64(dst, int64(milli)*1e6, t.n)
		case 'N':
			dst = appendPad64(dst, msOfDay*1e6, t.n)
		}
	}
	return dst
}

// weekYear is the week-based year in the en-US week definition: weeks
// start on Sunday, and week 1 holds January 1st, so a week belongs to the
// year of its Saturday.
func weekYear(days int64, dow int) int {
	y, _, _, _, _, _, _ := types.Civil((days - int64(dow) + 6) * types.MsDay)
	return y
}

func weekOfWeekYear(days int64, dow int) int {
	start := days - int64(dow)
	jan1 := types.DaysFromCivil(weekYear(days, dow), 1, 1)
	jan1dow := ((jan1+4)%7 + 7) % 7
	return int((start-(jan1-jan1dow))/7) + 1
}

// appendYearN renders a year as DateTimeFormatter does: two letters give
// the last two digits, four or more pad and put '+' before a year longer
// than the padding.
func appendYearN(dst []byte, y, n int) []byte {
	if n == 2 {
		return appendPad(dst, (y%100+100)%100, 2)
	}
	if n >= 4 && y > 0 && len(strconv.Itoa(y)) > n {
		dst = append(dst, '+')
	}
	return appendPad(dst, y, n)
}

func appendPad(dst []byte, v, width int) []byte { return appendPad64(dst, int64(v), width) }

func appendPad64(dst []byte, v int64, width int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	digits := 1
	for x := v; x >= 10; x /= 10 {
		digits++
	}
	for ; width > digits; width-- {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, v, 10)
}

// --- parsing ---

// fields collects what a parse read.
type fields struct {
	year, month, day, doy int
	hour, minute, second  int
	nanos                 int64
	pm, ampm, h12         bool
	offset                int64 // milliseconds east of UTC
}

// parseTime reads s with a parsing pattern, giving epoch milliseconds;
// with prefix, text after the pattern is ignored (SimpleDateFormat).
func parseTime(s []byte, toks []token, prefix bool) (int64, bool) {
	f := fields{year: 1970, month: 1, day: 1}
	rest, ok := f.read(s, toks)
	if !ok || len(rest) > 0 && !prefix {
		return 0, false
	}
	return f.millis()
}

// read parses toks from s, returning what is left; optional sections
// that fail to match are skipped.
func (f *fields) read(s []byte, toks []token) ([]byte, bool) {
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		switch {
		case t.open:
			end := closing(toks, k)
			save := *f
			if rest, ok := f.read(s, toks[k+1:end]); ok {
				s = rest
			} else {
				*f = save
			}
			k = end
			continue
		case t.letter == 0:
			if len(s) < len(t.lit) || string(s[:len(t.lit)]) != t.lit {
				return s, false
			}
			s = s[len(t.lit):]
			continue
		}
		// A numeric field directly followed by another takes exactly its
		// letter count of digits (yyyyMMdd); otherwise as many as there are.
		fixed := k+1 < len(toks) && toks[k+1].letter != 0 && numeric(toks[k+1]) || t.n == 2
		var ok bool
		if s, ok = f.field(s, t, fixed); !ok {
			return s, false
		}
	}
	return s, true
}

func closing(toks []token, k int) int {
	depth := 0
	for j := k; j < len(toks); j++ {
		if toks[j].open {
			depth++
		} else if toks[j].close {
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return len(toks) - 1
}

func numeric(t token) bool {
	switch t.letter {
	case 'M', 'L', 'E', 'a', 'G', 'X', 'x', 'Z':
		return t.letter == 'M' && t.n <= 2 || t.letter == 'L' && t.n <= 2
	}
	return true
}

// digits reads a number of min to max digits.
func digitsOf(s []byte, min, max int) (int64, []byte, bool) {
	n := 0
	var v int64
	for n < len(s) && n < max && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int64(s[n]-'0')
		n++
	}
	return v, s[n:], n >= min
}

func (f *fields) field(s []byte, t token, fixed bool) ([]byte, bool) {
	lo, hi := 1, 19
	if fixed {
		lo, hi = t.n, t.n
	}
	number := func() (int, bool) {
		v, rest, ok := digitsOf(s, lo, hi)
		s = rest
		return int(v), ok
	}
	var ok bool
	switch t.letter {
	case 'y', 'u':
		neg := t.letter == 'u' && len(s) > 0 && (s[0] == '-' || s[0] == '+') && !fixed
		if neg || t.n >= 4 && len(s) > 0 && s[0] == '+' {
			neg = s[0] == '-'
			s = s[1:]
		}
		if t.n == 2 {
			if f.year, ok = number(); ok {
				f.year += 2000
			}
			return s, ok
		}
		if !fixed && t.n > 1 {
			lo = t.n
		}
		f.year, ok = number()
		if neg {
			f.year = -f.year
		}
	case 'M', 'L':
		if t.n >= 3 {
			return f.name(s, months[:], t.n, func(i int) { f.month = i + 1 })
		}
		f.month, ok = number()
	case 'd':
		f.day, ok = number()
	case 'D':
		f.doy, ok = number()
	case 'H':
		f.hour, ok = number()
	case 'k':
		if f.hour, ok = number(); f.hour == 24 {
			f.hour = 0
		}
	case 'h', 'K':
		f.hour, ok = number()
		f.h12 = true
		if t.letter == 'h' && f.hour == 12 {
			f.hour = 0
		}
	case 'm':
		f.minute, ok = number()
	case 's':
		f.second, ok = number()
	case 'S':
		var v int64
		var rest []byte
		if v, rest, ok = digitsOf(s, t.n, t.n); ok {
			for i := t.n; i < 9; i++ {
				v *= 10
			}
			f.nanos, s = v, rest
		}
	case 'n':
		var v int64
		v, s, ok = digitsOf(s, lo, hi)
		f.nanos = v
	case 'A', 'N':
		var v int64
		if v, s, ok = digitsOf(s, lo, hi); ok {
			if t.letter == 'N' {
				v /= 1e6
			}
			f.hour, f.minute, f.second = int(v/types.MsHour), int(v%types.MsHour/types.MsMinute), int(v%types.MsMinute/types.MsSecond)
			f.nanos = v % 1000 * 1e6
		}
	case 'E':
		return f.name(s, weekdays[:], t.n, func(int) {})
	case 'a':
		return f.name(s, []string{"AM", "PM"}, 4, func(i int) { f.ampm, f.pm = true, i == 1 })
	case 'G':
		if len(s) >= 2 && (string(s[:2]) == "AD" || string(s[:2]) == "BC") {
			return s[2:], true
		}
		return s, false
	case 'X', 'x', 'Z':
		return f.zone(s)
	}
	return s, ok
}

// name reads one of names, whole (4 letters) or its first three letters,
// ignoring case.
func (f *fields) name(s []byte, names []string, n int, set func(int)) ([]byte, bool) {
	for i, nm := range names {
		w := nm
		if n != 4 && len(nm) > 3 {
			w = nm[:3]
		}
		if len(s) >= len(w) && equalFoldASCII(s[:len(w)], w) {
			set(i)
			return s[len(w):], true
		}
	}
	return s, false
}

func equalFoldASCII(b []byte, s string) bool {
	for i := range b {
		x, y := b[i]|0x20, s[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// zone reads Z or ±HH[[:]MM].
func (f *fields) zone(s []byte) ([]byte, bool) {
	if len(s) > 0 && s[0] == 'Z' {
		return s[1:], true
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return s, false
	}
	sign := int64(1)
	if s[0] == '-' {
		sign = -1
	}
	h, rest, ok := digitsOf(s[1:], 2, 2)
	if !ok {
		return s, false
	}
	var m int64
	if len(rest) > 0 && rest[0] == ':' {
		rest = rest[1:]
	}
	if v, r, ok := digitsOf(rest, 2, 2); ok {
		m, rest = v, r
	}
	if h > 18 || m > 59 {
		return s, false
	}
	f.offset = sign * (h*types.MsHour + m*types.MsMinute)
	return rest, true
}

func (f *fields) millis() (int64, bool) {
	if f.h12 {
		if f.hour > 11 {
			return 0, false
		}
		if f.pm {
			f.hour += 12
		}
	} else if f.ampm && f.pm && f.hour < 12 {
		f.hour += 12
	}
	if f.month < 1 || f.month > 12 || f.day < 1 || f.day > 31 || f.hour > 23 || f.minute > 59 || f.second > 59 {
		return 0, false
	}
	var days int64
	if f.doy > 0 {
		n := 365
		if types.DaysIn(f.year, 2) == 29 {
			n = 366
		}
		if f.doy > n {
			return 0, false
		}
		days = types.DaysFromCivil(f.year, 1, 1) + int64(f.doy-1)
	} else {
		days = types.DaysFromCivil(f.year, f.month, min(f.day, types.DaysIn(f.year, f.month)))
	}
	ms := days*types.MsDay + int64(f.hour)*types.MsHour + int64(f.minute)*types.MsMinute + int64(f.second)*types.MsSecond + f.nanos/1e6
	return ms - f.offset, true
}
