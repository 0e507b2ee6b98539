package state

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
)

func TestTTLStamp(t *testing.T) {
	on := TTL{Millis: 10}
	for _, at := range []int64{0, 1, -1, 1704067200000, math.MinInt64 + 1, math.MaxInt64} {
		v := append(on.Stamp(nil, at), "val"...)
		got, stamped, rest, err := Split(v)
		if err != nil || !stamped || got != at || string(rest) != "val" {
			t.Fatalf("Split(Stamp(%d)) = %d %t %q %v", at, got, stamped, rest, err)
		}
	}
	off := append(TTL{}.Stamp(nil, 5), "v"...)
	if !bytes.Equal(off, []byte{0, 'v'}) {
		t.Fatalf("a stamp without a TTL is %x, want one zero byte", off)
	}
	if _, _, _, err := Split(nil); !errors.Is(err, memseg.ErrCorrupt) {
		t.Fatalf("Split(nil): %v", err)
	}
}

// TestTTLRead checks NeverReturnExpired: an entry written at t is live
// before t + ttl and expired from then on; one written without a TTL is
// live under one, and every entry is live without a TTL.
func TestTTLRead(t *testing.T) {
	on := TTL{Millis: 10}
	v := on.Stamp(nil, 100)
	for now, want := range map[int64]bool{50: true, 100: true, 109: true, 110: false, 1000: false} {
		if _, at, live, err := on.Read(v, now); err != nil || live != want || at != 100 {
			t.Errorf("Read at %d: at %d live %t %v, want live %t", now, at, live, err, want)
		}
		if _, _, live, _ := (TTL{}).Read(v, now); !live {
			t.Errorf("without a TTL an entry is live at %d", now)
		}
	}
	if _, _, live, _ := on.Read(v, math.MinInt64); !live {
		t.Error("an entry expired at the earliest time")
	}
	if _, at, live, _ := on.Read(TTL{}.Stamp(nil, 0), 500); !live || at != 500 {
		t.Errorf("an unstamped entry under a TTL: at %d live %t", at, live)
	}
}

// TestSweeper checks that sweeps go round the key groups one at a time,
// delete the expired entries only, and stamp the unstamped ones.
func TestSweeper(t *testing.T) {
	s, err := Open(vfs.NewMem(), "db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ttl := TTL{Millis: 10}
	w := s.NewIndexedBatch()
	for kg := uint16(2); kg <= 4; kg++ {
		w.Set("op", kg, "rows", []byte("old"), append(ttl.Stamp(nil, 0), 'o'))
		w.Set("op", kg, "rows", []byte("new"), append(ttl.Stamp(nil, 95), 'n'))
		w.Set("op", kg, "rows", []byte("bare"), append(TTL{}.Stamp(nil, 0), 'b'))
		w.Set("op", kg, "other", []byte("old"), append(ttl.Stamp(nil, 0), 'x'))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	sw := &Sweeper{UID: "op", Lo: 2, Hi: 4, Names: []string{"rows"}}
	for i := range 3 {
		n, err := sw.Sweep(ttl, w, 100)
		if err != nil || n != 1 {
			t.Fatalf("sweep %d deleted %d, %v; want 1", i, n, err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, s, "op", 0, 10, "")
	want := []string{}
	for kg := 2; kg <= 4; kg++ {
		k := uint16(kg)
		want = append(want,
			entry{"op", k, "rows", "new", string(append(ttl.Stamp(nil, 95), 'n'))}.String(),
			entry{"op", k, "rows", "bare", string(append(ttl.Stamp(nil, 100), 'b'))}.String(),
			entry{"op", k, "other", "old", string(append(ttl.Stamp(nil, 0), 'x'))}.String())
	}
	if len(got) != len(want) {
		t.Fatalf("after sweeps:\n%v\nwant\n%v", got, want)
	}
	for _, g := range got {
		found := false
		for _, x := range want {
			found = found || g == x
		}
		if !found {
			t.Errorf("unexpected %s", g)
		}
	}
	// Without a TTL a sweep does nothing.
	if n, err := sw.Sweep(TTL{}, w, 1<<40); n != 0 || err != nil {
		t.Fatalf("sweep without a TTL: %d %v", n, err)
	}
}

// TestTTLReadPair checks that a pair lives only while each row is live
// at the other's time, whichever came first.
func TestTTLReadPair(t *testing.T) {
	on := TTL{Millis: 10}
	v := on.Stamp(nil, 100)
	for now, want := range map[int64]bool{89: false, 90: false, 91: true, 100: true, 109: true, 110: false} {
		if _, _, live, err := on.ReadPair(v, now, on); err != nil || live != want {
			t.Errorf("ReadPair at %d: live %t %v, want %t", now, live, err, want)
		}
	}
	// The earlier row's TTL decides: an entry at 100 under 10 pairs with
	// a row at 50 whose own TTL is 60, not with one whose TTL is 50.
	if _, _, live, _ := on.ReadPair(v, 50, TTL{Millis: 60}); !live {
		t.Error("a row at 50 living 60 does not pair with an entry at 100")
	}
	if _, _, live, _ := on.ReadPair(v, 50, TTL{Millis: 50}); live {
		t.Error("a row at 50 living 50 pairs with an entry at 100")
	}
}
