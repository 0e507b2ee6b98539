package memseg

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"testing"
)

// TestSorterEightTimesBudget sorts 128 MiB of records with a 16 MiB budget
// (32 MiB with 4 MiB under the race detector: still eight times, in as many
// runs). It checks the order, that every record comes out once (by count and an
// order-independent sum of record hashes), that the manager never hands
// out more than the budget, that the Go heap stays within the budget plus
// a small constant, and that the run files are gone.
func TestSorterEightTimesBudget(t *testing.T) {
	const valueLen = 100
	budget, total := 16<<20, 128<<20
	if raceEnabled {
		budget, total = 4<<20, 32<<20
	}
	keyLen := len(AppendInt64(nil, 0, Order{}))
	n := total / (keyLen + valueLen)
	m := newManager(t, int64(budget), 0)
	l, err := NewLayout(KeyCol{Type: Int64, Order: Order{Desc: true}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := NewSorter(m, l, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peakHeap uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapAlloc-min(ms.HeapAlloc, base))
		if u := m.Used(); u > int64(budget) {
			t.Fatalf("manager hands out %d bytes, budget %d", u, budget)
		}
	}

	var key []byte
	value := make([]byte, valueLen)
	var sum uint64
	x := uint64(1)
	for i := range n {
		x ^= x << 13 // xorshift: a permutation of keys, no reference kept
		x ^= x >> 7
		x ^= x << 17
		key = AppendInt64(key[:0], int64(x%uint64(n/2)), l.cols[0].Order)
		binary.LittleEndian.PutUint64(value, uint64(i))
		sum += Hash(key) ^ Hash(value)
		if err := s.Add(key, value); err != nil {
			t.Fatal(err)
		}
		if i%(n/10) == 0 {
			sample()
		}
	}
	if s.Runs() < 8 {
		t.Fatalf("%d runs for 8x the budget", s.Runs())
	}
	it, err := s.Iter()
	if err != nil {
		t.Fatal(err)
	}
	var prev []byte
	got := 0
	for it.Next() {
		if bytes.Compare(prev, it.Key()) > 0 {
			t.Fatalf("record %d out of order", got)
		}
		prev = append(prev[:0], it.Key()...)
		sum -= Hash(it.Key()) ^ Hash(it.Value())
		got++
		if got%(n/10) == 0 {
			sample()
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if got != n || sum != 0 {
		t.Fatalf("%d of %d records came out (hash sum off by %d)", got, n, sum)
	}
	// The manager's free list and the GC's lag sit on top of the budget.
	if peakHeap > uint64(budget)+16<<20 {
		t.Errorf("heap grew by %d MiB for a %d MiB budget", peakHeap>>20, budget>>20)
	}
	t.Logf("%d records, %d runs, heap growth at most %d MiB", n, s.Runs(), peakHeap>>20)
	s.Close()
	if m.Used() != 0 {
		t.Fatalf("Used = %d after Close", m.Used())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d files left", len(ents))
	}
}
