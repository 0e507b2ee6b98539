package memseg

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// Defaults of a Manager.
const (
	DefaultBudget      = 256 << 20 // memory.managed.size
	DefaultSegmentSize = 32 << 10
)

// ErrNoMemory is returned (possibly wrapped) when an allocation would pass
// a Manager's budget. It is not a failure: the caller is expected to spill
// (a sort run to disk, cold state to Pebble) and go on.
var ErrNoMemory = errors.New("memseg: managed memory budget exhausted")

// Manager hands out operator memory from a fixed budget, mostly as
// segments: byte slices of one fixed, power-of-two size. Everything that
// holds rows in memseg (sort buffers, sorters, hash tables) takes its memory
// from a Manager and gives it back, so the sum of their memory is bounded by
// the budget instead of growing the Go heap; the owner of a structure must
// Release it.
//
// Segments are cut from chunks of 2 MiB (less for a smaller budget) that
// the manager maps from the kernel outside the Go heap, backed by huge pages
// where the kernel grants them (see mapChunk). The chunks are unmapped when
// the Manager is garbage: a segment must not be used once its Manager is
// unreachable, which holds as long as whatever holds a segment holds its
// Manager too, as every structure in this package does.
//
// Freed segments go on a free list and are handed out again, so a steady
// workload allocates nothing. The free list never holds more than the
// budget; what it must give up goes back to the kernel (release). A Manager
// is safe for concurrent use.
type Manager struct {
	segSize int
	shift   uint // log2(segSize)
	budget  int64

	mu struct {
		sync.Mutex
		used int64    // bytes handed out: segments and reservations
		free [][]byte // freed segments, ready for reuse
		idle [][]byte // freed segments whose memory went back to the kernel
		rest []byte   // the part of the last chunk not yet cut into segments
		// blocks are freed blocks by log2 of their size, blockFree their
		// bytes, brest the part of the last block chunk not yet cut
		// (block.go).
		blocks    [64][][]byte
		blockFree int64
		brest     []byte
	}
	// chunks are the mapped chunks, unmapped by a cleanup when the Manager
	// is garbage; a pointer of its own, since the cleanup must not hold
	// the Manager.
	chunks *[][]byte
}

// NewManager returns a manager of budget bytes handed out in segments of
// segSize bytes; zero means the default. segSize must be a power of two
// from 64 bytes to 1 GiB, and the budget at least one segment.
func NewManager(budget int64, segSize int) (*Manager, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if segSize == 0 {
		segSize = DefaultSegmentSize
	}
	if segSize < 64 || segSize > 1<<30 || segSize&(segSize-1) != 0 {
		return nil, fmt.Errorf("memseg: segment size %d is not a power of two from 64 to 1<<30", segSize)
	}
	if budget < int64(segSize) {
		return nil, fmt.Errorf("memseg: budget %d is smaller than one segment (%d)", budget, segSize)
	}
	m := &Manager{segSize: segSize, shift: uint(bits.TrailingZeros(uint(segSize))), budget: budget, chunks: new([][]byte)}
	runtime.AddCleanup(m, unmapAll, m.chunks)
	return m, nil
}

func unmapAll(chunks *[][]byte) {
	for _, c := range *chunks {
		unmapChunk(c)
		mapped.Add(-int64(len(c)))
	}
}

// mapped is the memory of all Managers' mapped chunks, which tests watch
// go back.
var mapped atomic.Int64

// Budget is the most memory the manager hands out at once.
func (m *Manager) Budget() int64 { return m.budget }

// SegmentSize is the length of every segment.
func (m *Manager) SegmentSize() int { return m.segSize }

// Used is the memory handed out and not yet given back.
func (m *Manager) Used() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.mu.used
}

// Alloc returns a segment of SegmentSize bytes, or ErrNoMemory. Its
// contents are undefined: a reused segment keeps its previous bytes. The
// caller owns it until it passes it to Free.
func (m *Manager) Alloc() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.used+int64(m.segSize) > m.budget {
		return nil, ErrNoMemory
	}
	m.mu.used += int64(m.segSize)
	if n := len(m.mu.free); n > 0 {
		s := m.mu.free[n-1]
		m.mu.free[n-1] = nil
		m.mu.free = m.mu.free[:n-1]
		return s, nil
	}
	if n := len(m.mu.idle); n > 0 {
		s := m.mu.idle[n-1]
		m.mu.idle[n-1] = nil
		m.mu.idle = m.mu.idle[:n-1]
		return s, nil
	}
	if len(m.mu.rest) == 0 {
		c, ok := mapChunk(m.chunkSize())
		if ok {
			*m.chunks = append(*m.chunks, c)
			mapped.Add(int64(len(c)))
		}
		m.mu.rest = c
	}
	s := m.mu.rest[:m.segSize:m.segSize]
	m.mu.rest = m.mu.rest[m.segSize:]
	return s, nil
}

// chunkSize is how much memory Alloc maps at once to cut into segments: a
// huge page, or one segment if segments are larger, or the budget if that
// is smaller. Since a chunk is mapped only when every segment mapped
// before is in use, the memory mapped stays below the largest use plus a
// chunk.
func (m *Manager) chunkSize() int {
	n := min(int64(max(hugePage, m.segSize)), m.budget)
	return int(n) / m.segSize * m.segSize
}

// Free gives back a segment from Alloc. The caller must not use it again.
func (m *Manager) Free(seg []byte) {
	if cap(seg) != m.segSize {
		panic("memseg: Free of a slice that is not a segment")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mu.used -= int64(m.segSize)
	m.mu.free = append(m.mu.free, seg[:m.segSize])
}

// Reserve charges n bytes that the caller allocates itself: a value too
// large for a segment, or state kept in typed Go slices (a window's
// accumulator columns), which the budget must bound as much as segments.
// It returns ErrNoMemory if they do not fit. Every reservation is given
// back with Unreserve.
func (m *Manager) Reserve(n int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.used+int64(n) > m.budget {
		return ErrNoMemory
	}
	m.mu.used += int64(n)
	// A large reservation can only be met by the budget the free list
	// keeps, so give that memory back to the kernel. The segment stays
	// the Manager's, to be handed out again.
	for len(m.mu.free) > 0 && m.mu.used+int64(len(m.mu.free)*m.segSize) > m.budget {
		s := m.mu.free[len(m.mu.free)-1]
		release(s)
		m.mu.free[len(m.mu.free)-1] = nil
		m.mu.free = m.mu.free[:len(m.mu.free)-1]
		m.mu.idle = append(m.mu.idle, s)
	}
	return nil
}

// Unreserve gives back n bytes of a reservation.
func (m *Manager) Unreserve(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mu.used -= int64(n)
}

// allocLarge returns a buffer of n > SegmentSize bytes charged to the
// budget; freeBuf gives back either kind of buffer.
func (m *Manager) allocLarge(n int) ([]byte, error) {
	if err := m.Reserve(n); err != nil {
		return nil, err
	}
	return make([]byte, n), nil
}

// freeBuf gives back a segment or a buffer from allocLarge.
func (m *Manager) freeBuf(b []byte) {
	if cap(b) == m.segSize {
		m.Free(b)
		return
	}
	m.Unreserve(cap(b))
}
