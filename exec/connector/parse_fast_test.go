package connector

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/strandsql/strand/types"
)

func checkFloat(t *testing.T, s string) {
	for _, bits := range []int{32, 64} {
		v, ok := fastFloat([]byte(s), bits)
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(s, bits)
		if err != nil {
			t.Fatalf("fastFloat(%q, %d) = %v, strconv fails: %v", s, bits, v, err)
		}
		if math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("fastFloat(%q, %d) = %v (%x), strconv %v (%x)", s, bits, v, math.Float64bits(v), want, math.Float64bits(want))
		}
		if w, _ := parseFloat([]byte(s), bits); math.Float64bits(w) != math.Float64bits(v) {
			t.Fatalf("fastFloat(%q, %d) = %v, parseFloat %v", s, bits, v, w)
		}
	}
}

// TestFastFloat compares the fast path with strconv bit for bit on
// decimals of every length it takes, and checks it declines the rest.
func TestFastFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200_000 {
		digits := r.IntN(17) + 1
		m := r.Uint64() % uint64(math.Pow10(min(digits, 19)))
		s := strconv.FormatUint(m, 10)
		if f := r.IntN(len(s) + 1); f > 0 && f < len(s) {
			s = s[:len(s)-f] + "." + s[len(s)-f:]
		}
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		checkFloat(t, s)
	}
	for _, s := range []string{"0", "-0", "+0.5", "1.5", "0.1", "0.3", "123456789012345", "1234567890.12345",
		"9007199254740993", "16777217", "0.000000000000001", "1e5", "1.", ".5", "-", "", "1.2.3", "0x10", "1_0", "NaN", "Infinity"} {
		checkFloat(t, s)
	}
	if v, ok := fastFloat([]byte("-0"), 64); !ok || !math.Signbit(v) {
		t.Errorf("-0: %v %v, want negative zero", v, ok)
	}
	for _, s := range []string{"1e5", "1.", ".5", "1234567890123456", "0x10", "NaN", ""} {
		if _, ok := fastFloat([]byte(s), 64); ok {
			t.Errorf("fastFloat(%q) took a form it should leave to strconv", s)
		}
	}
}

func FuzzFloatFast(f *testing.F) {
	for _, s := range []string{"1.5", "-0.25", "123456.789", "16777217", "0.1", "9999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkFloat(t, s) })
}

func checkTimestamp(t *testing.T, dc *dayCache, s string) {
	v, ok := dc.fastTimestamp([]byte(s))
	if !ok {
		return
	}
	want, wok := parseTimestamp([]byte(s))
	if !wok || v != want {
		t.Fatalf("fastTimestamp(%q) = %d, the general parser %d, %v", s, v, want, wok)
	}
}

// TestFastTimestamp compares the fast path with the general parser on
// valid and broken timestamps, the day cache warm and cold.
func TestFastTimestamp(t *testing.T) {
	var dc dayCache
	for _, s := range []string{"2024-01-01 00:00:00", "2024-01-01 23:59:59.999", "2024-01-01T12:00:00.5", "2024-01-01 12:00:00.123456789",
		"2024-02-29 00:00:00", "2023-02-29 00:00:00", "2024-01-01 24:00:00", "2024-01-01 00:60:00", "2024-01-01 00:00:60",
		"2024-01-01 00:00:00.", "2024-01-01 00:00:00.1x", "2024-01-01 0:00:00", "2024-01-01X00:00:00", "2024-13-01 00:00:00",
		"0001-01-01 00:00:00", "9999-12-31 23:59:59.999", "2024-01-01 00:00:00Z", "2024-01-01 00:00:00+01:00"} {
		checkTimestamp(t, &dc, s)
		checkTimestamp(t, &dayCache{}, s)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 100_000 {
		ms := r.Int64N(400*365*86_400_000) - 100*365*86_400_000
		s := types.FormatTimestamp(ms)
		v, ok := dc.fastTimestamp([]byte(s))
		if !ok || v != ms {
			t.Fatalf("fastTimestamp(%q) = %d, %v; want %d", s, v, ok, ms)
		}
	}
	if _, ok := dc.fastTimestamp([]byte("2024-01-01 00:00:00Z")); ok {
		t.Error("a zoned timestamp took the fast path")
	}
}

func FuzzTimestampFast(f *testing.F) {
	for _, s := range []string{"2024-01-01 00:00:00", "2024-01-01T23:59:59.999", "2024-02-29 10:00:00.1", "1999-12-31 00:00:00.123456"} {
		f.Add(s, "2024-01-01 00:00:00")
	}
	f.Fuzz(func(t *testing.T, s, warm string) {
		var dc dayCache
		dc.fastTimestamp([]byte(warm))
		checkTimestamp(t, &dc, s)
	})
}
