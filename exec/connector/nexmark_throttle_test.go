package connector

import (
	"slices"
	"testing"
	"time"
)

// TestNexmarkThrottle reads with events-per-second: the same rows as an
// unthrottled read, in about the time the throttle allows, empty batches
// (when nothing is due yet) included; and a table of Flink's shape too.
func TestNexmarkThrottle(t *testing.T) {
	nexWithText = true
	defer func() { nexWithText = false }()
	kv := []string{"events.num", "2000"}
	want := nexTexts(readNex(t, nexTable("bid", kv...), 2, 64))
	start := time.Now()
	got := nexTexts(readNex(t, nexTable("bid", append(kv, "events-per-second", "8000")...), 2, 64))
	// Each split steps through the 2000 event numbers at 8000 a second.
	if el := time.Since(start); el < 200*time.Millisecond || el > 5*time.Second {
		t.Errorf("2000 events at 8000 a second took %s", el)
	}
	if !slices.Equal(got, want) {
		t.Errorf("throttled read differs (%d rows, want %d)", len(got), len(want))
	}

	all := map[string][]string{"bid": {"auction", "price", "dateTime"}, "person": {"id", "name"}}
	fkv := []string{"events.num", "1000"}
	wantF := flinkRows(t, flinkTable(all, fkv...), 50)
	gotF := flinkRows(t, flinkTable(all, append(fkv, "events-per-second", "50000")...), 50)
	for _, kind := range []string{"bid", "person"} {
		if !slices.Equal(gotF[kind], wantF[kind]) || len(wantF[kind]) == 0 {
			t.Errorf("Flink's shape, %s: throttled read differs (%d rows, want %d)", kind, len(gotF[kind]), len(wantF[kind]))
		}
	}

	if _, err := NewSource(nexTable("bid", "events-per-second", "-1")); err == nil {
		t.Error("events-per-second -1 accepted")
	}
}
