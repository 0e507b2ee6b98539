package agg

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// decSumAcc sums DECIMAL values at their scale, exactly (wide.go): SUM
// fails when the sum does not fit DECIMAL(38, s); AVG rescales the exact
// sum to its result's scale, divides rounding half up, as Flink does, and
// fails only when the average does not fit.
type decSumAcc struct {
	ovf
	avg bool
	// mult is 10^(the result's scale - the input's): at most 10^6.
	mult  uint64
	slots []dslot
	mem   *memseg.Manager // see NewIn
	// warmed keeps warm's reads (warm.go).
	warmed uint64
}

func newDecSum(a Call, in types.Type) (*decSumAcc, error) {
	s := &decSumAcc{ovf: ovf{name: a.name(), out: a.Out}, avg: a.Kind == Avg, mult: 1}
	if a.Out.Scale < in.Scale || a.Out.Scale-in.Scale > 18 {
		return nil, fmt.Errorf("no accumulator for %v(%v) of %v", a.Kind, in, a.Out)
	}
	for range a.Out.Scale - in.Scale {
		s.mult *= 10
	}
	return s, nil
}

// dslot is a group's slot: its exact sum and its count of values, 32
// bytes, in one cache line (as islot, sum.go).
type dslot struct {
	sum i192
	n   int64
}

func (s *decSumAcc) Grow(n int) { s.slots = growIn(s.mem, s.slots, n) }

func (s *decSumAcc) freeCols() {
	freeIn(s.mem, s.slots)
	s.slots = nil
}

func (s *decSumAcc) Update(col arrow.Array, rows, groups []int32) {
	s.warmed += warm(s.slots, len(groups))
	a := col.(*array.Decimal128)
	v := a.Values()
	if a.NullN() == 0 {
		for i, r := range rows {
			sl := &s.slots[groups[i]]
			sl.sum.add(v[r])
			sl.n++
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			sl := &s.slots[groups[i]]
			sl.sum.add(v[r])
			sl.n++
		}
	}
}

func (s *decSumAcc) Reset(g int32) { s.slots[g] = dslot{} }

func (s *decSumAcc) Merge(g, h int32) { s.slots[g].merge(s.slots[h]) }

func (s *decSumAcc) MergeFrom(g int32, src Acc, h int32) {
	s.slots[g].merge(src.(*decSumAcc).slots[h])
}

func (s *decSumAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*decSumAcc)
	h = h[:len(g)]
	for i, x := range g {
		s.slots[x].merge(o.slots[h[i]])
	}
}

func (sl *dslot) merge(o dslot) {
	sl.sum.addWide(o.sum)
	sl.n += o.n
}

// Touch implements Toucher.
func (s *decSumAcc) Touch(groups []int32) uint64 { return touch(s.slots, groups) }

func (s *decSumAcc) Size() int { return 32 }
func (s *decSumAcc) Heap() int { return 0 }

// put writes the count as a varint and the sum's 128 bits; a sum beyond
// them is marked by a negative count and takes 8 more bytes, so that
// state written before sums were wide reads the same.
func (s *decSumAcc) Put(dst []byte, g int32) []byte {
	sl := &s.slots[g]
	x := sl.sum
	v, ok := x.dec128()
	if ok {
		return putDec(binary.AppendVarint(dst, sl.n), v)
	}
	dst = putDec(binary.AppendVarint(dst, -sl.n-1), v)
	return binary.LittleEndian.AppendUint64(dst, uint64(x.hi))
}

func (s *decSumAcc) Get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	v, src, err := getDec(src[n:])
	if err != nil {
		return nil, err
	}
	x := i192{lo: v.LowBits(), mid: uint64(v.HighBits()), hi: v.HighBits() >> 63}
	if cnt < 0 {
		if len(src) < 8 {
			return nil, ErrCorrupt
		}
		cnt, x.hi, src = -cnt-1, int64(binary.LittleEndian.Uint64(src)), src[8:]
	}
	s.slots[g] = dslot{sum: x, n: cnt}
	return src, nil
}

func putDec(dst []byte, v decimal128.Num) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(v.HighBits()))
	return binary.LittleEndian.AppendUint64(dst, v.LowBits())
}

func getDec(src []byte) (decimal128.Num, []byte, error) {
	if len(src) < 16 {
		return decimal128.Num{}, nil, ErrCorrupt
	}
	hi, lo := binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[8:])
	return decimal128.New(int64(hi), lo), src[16:], nil
}

func (s *decSumAcc) AppendTo(b array.Builder, groups []int32) error {
	s.warmed += warm(s.slots, len(groups))
	db := b.(*array.Decimal128Builder)
	for _, g := range groups {
		if s.slots[g].n == 0 {
			db.AppendNull()
			continue
		}
		v, ok := s.result(g)
		if !ok || !v.FitsInPrecision(38) {
			return s.overflow()
		}
		db.Append(v)
	}
	return nil
}

// result is group g's SUM or AVG, if it fits 128 bits.
func (s *decSumAcc) result(g int32) (decimal128.Num, bool) {
	if !s.avg {
		return s.slots[g].sum.dec128()
	}
	sl := &s.slots[g]
	m, neg := sl.sum.magnitude()
	q := m.mul64(s.mult).divRound64(uint64(sl.n))
	if !q.fits128() {
		return decimal128.Num{}, false
	}
	v := decimal128.New(int64(q[1]), q[0])
	if neg {
		v = v.Negate()
	}
	return v, true
}
