package memseg

import (
	"errors"
	"sync"
	"testing"
)

func newManager(t testing.TB, budget int64, segSize int) *Manager {
	t.Helper()
	m, err := NewManager(budget, segSize)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestManagerBudget(t *testing.T) {
	m := newManager(t, 4<<10, 1<<10)
	if m.Budget() != 4<<10 || m.SegmentSize() != 1<<10 {
		t.Fatalf("budget %d, segment %d", m.Budget(), m.SegmentSize())
	}
	var segs [][]byte
	for range 4 {
		s, err := m.Alloc()
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != 1<<10 {
			t.Fatalf("segment of %d bytes", len(s))
		}
		segs = append(segs, s)
	}
	if _, err := m.Alloc(); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("Alloc past the budget: %v", err)
	}
	if m.Used() != 4<<10 {
		t.Fatalf("Used = %d", m.Used())
	}
	m.Free(segs[3])
	s, err := m.Alloc()
	if err != nil {
		t.Fatal(err)
	}
	if &s[0] != &segs[3][0] {
		t.Error("a freed segment was not reused")
	}
	m.Free(s)
	if err := m.Reserve(2 << 10); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("reserve past the budget: %v", err)
	}
	if err := m.Reserve(1 << 10); err != nil {
		t.Fatal(err)
	}
	m.Unreserve(1 << 10)
	for _, s := range segs[:3] {
		m.Free(s)
	}
	if m.Used() != 0 {
		t.Fatalf("Used = %d after freeing everything", m.Used())
	}
}

func TestManagerConfig(t *testing.T) {
	m := newManager(t, 0, 0)
	if m.Budget() != DefaultBudget || m.SegmentSize() != DefaultSegmentSize {
		t.Errorf("defaults: %d, %d", m.Budget(), m.SegmentSize())
	}
	for _, c := range []struct {
		budget int64
		seg    int
	}{{1 << 20, 1000}, {1 << 20, 32}, {100, 1 << 10}, {1 << 40, 1 << 31}} {
		if _, err := NewManager(c.budget, c.seg); err == nil {
			t.Errorf("NewManager(%d, %d) accepted", c.budget, c.seg)
		}
	}
}

func TestManagerConcurrent(t *testing.T) {
	m := newManager(t, 64<<10, 1<<10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var held [][]byte
			for i := range 2000 {
				if (i+g)%3 != 0 {
					if s, err := m.Alloc(); err == nil {
						s[0] = byte(g)
						held = append(held, s)
					}
				} else if len(held) > 0 {
					m.Free(held[len(held)-1])
					held = held[:len(held)-1]
				}
				if u := m.Used(); u > m.Budget() {
					t.Errorf("Used %d over budget", u)
				}
			}
			for _, s := range held {
				m.Free(s)
			}
		}()
	}
	wg.Wait()
	if m.Used() != 0 {
		t.Fatalf("Used = %d", m.Used())
	}
}
