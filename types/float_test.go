package types

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// javaFloat lays out strconv's shortest digits as Java's Double.toString
// does, digit by digit: the reference AppendFloat's two layouts are
// checked against.
func javaFloat(f float64, bits int) string {
	e := strconv.FormatFloat(f, 'e', -1, bits)
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.ReplaceAll(mant, ".", "")
	if abs := math.Abs(f); abs < 1e-3 || abs >= 1e7 {
		rest := digits[1:]
		if rest == "" {
			rest = "0"
		}
		return sign + digits[:1] + "." + rest + "E" + strconv.Itoa(exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	for len(digits) <= exp {
		digits += "0"
	}
	frac := digits[exp+1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:exp+1] + "." + frac
}

func TestAppendFloatLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 200_000 {
		f := math.Float64frombits(r.Uint64())
		if r.IntN(2) == 0 {
			f = float64(r.Int64N(1e12)) / math.Pow10(r.IntN(12))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
			continue
		}
		for _, bits := range []int{32, 64} {
			g := f
			if bits == 32 {
				g = float64(float32(f))
				if math.IsInf(g, 0) || g == 0 {
					continue
				}
			}
			if got, want := FormatFloat(g, bits), javaFloat(g, bits); got != want {
				t.Fatalf("FormatFloat(%v, %d) = %s, want %s", g, bits, got, want)
			}
		}
	}
}

func TestAppendFewDecimals(t *testing.T) {
	for s, want := range map[float64]string{1.5: "1.5", -0.07: "-0.07", 123.456: "123.456", 9999999: "9999999.0", 0.001: "0.001", 12.3: "12.3", 100.1: "100.1"} {
		got, ok := appendFewDecimals(nil, s)
		if !ok || string(got) != want {
			t.Errorf("appendFewDecimals(%v) = %s, %v; want %s", s, got, ok, want)
		}
	}
	a, b := 0.1, 0.2 // variables: a constant 0.1+0.2 would be exactly 0.3
	if got, ok := appendFewDecimals(nil, a+b); ok {
		t.Errorf("0.1+0.2 took the fast path: %s", got)
	}
}
