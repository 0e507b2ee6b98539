package window

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/types"
)

// errState reports checkpointed window state that does not decode.
var errState = errors.New("window: malformed checkpointed state")

// acc holds one aggregate's state for every group of a pane, a slot per
// group, in typed slices: an update is a tight loop over a batch's rows.
type acc interface {
	// grow makes room for n groups.
	grow(n int)
	// update folds rows (with their groups) of col into the state. NULLs in
	// col are skipped; col is nil for COUNT(*).
	update(col arrow.Array, rows, groups []int32)
	// appendTo appends the results of groups, in that order, to b. It
	// fails, wrapping ErrOverflow, when a result does not fit its type.
	appendTo(b array.Builder, groups []int32) error
	// put appends group g's state to dst; get reads it back into g (which
	// must exist) and returns the rest of src.
	put(dst []byte, g int32) []byte
	get(src []byte, g int32) ([]byte, error)
	// reset clears group g's state to that of a group without rows;
	// merge folds group h's state into group g's, as if g had also seen
	// h's rows (not for DISTINCT aggregates, whose values are merged
	// instead).
	reset(g int32)
	merge(g, h int32)
	// size is the bytes one group's slot takes; heap the bytes held
	// outside the slots (MIN and MAX of strings). Both are charged to the
	// memory budget.
	size() int
	heap() int
}

func newAcc(a Agg, in types.Type) (acc, error) {
	switch a.Kind {
	case CountStar, Count:
		return &countAcc{}, nil
	case Sum, Avg:
		switch {
		case in.IsIntegral():
			return &intSumAcc{ovf: ovf{name: a.name(), out: a.Out}, avg: a.Kind == Avg}, nil
		case in.Kind == types.Float || in.Kind == types.Double:
			return &floatSumAcc{avg: a.Kind == Avg}, nil
		case in.Kind == types.Decimal:
			return newDecSum(a, in)
		}
	case Min, Max:
		return newExtreme(in, a.Kind == Max)
	}
	return nil, fmt.Errorf("no accumulator for %v(%v)", a.Kind, in)
}

type countAcc struct{ n []int64 }

func (c *countAcc) grow(n int) { c.n = growTo(c.n, n) }

func (c *countAcc) update(col arrow.Array, rows, groups []int32) {
	if col == nil || col.NullN() == 0 {
		for _, g := range groups {
			c.n[g]++
		}
		return
	}
	for i, r := range rows {
		if col.IsValid(int(r)) {
			c.n[groups[i]]++
		}
	}
}

func (c *countAcc) reset(g int32)    { c.n[g] = 0 }
func (c *countAcc) merge(g, h int32) { c.n[g] += c.n[h] }
func (c *countAcc) size() int        { return 8 }
func (c *countAcc) heap() int        { return 0 }

func (c *countAcc) put(dst []byte, g int32) []byte { return binary.AppendVarint(dst, c.n[g]) }

func (c *countAcc) get(src []byte, g int32) ([]byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	c.n[g] = v
	return src[n:], nil
}

func (c *countAcc) appendTo(b array.Builder, groups []int32) error {
	ib := b.(*array.Int64Builder)
	for _, g := range groups {
		ib.Append(c.n[g])
	}
	return nil
}

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

func (s *intSumAcc) grow(n int) {
	s.lo = growTo(s.lo, n)
	s.wraps = growTo(s.wraps, n)
	s.n = growTo(s.n, n)
}

func (s *intSumAcc) update(col arrow.Array, rows, groups []int32) {
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

func (s *intSumAcc) reset(g int32) { s.lo[g], s.wraps[g], s.n[g] = 0, 0, 0 }

func (s *intSumAcc) merge(g, h int32) {
	x := s.sum(g)
	x.addWide(s.sum(h))
	s.setSum(g, x)
	s.n[g] += s.n[h]
}

func (s *intSumAcc) size() int { return 24 }
func (s *intSumAcc) heap() int { return 0 }

// put writes the count and the sum as varints; a sum beyond 64 bits
// (which later rows may bring back) is marked by a negative count and
// takes a second varint, so that state written before sums were wide
// reads the same.
func (s *intSumAcc) put(dst []byte, g int32) []byte {
	x := s.sum(g)
	if v, ok := x.int64(); ok {
		return binary.AppendVarint(binary.AppendVarint(dst, s.n[g]), v)
	}
	dst = binary.AppendVarint(dst, -s.n[g]-1)
	dst = binary.AppendVarint(dst, int64(x.lo))
	return binary.AppendVarint(dst, x.hi)
}

func (s *intSumAcc) get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	src = src[n:]
	lo, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	src = src[n:]
	if cnt >= 0 {
		s.n[g] = cnt
		s.setSum(g, i128{lo: uint64(lo), hi: lo >> 63})
		return src, nil
	}
	hi, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	s.n[g] = -cnt - 1
	s.setSum(g, i128{lo: uint64(lo), hi: hi})
	return src[n:], nil
}

func (s *intSumAcc) appendTo(b array.Builder, groups []int32) error {
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

func (s *floatSumAcc) grow(n int) {
	s.sum = growTo(s.sum, n)
	s.n = growTo(s.n, n)
}

func (s *floatSumAcc) update(col arrow.Array, rows, groups []int32) {
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

func (s *floatSumAcc) reset(g int32) { s.sum[g], s.n[g] = 0, 0 }

func (s *floatSumAcc) merge(g, h int32) {
	s.sum[g] += s.sum[h]
	s.n[g] += s.n[h]
}

func (s *floatSumAcc) size() int { return 16 }
func (s *floatSumAcc) heap() int { return 0 }

func (s *floatSumAcc) put(dst []byte, g int32) []byte {
	dst = binary.AppendVarint(dst, s.n[g])
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.sum[g]))
}

func (s *floatSumAcc) get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 || len(src) < n+8 {
		return nil, errState
	}
	s.n[g], s.sum[g] = cnt, math.Float64frombits(binary.LittleEndian.Uint64(src[n:]))
	return src[n+8:], nil
}

func (s *floatSumAcc) appendTo(b array.Builder, groups []int32) error {
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

// decSumAcc sums DECIMAL values at their scale, exactly (wide.go): SUM
// fails when the sum does not fit DECIMAL(38, s); AVG rescales the exact
// sum to its result's scale, divides rounding half up, as Flink does, and
// fails only when the average does not fit.
type decSumAcc struct {
	ovf
	avg bool
	// mult is 10^(the result's scale - the input's): at most 10^6.
	mult uint64
	sum  []i192
	n    []int64
}

func newDecSum(a Agg, in types.Type) (*decSumAcc, error) {
	s := &decSumAcc{ovf: ovf{name: a.name(), out: a.Out}, avg: a.Kind == Avg, mult: 1}
	if a.Out.Scale < in.Scale || a.Out.Scale-in.Scale > 18 {
		return nil, fmt.Errorf("no accumulator for %v(%v) of %v", a.Kind, in, a.Out)
	}
	for range a.Out.Scale - in.Scale {
		s.mult *= 10
	}
	return s, nil
}

func (s *decSumAcc) grow(n int) {
	s.sum = growTo(s.sum, n)
	s.n = growTo(s.n, n)
}

func (s *decSumAcc) update(col arrow.Array, rows, groups []int32) {
	a := col.(*array.Decimal128)
	v := a.Values()
	if a.NullN() == 0 {
		for i, r := range rows {
			g := groups[i]
			s.sum[g].add(v[r])
			s.n[g]++
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			g := groups[i]
			s.sum[g].add(v[r])
			s.n[g]++
		}
	}
}

func (s *decSumAcc) reset(g int32) { s.sum[g], s.n[g] = i192{}, 0 }

func (s *decSumAcc) merge(g, h int32) {
	s.sum[g].addWide(s.sum[h])
	s.n[g] += s.n[h]
}

func (s *decSumAcc) size() int { return 32 }
func (s *decSumAcc) heap() int { return 0 }

// put writes the count as a varint and the sum's 128 bits; a sum beyond
// them is marked by a negative count and takes 8 more bytes, so that
// state written before sums were wide reads the same.
func (s *decSumAcc) put(dst []byte, g int32) []byte {
	x := s.sum[g]
	v, ok := x.dec128()
	if ok {
		return putDec(binary.AppendVarint(dst, s.n[g]), v)
	}
	dst = putDec(binary.AppendVarint(dst, -s.n[g]-1), v)
	return binary.LittleEndian.AppendUint64(dst, uint64(x.hi))
}

func (s *decSumAcc) get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	v, src, err := getDec(src[n:])
	if err != nil {
		return nil, err
	}
	x := i192{lo: v.LowBits(), mid: uint64(v.HighBits()), hi: v.HighBits() >> 63}
	if cnt < 0 {
		if len(src) < 8 {
			return nil, errState
		}
		cnt, x.hi, src = -cnt-1, int64(binary.LittleEndian.Uint64(src)), src[8:]
	}
	s.n[g], s.sum[g] = cnt, x
	return src, nil
}

func putDec(dst []byte, v decimal128.Num) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(v.HighBits()))
	return binary.LittleEndian.AppendUint64(dst, v.LowBits())
}

func getDec(src []byte) (decimal128.Num, []byte, error) {
	if len(src) < 16 {
		return decimal128.Num{}, nil, errState
	}
	hi, lo := binary.LittleEndian.Uint64(src), binary.LittleEndian.Uint64(src[8:])
	return decimal128.New(int64(hi), lo), src[16:], nil
}

func (s *decSumAcc) appendTo(b array.Builder, groups []int32) error {
	db := b.(*array.Decimal128Builder)
	for _, g := range groups {
		if s.n[g] == 0 {
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
		return s.sum[g].dec128()
	}
	m, neg := s.sum[g].magnitude()
	q := m.mul64(s.mult).divRound64(uint64(s.n[g]))
	if !q.fits128() {
		return decimal128.Num{}, false
	}
	v := decimal128.New(int64(q[1]), q[0])
	if neg {
		v = v.Negate()
	}
	return v, true
}

// extreme keeps a MIN or MAX.
type extreme[T any] struct {
	max   bool
	less  func(a, b T) bool
	read  func(a arrow.Array, i int) T
	build func(b array.Builder, v T)
	enc   func(dst []byte, v T) []byte
	dec   func(src []byte) (T, []byte, error)
	width int           // bytes of a T
	bytes func(v T) int // bytes a T holds on the heap; nil for none
	held  int           // bytes the slots' values hold on the heap
	v     []T
	seen  []bool
}

func (e *extreme[T]) reset(g int32) {
	e.unhold(g)
	var zero T
	e.v[g], e.seen[g] = zero, false
}

func (e *extreme[T]) merge(g, h int32) {
	if !e.seen[h] {
		return
	}
	if !e.seen[g] || e.max && e.less(e.v[g], e.v[h]) || !e.max && e.less(e.v[h], e.v[g]) {
		e.set(g, e.v[h])
	}
}

// set makes x group g's value, keeping held up to date.
func (e *extreme[T]) set(g int32, x T) {
	e.unhold(g)
	e.v[g], e.seen[g] = x, true
	if e.bytes != nil {
		e.held += e.bytes(x)
	}
}

func (e *extreme[T]) unhold(g int32) {
	if e.bytes != nil && e.seen[g] {
		e.held -= e.bytes(e.v[g])
	}
}

func (e *extreme[T]) size() int { return e.width + 1 }
func (e *extreme[T]) heap() int { return e.held }

func (e *extreme[T]) grow(n int) {
	e.v = growTo(e.v, n)
	e.seen = growTo(e.seen, n)
}

func (e *extreme[T]) update(col arrow.Array, rows, groups []int32) {
	// BIGINT without NULLs: a loop without a call per row.
	if a, ok := col.(*array.Int64); ok && a.NullN() == 0 {
		if v, ok := any(e.v).([]int64); ok {
			extremeInt64(v, e.seen, e.max, a.Int64Values(), rows, groups)
			return
		}
	}
	for i, r := range rows {
		if col.IsNull(int(r)) {
			continue
		}
		g := groups[i]
		x := e.read(col, int(r))
		if !e.seen[g] || e.max && e.less(e.v[g], x) || !e.max && e.less(x, e.v[g]) {
			e.set(g, x)
		}
	}
}

func extremeInt64(v []int64, seen []bool, isMax bool, col []int64, rows, groups []int32) {
	for i, r := range rows {
		g, x := groups[i], col[r]
		switch {
		case !seen[g]:
			v[g], seen[g] = x, true
		case isMax && x > v[g], !isMax && x < v[g]:
			v[g] = x
		}
	}
}

func (e *extreme[T]) appendTo(b array.Builder, groups []int32) error {
	for _, g := range groups {
		if !e.seen[g] {
			b.AppendNull()
		} else {
			e.build(b, e.v[g])
		}
	}
	return nil
}

func (e *extreme[T]) put(dst []byte, g int32) []byte {
	if !e.seen[g] {
		return append(dst, 0)
	}
	return e.enc(append(dst, 1), e.v[g])
}

func (e *extreme[T]) get(src []byte, g int32) ([]byte, error) {
	if len(src) == 0 {
		return nil, errState
	}
	if src[0] == 0 {
		e.reset(g)
		return src[1:], nil
	}
	v, rest, err := e.dec(src[1:])
	if err != nil {
		return nil, err
	}
	e.set(g, v)
	return rest, nil
}

func newExtreme(in types.Type, isMax bool) (acc, error) {
	switch in.Kind {
	case types.Int, types.BigInt, types.Date, types.Timestamp, types.TimestampLTZ:
		return &extreme[int64]{max: isMax, width: 8, less: func(a, b int64) bool { return a < b }, read: readInt, build: putInt, enc: encInt, dec: decInt}, nil
	case types.Float, types.Double:
		return &extreme[float64]{max: isMax, width: 8, less: lessFloat, read: readFloat, build: putFloat, enc: encFloat, dec: decFloat}, nil
	case types.Boolean:
		return &extreme[bool]{max: isMax, width: 1, less: func(a, b bool) bool { return !a && b },
			read:  func(a arrow.Array, i int) bool { return a.(*array.Boolean).Value(i) },
			build: func(b array.Builder, v bool) { b.(*array.BooleanBuilder).Append(v) },
			enc: func(dst []byte, v bool) []byte {
				if v {
					return append(dst, 1)
				}
				return append(dst, 0)
			},
			dec: func(src []byte) (bool, []byte, error) {
				if len(src) == 0 {
					return false, nil, errState
				}
				return src[0] == 1, src[1:], nil
			}}, nil
	case types.String:
		return &extreme[string]{max: isMax, width: 16, bytes: func(v string) int { return len(v) },
			less: func(a, b string) bool { return a < b },
			read: func(a arrow.Array, i int) string {
				s := a.(*array.String).Value(i)
				return string([]byte(s)) // detach from the batch's buffer
			},
			build: func(b array.Builder, v string) { b.(*array.StringBuilder).Append(v) },
			enc: func(dst []byte, v string) []byte {
				return append(binary.AppendUvarint(dst, uint64(len(v))), v...)
			},
			dec: func(src []byte) (string, []byte, error) {
				n, k := binary.Uvarint(src)
				if k <= 0 || uint64(len(src)-k) < n {
					return "", nil, errState
				}
				return string(src[k : k+int(n)]), src[k+int(n):], nil
			}}, nil
	case types.Decimal:
		return &extreme[decimal128.Num]{max: isMax, width: 16, less: decimal128.Num.Less,
			read:  func(a arrow.Array, i int) decimal128.Num { return a.(*array.Decimal128).Value(i) },
			build: func(b array.Builder, v decimal128.Num) { b.(*array.Decimal128Builder).Append(v) },
			enc:   putDec, dec: getDec}, nil
	}
	return nil, fmt.Errorf("MIN/MAX does not accept %v", in)
}

// lessFloat orders floats as SQL does: NaN above everything, -0.0 = 0.0.
func lessFloat(a, b float64) bool {
	if math.IsNaN(a) {
		return false
	}
	return a < b || math.IsNaN(b)
}

func readInt(a arrow.Array, i int) int64 {
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Date32:
		return int64(a.Value(i))
	}
	panic(fmt.Sprintf("window: readInt on %s", a.DataType()))
}

func putInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(v)
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v))
	default:
		panic(fmt.Sprintf("window: putInt on %T", b))
	}
}

func encInt(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

func decInt(src []byte) (int64, []byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		return 0, nil, errState
	}
	return v, src[n:], nil
}

func encFloat(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

func decFloat(src []byte) (float64, []byte, error) {
	if len(src) < 8 {
		return 0, nil, errState
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(src)), src[8:], nil
}

func readFloat(a arrow.Array, i int) float64 {
	if f, ok := a.(*array.Float32); ok {
		return float64(f.Value(i))
	}
	return a.(*array.Float64).Value(i)
}

func putFloat(b array.Builder, v float64) {
	if f, ok := b.(*array.Float32Builder); ok {
		f.Append(float32(v))
		return
	}
	b.(*array.Float64Builder).Append(v)
}

// growTo extends s with zero values to length n.
func growTo[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	out := make([]T, n, max(n, 2*cap(s)))
	copy(out, s)
	return out
}
