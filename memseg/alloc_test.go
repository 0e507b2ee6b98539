package memseg

import (
	"encoding/binary"
	"testing"
)

func TestSortBufferAllocs(t *testing.T) {
	ks := benchKeys(200_000)
	m := newManager(t, 1<<30, 0)
	l, _ := NewLayout(KeyCol{Type: Int64})
	s, _ := NewSortBuffer(m, l)
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
	if n := testing.AllocsPerRun(3, run); n > 1 {
		t.Errorf("%v allocations per sort", n)
	}
}
