package connector

import (
	"github.com/strandsql/strand/types"
)

// Fast paths for the values files are mostly made of: plain decimals and
// timestamps without a zone. Each either gives exactly the general
// parser's result or declines (ok false), and the caller then runs the
// general parser, so they change speed, never results; fuzz tests compare
// them with strconv and with the general timestamp parser.

// pow10 holds the powers of ten that are exact in a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow10f32 holds the powers of ten that are exact in a float32.
var pow10f32 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// fastFloat parses [+-]digits[.digits] when its digits, as an integer m,
// are exact in the type (m < 2^53, or 2^24 for 32 bits) and the fraction
// has few enough digits that 10^f is exact too: m / 10^f is then one
// correctly rounded division, which is what strconv computes (Clinger's
// fast path, the one strconv itself takes first).
func fastFloat(b []byte, bits int) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var m uint64
	start := i
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		m = m*10 + uint64(d)
	}
	intDigits := i - start
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			m = m*10 + uint64(d)
		}
		frac = i - fs
		if frac == 0 {
			return 0, false
		}
	}
	// 15 digits keep m below 10^15 < 2^53 without an overflow check.
	if i != len(b) || intDigits == 0 || intDigits+frac > 15 {
		return 0, false
	}
	var v float64
	if bits == 32 {
		if m >= 1<<24 || frac >= len(pow10f32) {
			return 0, false
		}
		v = float64(float32(m) / pow10f32[frac])
	} else {
		v = float64(m) / pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// dayCache remembers the last date a timestamp column parsed: rows of a
// file are mostly of the same day, so its validation and calendar
// arithmetic are done once per day rather than once per row.
type dayCache struct {
	date [10]byte
	ms   int64 // the date's midnight
	set  bool
}

// fastTimestamp parses "yyyy-MM-dd HH:mm:ss[.fraction]" (' ' or 'T', no
// zone), as types.ParseTimestamp does.
func (dc *dayCache) fastTimestamp(b []byte) (int64, bool) {
	n := len(b)
	if n < 19 || n == 20 || b[10] != ' ' && b[10] != 'T' || b[13] != ':' || b[16] != ':' || n > 19 && b[19] != '.' {
		return 0, false
	}
	if !dc.set || string(dc.date[:]) != string(b[:10]) {
		ms, ok := types.ParseTimestamp(string(b[:10]))
		if !ok {
			return 0, false
		}
		copy(dc.date[:], b[:10])
		dc.ms, dc.set = ms, true
	}
	h, ok1 := twoDigits(b[11:13])
	mi, ok2 := twoDigits(b[14:16])
	s, ok3 := twoDigits(b[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	ms := 0
	if n > 19 {
		for k, c := range b[20:] {
			d := c - '0'
			if d > 9 {
				return 0, false
			}
			if k < 3 {
				ms = ms*10 + int(d)
			}
		}
		for k := n - 20; k < 3; k++ {
			ms *= 10
		}
	}
	return dc.ms + int64(h)*types.MsHour + int64(mi)*types.MsMinute + int64(s)*types.MsSecond + int64(ms), true
}
