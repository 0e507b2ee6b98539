package types

import (
	"math"
	"strconv"
	"strings"
)

// ParseMemorySize reads Flink's memory-size syntax: a number and an
// optional unit (b, k/kb, m/mb, g/gb, t/tb, or the *bytes/*ibibytes
// spellings), case-insensitive; units are powers of 1024 as in Flink.
func ParseMemorySize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	var shift uint
	switch strings.ToLower(strings.TrimSpace(s[i:])) {
	case "", "b", "bytes":
	case "k", "kb", "kibibytes":
		shift = 10
	case "m", "mb", "mebibytes":
		shift = 20
	case "g", "gb", "gibibytes":
		shift = 30
	case "t", "tb", "tebibytes":
		shift = 40
	default:
		return 0, false
	}
	if n > math.MaxInt64>>shift {
		return 0, false
	}
	return n << shift, true
}
