package main

import (
	"testing"
	"time"
)

func TestBytesText(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 31_900: "31.2 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := bytesText(n); got != want {
			t.Errorf("%d: %s, want %s", n, got, want)
		}
	}
}

// TestRate: rows per second over about the last second, restarted for a
// new job.
func TestRate(t *testing.T) {
	var r rate
	t0 := time.Unix(0, 0)
	if got := r.add("a", 100, t0); got != 0 {
		t.Errorf("first sample: %v", got)
	}
	for i := 1; i <= 8; i++ { // 1000 rows per 250 ms
		r.add("a", 100+int64(i)*1000, t0.Add(time.Duration(i)*250*time.Millisecond))
	}
	if got := r.add("a", 9100, t0.Add(2250*time.Millisecond)); got != 4000 {
		t.Errorf("steady: %v rows/s, want 4000", got)
	}
	if got := r.add("b", 50, t0.Add(3*time.Second)); got != 0 {
		t.Errorf("new job: %v", got)
	}
}
