package memseg

import "math/bits"

// minBlock is the smallest block allocBlock and Block hand out from
// mapped memory; smaller buffers come from the Go heap, where a few pages'
// faults cost little.
const minBlock = 16 << 10

// MinBlock is the smallest block Block hands out.
const MinBlock = minBlock

// allocBlock returns n bytes of zeroed memory charged to the budget, or
// ErrNoMemory: the slots of a large table. n must be a power of two of at
// least minBlock. The memory is mapped outside the Go heap, in chunks
// advised to be backed by huge pages (mapChunk), and kept on a free list
// by size when freeBlock gives it back: a table that grows, is reset and
// grows again (a window's, once per window) faults its pages in once,
// and one fault maps 2 MiB where the kernel grants huge pages. On the Go
// heap the same table faulted in every 4 KiB page afresh whenever the
// heap had grown since the last collection, and raised the collector's
// goal by its size. Like a segment, a block must not be used once its
// Manager is unreachable.
func (m *Manager) allocBlock(n int) ([]byte, error) {
	if n < minBlock || n&(n-1) != 0 {
		panic("memseg: block size is not a power of two of at least minBlock")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.used+int64(n) > m.budget {
		return nil, ErrNoMemory
	}
	m.mu.used += int64(n)
	return m.takeBlock(n), nil
}

// Block is allocBlock without the charge: n bytes of zeroed memory for an
// owner that charges the budget for them itself, as a window charges its
// groups' accumulator columns per group. A window subtask holds many
// windows open at once when its sources read far apart (a dozen or more
// at p=2 over one file), each with columns of a few thousand groups; on
// the Go heap their first writes faulted in 4 KiB pages one by one, and
// they raised the collector's goal by their size, which the garbage then
// filled with more fresh pages. Here they come from huge-page chunks, and
// the blocks of a fired window go to the next one. n must be a power of
// two of at least MinBlock; FreeBlock gives the block back.
func (m *Manager) Block(n int) []byte {
	if n < minBlock || n&(n-1) != 0 {
		panic("memseg: block size is not a power of two of at least MinBlock")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.takeBlock(n)
}

// takeBlock returns a zeroed block of n bytes from the free lists or a
// chunk; m.mu is held.
func (m *Manager) takeBlock(n int) []byte {
	class := bits.TrailingZeros(uint(n))
	if l := m.mu.blocks[class]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		m.mu.blocks[class] = l[:len(l)-1]
		m.mu.blockFree -= int64(n)
		clear(b)
		return b
	}
	if n >= hugePage {
		return m.mapBlock(n)
	}
	if len(m.mu.brest) < n {
		// The rest of the last chunk is too small: its pieces, powers of
		// two from minBlock up (every block is a multiple of minBlock,
		// a chunk a multiple of every block), go on the free lists.
		for rest := m.mu.brest; len(rest) > 0; {
			size := 1 << (bits.Len(uint(len(rest))) - 1)
			m.mu.blocks[bits.TrailingZeros(uint(size))] = append(m.mu.blocks[bits.TrailingZeros(uint(size))], rest[:size:size])
			m.mu.blockFree += int64(size)
			rest = rest[size:]
		}
		m.mu.brest = m.mapBlock(hugePage)
	}
	b := m.mu.brest[:n:n]
	m.mu.brest = m.mu.brest[n:]
	return b
}

// mapBlock maps n bytes, a huge page or more, for blocks; m.mu is held.
func (m *Manager) mapBlock(n int) []byte {
	c, ok := mapChunk(n)
	if ok {
		*m.chunks = append(*m.chunks, c)
		mapped.Add(int64(len(c)))
	}
	return c
}

// freeBlock gives back a block from allocBlock. The caller must not use
// it again. The free lists keep at most what the budget has room for
// besides the memory in use: a block beyond that keeps its place on its
// list but gives its pages back to the kernel (release).
func (m *Manager) freeBlock(b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mu.used -= int64(cap(b))
	m.putBlock(b)
}

// FreeBlock gives back a block from Block. The caller must not use it
// again.
func (m *Manager) FreeBlock(b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putBlock(b)
}

// putBlock puts block b on its free list; m.mu is held.
func (m *Manager) putBlock(b []byte) {
	n := cap(b)
	b = b[:n]
	poisonFreed(b)
	if m.mu.used+m.mu.blockFree+int64(n) > m.budget {
		release(b)
	}
	class := bits.TrailingZeros(uint(n))
	m.mu.blocks[class] = append(m.mu.blocks[class], b)
	m.mu.blockFree += int64(n)
}
