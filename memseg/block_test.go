package memseg

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"
)

// TestBlocksReused: blocks are distinct, zeroed, charged to the budget,
// and once freed handed out again (zeroed again) without mapping more;
// the rest of a chunk too small for a block goes to the smaller sizes.
func TestBlocksReused(t *testing.T) {
	m := newManager(t, 16<<20, 32<<10)
	var blocks [][]byte
	seen := map[uintptr]bool{}
	const u = 64 << 10 // sizes whose sum takes two chunks and a huge page
	for _, n := range []int{u, 4 * u, 16 * u, 16 * u, 16 * u, hugePage, 2 * u} {
		b, err := m.allocBlock(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != n {
			t.Fatalf("block of %d bytes for %d", len(b), n)
		}
		if p := uintptr(unsafe.Pointer(&b[0])); seen[p] {
			t.Fatalf("block at %#x handed out twice", p)
		} else {
			seen[p] = true
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("fresh block of %d bytes not zeroed at %d", n, i)
			}
			b[i] = 0xff
		}
		blocks = append(blocks, b)
	}
	if used, want := m.Used(), int64(u*(1+4+48+2)+hugePage); used != want {
		t.Fatalf("%d bytes used, want %d", used, want)
	}
	for i, b := range blocks {
		for j := range b {
			if b[j] != 0xff {
				t.Fatalf("block %d byte %d changed: blocks overlap", i, j)
			}
		}
	}
	chunks := len(*m.chunks)
	for _, b := range blocks {
		m.freeBlock(b)
	}
	if m.Used() != 0 {
		t.Fatalf("%d bytes used after every block was freed", m.Used())
	}
	for _, b0 := range blocks {
		b, err := m.allocBlock(len(b0))
		if err != nil {
			t.Fatal(err)
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("reused block of %d bytes not zeroed at %d", len(b), i)
			}
		}
	}
	if len(*m.chunks) != chunks {
		t.Fatalf("reusing freed blocks mapped %d more chunks", len(*m.chunks)-chunks)
	}
	if runtime.GOOS == "linux" && chunks != 3 {
		t.Fatalf("%d chunks mapped, want 3: two cut into blocks, one block of a huge page", chunks)
	}
}

// TestBlocksBudget: a block past the budget is refused, and what the free
// lists keep beyond the budget's room goes back to the kernel (zeroed when
// handed out again).
func TestBlocksBudget(t *testing.T) {
	m := newManager(t, 8*minBlock, 32<<10)
	b, err := m.allocBlock(8 * minBlock)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.allocBlock(minBlock); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("a block past the budget: %v, want ErrNoMemory", err)
	}
	m.freeBlock(b)
	if err := m.Reserve(8 * minBlock); err != nil {
		t.Fatal(err)
	}
	if _, err := m.allocBlock(minBlock); !errors.Is(err, ErrNoMemory) {
		t.Fatalf("a block with the budget reserved: %v, want ErrNoMemory", err)
	}
	m.Unreserve(8 * minBlock)
}

// TestIntTableInBlocks: a table large enough takes its slots from a block
// and gives them back on Reset, and the next table of that size reuses
// them.
func TestIntTableInBlocks(t *testing.T) {
	m := newManager(t, 16<<20, 32<<10)
	tb := NewIntTable(m)
	const n = 10000
	for k := range uint64(n) {
		if _, _, err := tb.Insert(k, uint64(HashInt64(int64(k))), uint32(k)); err != nil {
			t.Fatal(err)
		}
	}
	if tb.Bytes() < minBlock {
		t.Fatalf("table of %d bytes: too small for the test", tb.Bytes())
	}
	for k := range uint64(n) {
		if v, ok := tb.Find(k, HashInt64(int64(k))); !ok || v != uint32(k) {
			t.Fatalf("key %d: %d %v", k, v, ok)
		}
	}
	if m.Used() != int64(tb.Bytes()) {
		t.Fatalf("%d bytes used by a table of %d", m.Used(), tb.Bytes())
	}
	chunks := len(*m.chunks)
	tb.Reset()
	if m.Used() != 0 {
		t.Fatalf("%d bytes used after Reset", m.Used())
	}
	for k := range uint64(n) {
		if _, _, err := tb.Insert(k+n, HashInt64(int64(k+n)), uint32(k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := tb.Find(1, HashInt64(1)); ok {
		t.Fatal("a key from before Reset found")
	}
	if len(*m.chunks) != chunks {
		t.Fatalf("the table after Reset mapped %d more chunks", len(*m.chunks)-chunks)
	}
	tb.Release()
	if m.Used() != 0 {
		t.Fatalf("%d bytes used after Release", m.Used())
	}
}

// TestBlocksUncharged: Block hands out zeroed blocks without charging the
// budget, even past it, and a block given back by FreeBlock is handed out
// again, zeroed, without mapping more.
func TestBlocksUncharged(t *testing.T) {
	m := newManager(t, 4*MinBlock, 32<<10)
	var blocks [][]byte
	for _, n := range []int{MinBlock, 2 * MinBlock, 8 * MinBlock} {
		b := m.Block(n)
		if len(b) != n {
			t.Fatalf("block of %d bytes for %d", len(b), n)
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("fresh block of %d bytes not zeroed at %d", n, i)
			}
			b[i] = 0xff
		}
		blocks = append(blocks, b)
	}
	if m.Used() != 0 {
		t.Fatalf("%d bytes used by uncharged blocks", m.Used())
	}
	chunks := len(*m.chunks)
	for _, b := range blocks {
		m.FreeBlock(b)
	}
	for _, b0 := range blocks {
		b := m.Block(len(b0))
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("reused block of %d bytes not zeroed at %d", len(b), i)
			}
		}
	}
	if len(*m.chunks) != chunks || m.Used() != 0 {
		t.Fatalf("reuse mapped %d more chunks, %d bytes used", len(*m.chunks)-chunks, m.Used())
	}
}

// TestFreedBlockPoisoned checks that in the poison debug mode a block
// given back holds garbage, so that an owner reading it after FreeBlock
// does not read the zeros or values it left, and that the block comes
// back zeroed.
func TestFreedBlockPoisoned(t *testing.T) {
	defer poison.Store(poison.Swap(true))
	m := newManager(t, 16<<20, 32<<10)
	b := m.Block(MinBlock)
	b[0] = 1
	m.FreeBlock(b)
	zeros := 0
	for _, c := range b {
		if c == 0 {
			zeros++
		}
	}
	if zeros > len(b)/128 || b[0] == 1 {
		t.Fatalf("freed block under poison: %d zero bytes of %d, first byte %d: not poisoned", zeros, len(b), b[0])
	}
	b = m.Block(MinBlock)
	for i, c := range b {
		if c != 0 {
			t.Fatalf("block handed out again not zeroed at %d", i)
		}
	}
}
