package memseg

import (
	"encoding/binary"
	"testing"
)

// TestSortBufferAllocs checks that filling, sorting and reading a reused
// sort buffer allocates a constant number of objects, whatever the number
// of records: the records live in segments that the manager recycles.
func TestSortBufferAllocs(t *testing.T) {
	for _, n := range []int{1_000, scaled(200_000, 50_000)} { // 50,000: still 40 segments
		ks := benchKeys(n)
		m := newManager(t, 1<<30, 0)
		l, _ := NewLayout(KeyCol{Type: Int64})
		s, err := NewSortBuffer(m, l)
		if err != nil {
			t.Fatal(err)
		}
		var key [9]byte
		var payload [16]byte
		run := func() {
			s.Reset()
			for i, k := range ks {
				binary.LittleEndian.PutUint64(payload[:], uint64(i))
				if err := s.Add(AppendInt64(key[:0], k, Order{}), payload[:]); err != nil {
					t.Fatal(err)
				}
			}
			s.Sort()
			for it := s.Iter(); it.Next(); {
			}
		}
		run()
		if a := testing.AllocsPerRun(3, run); a > 1 {
			t.Errorf("%d records: %v allocations per fill+sort+read", n, a)
		}
		s.Release()
	}
}

// TestHashTableAllocs is the same for a hash table reset between rounds.
func TestHashTableAllocs(t *testing.T) {
	for _, n := range []int{1_000, 100_000} {
		m := newManager(t, 1<<30, 0)
		tab := NewHashTable(m, 8)
		var key []byte
		run := func() {
			tab.Reset()
			for i := range n {
				key = AppendInt64(key[:0], int64(i), Order{})
				if _, _, err := tab.FindOrInsert(key, Hash(key)); err != nil {
					t.Fatal(err)
				}
			}
		}
		run()
		if a := testing.AllocsPerRun(3, run); a > 0 {
			t.Errorf("%d keys: %v allocations per round", n, a)
		}
		tab.Release()
	}
}
