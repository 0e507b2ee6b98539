package memseg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// An index is an array of fixed-size entries, a key prefix followed by a
// 7-byte little-endian pointer, spread over segments: the key+pointer array
// of Flink's sort buffers. Sorting moves only entries; the records they
// point to stay where they are. The pointer has 7 bytes so that the entry
// of a BIGINT key (9 prefix bytes) is two machine words.
type index struct {
	m      *Manager
	layout *Layout // nil: raw prefixes of rawWidth key bytes
	psize  int     // prefix bytes, at least 1
	esize  int     // entry bytes: psize + 7
	per    int     // entries per segment
	magic  uint64  // ceil(2^64 / per): i/per is the high word of magic*i
	exact  bool    // prefixes never truncate, so equal prefixes are equal keys
	key    func(ptr uint64) []byte

	segs [][]byte
	n    int // entries
	cur  int // segment the next entry goes in
	fill int // entries in segs[cur]
	tmp  []byte
	tmp2 []byte
}

// Pointer flags. The other bits of a pointer belong to the index's owner.
const (
	truncBit = 1 << 55 // the prefix was truncated: ties need the full keys
	ptrMask  = truncBit - 1
)

// maxEntries bounds an index: the division by magic is exact for 32-bit
// entry numbers.
const maxEntries = 1<<32 - 1

// smallSort is the size of range that insertion sort beats another radix
// pass on.
const smallSort = 48

// rawWidth is how many key bytes a prefix keeps without a Layout: the key
// is then taken as one Bytes column of this width.
const rawWidth = 15

// init prepares an index of the prefixes of layout (nil for raw ones);
// key returns the full key of a record, by pointer without flags.
func (x *index) init(m *Manager, layout *Layout, key func(uint64) []byte) error {
	x.m, x.layout, x.key = m, layout, key
	x.psize, x.exact = rawWidth+1, false
	if layout != nil {
		x.psize, x.exact = layout.Size(), layout.exact
	}
	x.esize = x.psize + 7
	x.per = m.segSize / x.esize
	if x.per < 2 {
		return fmt.Errorf("memseg: key prefix of %d bytes does not fit segments of %d", x.psize, m.segSize)
	}
	x.magic = ^uint64(0)/uint64(x.per) + 1
	x.tmp = make([]byte, x.esize)
	x.tmp2 = make([]byte, x.esize)
	return nil
}

// slot returns the space of the next entry without adding it, allocating
// an index segment if needed.
func (x *index) slot() ([]byte, error) {
	if x.n == maxEntries {
		return nil, ErrNoMemory
	}
	if x.fill == x.per {
		x.cur++
		x.fill = 0
	}
	if x.cur == len(x.segs) {
		s, err := x.m.Alloc()
		if err != nil {
			return nil, err
		}
		x.segs = append(x.segs, s)
	}
	o := x.fill * x.esize
	return x.segs[x.cur][o : o+x.esize : o+x.esize], nil
}

// prefix writes the prefix of key into e, an entry from slot, and reports
// whether it was truncated.
func (x *index) prefix(e, key []byte) (truncated bool, err error) {
	if x.layout != nil {
		return x.layout.Prefix(e[:x.psize], key)
	}
	return rawPrefix(e[:x.psize], key), nil
}

// rawPrefix writes the first len(dst)-1 bytes of key, zero padded, and
// then min(len(key), len(dst)): the encoding of Layout's String columns,
// which orders like bytes.Compare on whole keys.
func rawPrefix(dst, key []byte) (truncated bool) {
	w := len(dst) - 1
	n := copy(dst[:w], key)
	clear(dst[n:w])
	dst[w] = byte(min(len(key), w+1))
	return len(key) > w
}

// push adds e, the entry from slot with its prefix, pointing at p.
func (x *index) push(e []byte, p uint64, truncated bool) {
	if truncated {
		p |= truncBit
	}
	x.setPtr(e, p)
	x.fill++
	x.n++
}

// at returns entry i.
func (x *index) at(i int) []byte {
	q, _ := bits.Mul64(x.magic, uint64(i))
	o := (i - int(q)*x.per) * x.esize
	return x.segs[q][o : o+x.esize : o+x.esize]
}

// ptr returns the pointer of entry i, without flags.
func (x *index) ptr(i int) uint64 { return x.word(x.at(i)) & ptrMask }

// word returns the pointer of entry e, with flags.
func (x *index) word(e []byte) uint64 {
	return binary.LittleEndian.Uint64(e[x.esize-8:]) >> 8
}

// setPtr sets the pointer of entry e, which must have its prefix.
func (x *index) setPtr(e []byte, p uint64) {
	w := e[x.esize-8:]
	binary.LittleEndian.PutUint64(w, p<<8|uint64(w[0]))
}

// move copies entry src to dst, a word at a time: entries are short, and a
// call to memmove costs more than the copy.
func move(dst, src []byte) {
	n := len(src)
	dst = dst[:n]
	for k := 0; k+8 <= n; k += 8 {
		binary.LittleEndian.PutUint64(dst[k:], binary.LittleEndian.Uint64(src[k:]))
	}
	binary.LittleEndian.PutUint64(dst[n-8:], binary.LittleEndian.Uint64(src[n-8:]))
}

// reset empties the index, keeping its segments.
func (x *index) reset() {
	x.n, x.cur, x.fill = 0, 0, 0
}

// release gives the segments back.
func (x *index) release() {
	for i, s := range x.segs {
		x.m.Free(s)
		x.segs[i] = nil
	}
	x.segs = x.segs[:0]
	x.reset()
}

// cmp compares entries a and b whose prefixes agree before byte d.
func (x *index) cmp(a, b []byte, d int) int {
	if c := bytes.Compare(a[d:x.psize], b[d:x.psize]); c != 0 || x.exact {
		return c
	}
	pa := x.word(a)
	if pa&truncBit == 0 {
		// Equal prefixes truncate alike, and untruncated they are the keys.
		return 0
	}
	pb := x.word(b)
	return bytes.Compare(x.key(pa&ptrMask), x.key(pb&ptrMask))
}

// sort sorts the entries by prefix, then by full key where prefixes were
// truncated. It is an MSD radix sort (American flag sort) on the prefix
// bytes, in place, falling back to insertion sort on small ranges and to
// heapsort on runs of equal truncated prefixes. Radix beats quicksort here:
// with 256 buckets per byte, an 8-byte key needs about log256(n) passes of
// sequential counting and one permutation each, against log2(n) passes of
// comparisons for quicksort (measured in doc.go).
func (x *index) sort() { x.radix(0, x.n, 0) }

func (x *index) radix(lo, hi, d int) {
	for hi-lo > smallSort && d < x.psize {
		var count [256]int
		x.histogram(&count, lo, hi, d)
		if count[x.at(lo)[d]] == hi-lo {
			d++ // one bucket: nothing to move at this byte
			continue
		}
		var head, tail [256]int
		o := lo
		for c, n := range count {
			head[c] = o
			o += n
			tail[c] = o
		}
		for c := range 256 {
			for head[c] < tail[c] {
				e := x.at(head[c])
				b := int(e[d])
				if b == c {
					head[c]++
					continue
				}
				// Follow the cycle that starts at e: carry an entry in
				// tmp to its bucket's head and pick up the one there.
				move(x.tmp, e)
				for b != c {
					dst := x.at(head[b])
					head[b]++
					move(x.tmp2, dst)
					move(dst, x.tmp)
					x.tmp, x.tmp2 = x.tmp2, x.tmp
					b = int(x.tmp[d])
				}
				move(e, x.tmp)
				head[c]++
			}
		}
		o = lo
		for _, n := range count {
			if n > 1 {
				x.radix(o, o+n, d+1)
			}
			o += n
		}
		return
	}
	switch {
	case hi-lo <= 1:
	case hi-lo <= smallSort:
		x.insertion(lo, hi, d)
	case !x.exact:
		x.heapsort(lo, hi)
	}
}

// histogram counts byte d of entries lo..hi-1, walking their segments
// directly: this pass reads every entry of the range once per radix level.
func (x *index) histogram(count *[256]int, lo, hi, d int) {
	q, _ := bits.Mul64(x.magic, uint64(lo))
	r := lo - int(q)*x.per
	for n := hi - lo; n > 0; q++ {
		k := min(x.per-r, n)
		seg := x.segs[q][r*x.esize+d : (r+k-1)*x.esize+d+1]
		for o := 0; o < len(seg); o += x.esize {
			count[seg[o]]++
		}
		n -= k
		r = 0
	}
}

func (x *index) insertion(lo, hi, d int) {
	for i := lo + 1; i < hi; i++ {
		if x.cmp(x.at(i), x.at(i-1), d) >= 0 {
			continue
		}
		move(x.tmp, x.at(i))
		j := i
		for ; j > lo && x.cmp(x.tmp, x.at(j-1), d) < 0; j-- {
			move(x.at(j), x.at(j-1))
		}
		move(x.at(j), x.tmp)
	}
}

// heapsort sorts a range of entries with equal prefixes by full key.
func (x *index) heapsort(lo, hi int) {
	n := hi - lo
	for i := n/2 - 1; i >= 0; i-- {
		x.siftDown(lo, i, n)
	}
	for i := n - 1; i > 0; i-- {
		x.swap(lo, lo+i)
		x.siftDown(lo, 0, i)
	}
}

func (x *index) siftDown(lo, root, n int) {
	for {
		c := 2*root + 1
		if c >= n {
			return
		}
		if c+1 < n && x.cmp(x.at(lo+c), x.at(lo+c+1), x.psize) < 0 {
			c++
		}
		if x.cmp(x.at(lo+root), x.at(lo+c), x.psize) >= 0 {
			return
		}
		x.swap(lo+root, lo+c)
		root = c
	}
}

func (x *index) swap(i, j int) {
	a, b := x.at(i), x.at(j)
	move(x.tmp, a)
	move(a, b)
	move(b, x.tmp)
}
