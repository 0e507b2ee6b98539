package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/types"
)

// intSumAcc sums INT and BIGINT values exactly: SUM fails when the sum
// does not fit the result type instead of wrapping around; AVG is the
// exact sum over the count truncated toward zero, as in Flink, which
// always fits.
type intSumAcc struct {
	ovf
	avg bool
	// Group g's sum is lo[g] + wraps[g]·2^64: the update adds to lo alone
	// and, when that wraps around (rarely: a branch that is predicted),
	// counts it in wraps.
	lo, wraps []int64
	n         []int64
}

// sum returns group g's exact sum.
func (s *intSumAcc) sum(g int32) i128 {
	return i128{lo: uint64(s.lo[g]), hi: s.wraps[g] + s.lo[g]>>63}
}

func (s *intSumAcc) setSum(g int32, x i128) {
	s.lo[g], s.wraps[g] = int64(x.lo), x.hi-int64(x.lo)>>63
}

func (s *intSumAcc) Grow(n int) {
	s.lo = Grow(s.lo, n)
	s.wraps = Grow(s.wraps, n)
	s.n = Grow(s.n, n)
}

func (s *intSumAcc) Update(col arrow.Array, rows, groups []int32) {
	switch a := col.(type) {
	case *array.Int64:
		sumInts(s.lo, s.wraps, s.n, a.Int64Values(), a, rows, groups)
	case *array.Int32:
		sumInts(s.lo, s.wraps, s.n, a.Int32Values(), a, rows, groups)
	}
}

func sumInts[V int32 | int64](lo, wraps, n []int64, v []V, a arrow.Array, rows, groups []int32) {
	if a.NullN() == 0 {
		for i, r := range rows {
			addInt(lo, wraps, n, groups[i], int64(v[r]))
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			addInt(lo, wraps, n, groups[i], int64(v[r]))
		}
	}
}

func addInt(lo, wraps, n []int64, g int32, x int64) {
	l := lo[g]
	sum := l + x
	lo[g] = sum
	if (l^sum)&(x^sum) < 0 {
		wraps[g] += 1 | x>>63 // +1 past the top, -1 past the bottom
	}
	n[g]++
}

func (s *intSumAcc) Reset(g int32) { s.lo[g], s.wraps[g], s.n[g] = 0, 0, 0 }

func (s *intSumAcc) Merge(g, h int32) {
	x := s.sum(g)
	x.addWide(s.sum(h))
	s.setSum(g, x)
	s.n[g] += s.n[h]
}

func (s *intSumAcc) MergeFrom(g int32, src Acc, h int32) {
	o := src.(*intSumAcc)
	x := s.sum(g)
	x.addWide(o.sum(h))
	s.setSum(g, x)
	s.n[g] += o.n[h]
}

func (s *intSumAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*intSumAcc)
	h = h[:len(g)]
	for i, x := range g {
		y := s.sum(x)
		y.addWide(o.sum(h[i]))
		s.setSum(x, y)
		s.n[x] += o.n[h[i]]
	}
}

func (s *intSumAcc) Size() int { return 24 }
func (s *intSumAcc) Heap() int { return 0 }

// put writes the count and the sum as varints; a sum beyond 64 bits
// (which later rows may bring back) is marked by a negative count and
// takes a second varint, so that state written before sums were wide
// reads the same.
func (s *intSumAcc) Put(dst []byte, g int32) []byte {
	x := s.sum(g)
	if v, ok := x.int64(); ok {
		return binary.AppendVarint(binary.AppendVarint(dst, s.n[g]), v)
	}
	dst = binary.AppendVarint(dst, -s.n[g]-1)
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
		s.n[g] = cnt
		s.setSum(g, i128{lo: uint64(lo), hi: lo >> 63})
		return src, nil
	}
	hi, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	s.n[g] = -cnt - 1
	s.setSum(g, i128{lo: uint64(lo), hi: hi})
	return src[n:], nil
}

func (s *intSumAcc) AppendTo(b array.Builder, groups []int32) error {
	for _, g := range groups {
		if s.n[g] == 0 {
			b.AppendNull()
			continue
		}
		x := s.sum(g)
		v, ok := x.int64()
		if s.avg {
			if ok {
				v /= s.n[g]
			} else {
				m, neg := x.magnitude()
				q, _ := m.div64(uint64(s.n[g]))
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

// floatSumAcc sums FLOAT and DOUBLE values; with avg it also counts, and
// the result is sum/count.
type floatSumAcc struct {
	avg bool
	sum []float64
	n   []int64
}

func (s *floatSumAcc) Grow(n int) {
	s.sum = Grow(s.sum, n)
	s.n = Grow(s.n, n)
}

func (s *floatSumAcc) Update(col arrow.Array, rows, groups []int32) {
	switch a := col.(type) {
	case *array.Float64:
		sumFloats(s.sum, s.n, a.Float64Values(), a, rows, groups)
	case *array.Float32:
		sumFloats(s.sum, s.n, a.Float32Values(), a, rows, groups)
	}
}

func sumFloats[V float32 | float64](sum []float64, n []int64, v []V, a arrow.Array, rows, groups []int32) {
	if a.NullN() == 0 {
		for i, r := range rows {
			g := groups[i]
			sum[g] += float64(v[r])
			n[g]++
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			g := groups[i]
			sum[g] += float64(v[r])
			n[g]++
		}
	}
}

func (s *floatSumAcc) Reset(g int32) { s.sum[g], s.n[g] = 0, 0 }

func (s *floatSumAcc) Merge(g, h int32) {
	s.sum[g] += s.sum[h]
	s.n[g] += s.n[h]
}

func (s *floatSumAcc) MergeFrom(g int32, src Acc, h int32) {
	o := src.(*floatSumAcc)
	s.sum[g] += o.sum[h]
	s.n[g] += o.n[h]
}

func (s *floatSumAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*floatSumAcc)
	h = h[:len(g)]
	for i, x := range g {
		s.sum[x] += o.sum[h[i]]
		s.n[x] += o.n[h[i]]
	}
}

func (s *floatSumAcc) Size() int { return 16 }
func (s *floatSumAcc) Heap() int { return 0 }

func (s *floatSumAcc) Put(dst []byte, g int32) []byte {
	dst = binary.AppendVarint(dst, s.n[g])
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.sum[g]))
}

func (s *floatSumAcc) Get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 || len(src) < n+8 {
		return nil, ErrCorrupt
	}
	s.n[g], s.sum[g] = cnt, math.Float64frombits(binary.LittleEndian.Uint64(src[n:]))
	return src[n+8:], nil
}

func (s *floatSumAcc) AppendTo(b array.Builder, groups []int32) error {
	if fb, ok := b.(*array.Float64Builder); ok && !s.avg {
		fb.Reserve(len(groups))
		for _, g := range groups {
			if s.n[g] == 0 {
				fb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			fb.UnsafeAppend(s.sum[g])
		}
		return nil
	}
	for _, g := range groups {
		if s.n[g] == 0 {
			b.AppendNull()
			continue
		}
		v := s.sum[g]
		if s.avg {
			v /= float64(s.n[g])
		}
		switch b := b.(type) {
		case *array.Float64Builder:
			b.Append(v)
		case *array.Float32Builder:
			b.Append(float32(v))
		}
	}
	return nil
}
