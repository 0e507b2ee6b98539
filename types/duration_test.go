package types

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"2s": 2 * time.Second, "10 s": 10 * time.Second, "1 min": time.Minute, "500ms": 500 * time.Millisecond,
		"1h": time.Hour, "1m30s": 90 * time.Second, "250": 250 * time.Millisecond, "1.5 s": 1500 * time.Millisecond,
	} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "1 parsec"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}
