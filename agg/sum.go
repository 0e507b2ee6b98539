package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// intSumAcc sums INT and BIGINT values exactly: SUM fails when the sum
// does not fit the result type instead of wrapping around; AVG is the
// exact sum over the count truncated toward zero, as in Flink, which
// always fits.
type intSumAcc struct {
	ovf
	avg   bool
	slots []islot
	mem   *memseg.Manager // see NewIn
	// warmed keeps warm's reads (warm.go).
	warmed uint64
}

// islot is a group's slot: its count of values and its sum, lo +
// wraps·2^64. The update adds to lo alone and, when that wraps around
// (rarely: a branch that is predicted), counts it in wraps. The three
// are one slot, not a column each, so that a group's update or encoding
// (a checkpoint's, at random in the slots) waits for one cache line
// instead of three; the padding makes it 32 bytes, so that no slot
// straddles two lines and the columns come from the Manager's blocks
// (growIn takes sizes that are powers of two).
type islot struct {
	n, lo, wraps int64
	_            int64
}

// sum returns group g's exact sum.
func (s *intSumAcc) sum(g int32) i128 {
	sl := &s.slots[g]
	return i128{lo: uint64(sl.lo), hi: sl.wraps + sl.lo>>63}
}

func (s *intSumAcc) setSum(g int32, x i128) {
	sl := &s.slots[g]
	sl.lo, sl.wraps = int64(x.lo), x.hi-int64(x.lo)>>63
}

func (s *intSumAcc) Grow(n int) { s.slots = growIn(s.mem, s.slots, n) }

func (s *intSumAcc) freeCols() {
	freeIn(s.mem, s.slots)
	s.slots = nil
}

func (s *intSumAcc) Update(col arrow.Array, rows, groups []int32) {
	s.warmed += warm(s.slots, len(groups))
	switch a := col.(type) {
	case *array.Int64:
		sumInts(s.slots, a.Int64Values(), a, rows, groups)
	case *array.Int32:
		sumInts(s.slots, a.Int32Values(), a, rows, groups)
	}
}

func sumInts[V int32 | int64](slots []islot, v []V, a arrow.Array, rows, groups []int32) {
	if a.NullN() == 0 {
		for i, r := range rows {
			slots[groups[i]].add(int64(v[r]))
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			slots[groups[i]].add(int64(v[r]))
		}
	}
}

func (sl *islot) add(x int64) {
	l := sl.lo
	sum := l + x
	sl.lo = sum
	if (l^sum)&(x^sum) < 0 {
		sl.wraps += 1 | x>>63 // +1 past the top, -1 past the bottom
	}
	sl.n++
}

func (s *intSumAcc) Reset(g int32) { s.slots[g] = islot{} }

func (s *intSumAcc) Merge(g, h int32) {
	x := s.sum(g)
	x.addWide(s.sum(h))
	s.setSum(g, x)
	s.slots[g].n += s.slots[h].n
}

func (s *intSumAcc) MergeFrom(g int32, src Acc, h int32) {
	o := src.(*intSumAcc)
	x := s.sum(g)
	x.addWide(o.sum(h))
	s.setSum(g, x)
	s.slots[g].n += o.slots[h].n
}

func (s *intSumAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*intSumAcc)
	h = h[:len(g)]
	for i, x := range g {
		y := s.sum(x)
		y.addWide(o.sum(h[i]))
		s.setSum(x, y)
		s.slots[x].n += o.slots[h[i]].n
	}
}

// Touch implements Toucher.
func (s *intSumAcc) Touch(groups []int32) uint64 { return touch(s.slots, groups) }

func (s *intSumAcc) Size() int { return 32 }
func (s *intSumAcc) Heap() int { return 0 }

// put writes the count and the sum as varints; a sum beyond 64 bits
// (which later rows may bring back) is marked by a negative count and
// takes a second varint, so that state written before sums were wide
// reads the same.
func (s *intSumAcc) Put(dst []byte, g int32) []byte {
	x := s.sum(g)
	if v, ok := x.int64(); ok {
		return binary.AppendVarint(binary.AppendVarint(dst, s.slots[g].n), v)
	}
	dst = binary.AppendVarint(dst, -s.slots[g].n-1)
	dst = binary.AppendVarint(dst, int64(x.lo))
	return binary.AppendVarint(dst, x.hi)
}

func (s *intSumAcc) Get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	src = src[n:]
	lo, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	src = src[n:]
	if cnt >= 0 {
		s.slots[g].n = cnt
		s.setSum(g, i128{lo: uint64(lo), hi: lo >> 63})
		return src, nil
	}
	hi, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	s.slots[g].n = -cnt - 1
	s.setSum(g, i128{lo: uint64(lo), hi: hi})
	return src[n:], nil
}

func (s *intSumAcc) AppendTo(b array.Builder, groups []int32) error {
	s.warmed += warm(s.slots, len(groups))
	for _, g := range groups {
		n := s.slots[g].n
		if n == 0 {
			b.AppendNull()
			continue
		}
		x := s.sum(g)
		v, ok := x.int64()
		if s.avg {
			if ok {
				v /= n
			} else {
				m, neg := x.magnitude()
				q, _ := m.div64(uint64(n))
				v = int64(q[0]) // |avg| <= 2^63: -2^63 negates to itself
				if neg {
					v = -v
				}
			}
			ok = true
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			if !ok {
				return s.overflow()
			}
			b.Append(v)
		case *array.Int32Builder:
			if !ok || v != int64(int32(v)) {
				return s.overflow()
			}
			b.Append(int32(v))
		}
	}
	return nil
}

// ovf names an aggregate in its overflow error.
type ovf struct {
	name string
	out  types.Type
}

func (o ovf) overflow() error {
	return fmt.Errorf("%s: %w: value does not fit %v", o.name, ErrOverflow, o.out.Nullable())
}

// floatSumAcc sums FLOAT and DOUBLE values exactly (fsum.go) and rounds
// the sum once, to nearest even, when the result is taken; with avg the
// result is that rounded sum over the count. A group's slot is a window
// of the exact sum; the groups whose sum does not fit one keep it in big,
// a full accumulator each (entries in free are unused).
type floatSumAcc struct {
	avg   bool
	slots []fslot
	big   []fwide
	free  []uint64
	mem   *memseg.Manager // see NewIn
	// rows and groups hold foldFloats' non-NULL rows.
	rows, groups []int32
	// warmed keeps warm's reads (warm.go).
	warmed uint64
}

func (s *floatSumAcc) Grow(n int) { s.slots = growIn(s.mem, s.slots, n) }

func (s *floatSumAcc) freeCols() {
	freeIn(s.mem, s.slots)
	s.slots, s.big, s.free = nil, nil, nil
}

func (s *floatSumAcc) Update(col arrow.Array, rows, groups []int32) {
	s.warmed += warm(s.slots, len(groups))
	switch a := col.(type) {
	case *array.Float64:
		foldFloats(s, a.Float64Values(), a, rows, groups, 1)
	case *array.Float32:
		foldFloats(s, a.Float32Values(), a, rows, groups, 1)
	}
}

// foldFloats adds (d = 1) or retracts (d = -1) rows of v into their
// groups. A normal value that falls in its group's window, or in an empty
// window, is added there in line, in a loop without calls (foldRows);
// the rest (subnormals, NaN, the infinities, values that move a window or
// need a full accumulator) stop the loop and go through fold.
func foldFloats[V float32 | float64](s *floatSumAcc, v []V, a arrow.Array, rows, groups []int32, d int64) {
	if a.NullN() != 0 {
		rs, gs := s.rows[:0], s.groups[:0]
		for i, r := range rows {
			if a.IsValid(int(r)) {
				rs, gs = append(rs, r), append(gs, groups[i])
			}
		}
		s.rows, s.groups = rs, gs
		rows, groups = rs, gs
	}
	for i := 0; i < len(rows); i++ {
		i += foldRows(s.slots, v, rows[i:], groups[i:len(rows)], d)
		if i < len(rows) {
			s.fold(groups[i], math.Float64bits(float64(v[rows[i]])), d)
		}
	}
}

// foldRows is foldFloats' loop: it returns the number of rows it folded,
// which stops before the first it leaves to fold (counted, not added).
func foldRows[V float32 | float64](slots []fslot, v []V, rows, groups []int32, d int64) int {
	groups = groups[:len(rows)]
	for i, r := range rows {
		sl := &slots[groups[i]]
		if d < 0 && sl.nb < 1<<8 {
			continue // no value to take back (retractedFromEmpty)
		}
		nb := sl.nb + d<<8
		sl.nb = nb
		b := math.Float64bits(float64(v[r])) ^ uint64(d)&signBit
		e := uint32(b>>52) & 0x7ff
		if e-1 >= 0x7fe {
			if b<<1 == 0 {
				continue // a zero adds nothing
			}
			return i
		}
		p := e - 1
		m := b&(1<<52-1) | 1<<52
		sh := p & 63
		lo, hi := m<<sh, m>>(64-sh)
		neg := uint64(int64(b) >> 63)
		l := int32(p >> 6)
		k := l - (int32(nb&0xff) ^ fsumHome)
		if uint32(k) > 1 && sl.w == [3]uint64{} && k != l-fsumBig {
			// An empty window moves to the value (preferredBase).
			b := l
			if hi == 0 {
				b--
			}
			sl.setBase(max(b, 0))
			k = l - sl.base()
		}
		switch k {
		case 0:
			if sl.addLimbs(lo^neg, hi^neg, neg, neg&1) {
				continue
			}
		case 1:
			if sl.addLimbs(neg, lo^neg, hi^neg, neg&1) {
				continue
			}
		}
		return i
	}
	return len(rows)
}

// fold adds (d = 1) or retracts (d = -1) the double of bits x to group g's
// sum, the count aside: the slow path of foldFloats.
func (s *floatSumAcc) fold(g int32, x uint64, d int64) {
	sl := &s.slots[g]
	if x>>52&0x7ff == 0x7ff {
		s.wide(g).count(x, d)
		return
	}
	if x&^signBit == 0 {
		return
	}
	if d < 0 {
		x ^= signBit
	}
	p, m := finite(x)
	neg := x&signBit != 0
	if sl.base() == fsumBig {
		s.big[sl.w[0]].add(p, m, neg)
		return
	}
	l, _, hi := place(p, m)
	if sl.w == [3]uint64{} {
		// An empty window moves to the value.
		b := preferredBase(l, hi)
		var t fwide
		t.add(p, m, neg)
		sl.w = [3]uint64(t.w[b : b+3])
		sl.setBase(int32(b))
		return
	}
	var t fwide
	t.addWindow(sl.w, int(sl.base()))
	t.add(p, m, neg)
	s.store(g, &t, preferredBase(l, hi))
}

// wide moves group g's sum to a full accumulator, if it is not in one,
// and returns it.
func (s *floatSumAcc) wide(g int32) *fwide {
	sl := &s.slots[g]
	if sl.base() == fsumBig {
		return &s.big[sl.w[0]]
	}
	var i uint64
	if n := len(s.free); n > 0 {
		i, s.free = s.free[n-1], s.free[:n-1]
		s.big[i] = fwide{}
	} else {
		i = uint64(len(s.big))
		s.big = append(s.big, fwide{})
	}
	w := &s.big[i]
	w.addWindow(sl.w, int(sl.base()))
	sl.w = [3]uint64{i}
	sl.setBase(fsumBig)
	return w
}

// store sets group g's sum to t: in its slot if it fits a window there
// (the base nearest pref), else in a full accumulator.
func (s *floatSumAcc) store(g int32, t *fwide, pref int) {
	sl := &s.slots[g]
	if v, b, ok := t.window(pref); ok {
		s.release(g)
		sl.w = v
		sl.setBase(b)
		return
	}
	*s.wide(g) = *t
}

// release frees group g's full accumulator, if it has one, leaving its
// slot's sum 0.
func (s *floatSumAcc) release(g int32) {
	sl := &s.slots[g]
	if sl.base() == fsumBig {
		s.free = append(s.free, sl.w[0])
		sl.w = [3]uint64{}
		sl.setBase(fsumHome)
	}
}

// sumOf returns group g's sum as a full accumulator.
func (s *floatSumAcc) sumOf(g int32) fwide {
	sl := &s.slots[g]
	if sl.base() == fsumBig {
		return s.big[sl.w[0]]
	}
	var t fwide
	t.addWindow(sl.w, int(sl.base()))
	return t
}

func (s *floatSumAcc) Reset(g int32) {
	s.release(g)
	s.slots[g] = fslot{}
}

func (s *floatSumAcc) Merge(g, h int32) { s.mergeSlot(g, s, h) }

func (s *floatSumAcc) MergeFrom(g int32, src Acc, h int32) { s.mergeSlot(g, src.(*floatSumAcc), h) }

func (s *floatSumAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*floatSumAcc)
	h = h[:len(g)]
	for i, x := range g {
		s.mergeSlot(x, o, h[i])
	}
}

// mergeSlot adds group h of o into group g: in the window when both
// windows have the same base or h's sum is 0.
func (s *floatSumAcc) mergeSlot(g int32, o *floatSumAcc, h int32) {
	a, b := &s.slots[g], &o.slots[h]
	a.nb += b.nb &^ 0xff
	ab, bb := a.base(), b.base()
	if bb != fsumBig {
		if b.w == [3]uint64{} {
			return
		}
		if ab == bb && a.addLimbs(b.w[0], b.w[1], b.w[2], 0) {
			return
		}
		if ab != fsumBig && a.w == [3]uint64{} {
			a.w = b.w
			a.setBase(bb)
			return
		}
	}
	pref := int(ab)
	if ab == fsumBig {
		pref = int(bb)
	}
	t := s.sumOf(g)
	u := o.sumOf(h)
	t.addWide(&u)
	s.store(g, &t, pref)
}

// Size counts a slot; Heap the full accumulators.
// Touch implements Toucher.
func (s *floatSumAcc) Touch(groups []int32) uint64 { return touch(s.slots, groups) }

func (s *floatSumAcc) Size() int { return int(unsafe.Sizeof(fslot{})) }
func (s *floatSumAcc) Heap() int { return cap(s.big) * int(unsafe.Sizeof(fwide{})) }

// Put writes the count and the sum. A sum that is a double with no NaN or
// infinity among its values is written as before sums were exact: the
// count as a varint, then the double's 8 bytes. Any other sum is marked
// by a negative count (-count-1) and written exactly: a byte k<<1 |
// specials, then, if k > 0, the base of its lowest limb as a uvarint and
// k limbs of 8 bytes (two's complement, the fewest that hold it), then, if
// specials, the counts of NaN, +Inf and -Inf as varints. The header's top
// bit is clear: a later format sets it (fsumLater).
func (s *floatSumAcc) Put(dst []byte, g int32) []byte {
	sl := &s.slots[g]
	x, inexact := uint64(0), true
	if b := sl.base(); b != fsumBig {
		x, inexact = binary64.roundWindow(sl.w, int(b))
	} else if w := &s.big[sl.w[0]]; w.nan == 0 && w.pinf == 0 && w.ninf == 0 {
		x, inexact = binary64.round(w.w[:], 0)
	}
	if !inexact {
		dst = binary.AppendVarint(dst, sl.n())
		return binary.LittleEndian.AppendUint64(dst, x)
	}
	t := s.sumOf(g)
	dst = binary.AppendVarint(dst, -sl.n()-1)
	lz := 0
	for lz < fsumLimbs && t.w[lz] == 0 {
		lz++
	}
	k := 0
	if lz < fsumLimbs {
		k = significant(t.w[:]) - lz + 1
	}
	specials := t.nan != 0 || t.pinf != 0 || t.ninf != 0
	dst = append(dst, byte(k<<1)|byte(b2u(specials)))
	if k > 0 {
		dst = binary.AppendUvarint(dst, uint64(lz))
		for _, x := range t.w[lz : lz+k] {
			dst = binary.LittleEndian.AppendUint64(dst, x)
		}
	}
	if specials {
		dst = binary.AppendVarint(dst, t.nan)
		dst = binary.AppendVarint(dst, t.pinf)
		dst = binary.AppendVarint(dst, t.ninf)
	}
	return dst
}

// Get reads either encoding of Put. A double written by a strand whose
// sums were not exact reads as a sum of that one value. A header with the
// top bit set fails with ErrLaterFormat.
func (s *floatSumAcc) Get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	src = src[n:]
	var t fwide
	if cnt >= 0 {
		if len(src) < 8 {
			return nil, ErrCorrupt
		}
		x := binary.LittleEndian.Uint64(src)
		switch {
		case x>>52&0x7ff == 0x7ff:
			t.count(x, 1)
		case x&^signBit != 0:
			p, m := finite(x)
			t.add(p, m, x&signBit != 0)
		}
		s.setSum(g, cnt, &t)
		return src[8:], nil
	}
	if len(src) < 1 {
		return nil, ErrCorrupt
	}
	h := src[0]
	if h&fsumLater != 0 {
		return nil, fmt.Errorf("%w: float sum header %#02x", ErrLaterFormat, h)
	}
	src = src[1:]
	k := int(h >> 1)
	if k > fsumLimbs {
		return nil, ErrCorrupt
	}
	if k > 0 {
		lz, n := binary.Uvarint(src)
		if n <= 0 || lz > fsumLimbs-uint64(k) || len(src) < n+8*k {
			return nil, ErrCorrupt
		}
		src = src[n:]
		for i := range k {
			t.w[int(lz)+i] = binary.LittleEndian.Uint64(src[8*i:])
		}
		src = src[8*k:]
		if ext := uint64(int64(t.w[int(lz)+k-1]) >> 63); ext != 0 {
			for i := int(lz) + k; i < fsumLimbs; i++ {
				t.w[i] = ext
			}
		}
	}
	if h&1 != 0 {
		for _, c := range []*int64{&t.nan, &t.pinf, &t.ninf} {
			v, n := binary.Varint(src)
			if n <= 0 {
				return nil, ErrCorrupt
			}
			*c, src = v, src[n:]
		}
	}
	s.setSum(g, -cnt-1, &t)
	return src, nil
}

// setSum sets group g's count and sum.
func (s *floatSumAcc) setSum(g int32, n int64, t *fwide) {
	s.release(g)
	s.slots[g] = fslot{nb: n << 8}
	pref := 0
	for pref < fsumTop && t.w[pref] == 0 {
		pref++
	}
	s.store(g, t, pref)
}

// result returns group g's sum rounded in format f, as f's bits.
func (s *floatSumAcc) result(g int32, f fsumFormat) uint64 {
	sl := &s.slots[g]
	if b := sl.base(); b != fsumBig {
		x, _ := f.roundWindow(sl.w, int(b))
		return x
	}
	w := &s.big[sl.w[0]]
	inf := f.maxE << f.frac
	switch {
	case w.nan > 0 || w.pinf > 0 && w.ninf > 0:
		return inf | 1<<(f.frac-1)
	case w.pinf > 0:
		return inf
	case w.ninf > 0:
		return inf | 1<<(f.frac+bitsExp(f))
	}
	x, _ := f.round(w.w[:], 0)
	return x
}

func (s *floatSumAcc) AppendTo(b array.Builder, groups []int32) error {
	s.warmed += warm(s.slots, len(groups))
	if fb, ok := b.(*array.Float64Builder); ok && !s.avg {
		fb.Reserve(len(groups))
		for _, g := range groups {
			sl := &s.slots[g]
			if sl.nb>>8 == 0 {
				fb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			var x uint64
			if b := sl.base(); b != fsumBig {
				x, _ = roundWindow64(&sl.w, int(b))
			} else {
				x = s.result(g, binary64)
			}
			fb.UnsafeAppend(math.Float64frombits(x))
		}
		return nil
	}
	for _, g := range groups {
		n := s.slots[g].n()
		if n == 0 {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.Float64Builder:
			b.Append(math.Float64frombits(s.result(g, binary64)) / float64(n))
		case *array.Float32Builder:
			if s.avg {
				b.Append(float32(math.Float64frombits(s.result(g, binary64)) / float64(n)))
			} else {
				b.Append(math.Float32frombits(uint32(s.result(g, binary32))))
			}
		}
	}
	return nil
}
