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
	// appendTo appends the results of groups, in that order, to b.
	appendTo(b array.Builder, groups []int32)
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
			return &sumAcc[int64]{avg: a.Kind == Avg}, nil
		case in.Kind == types.Float || in.Kind == types.Double:
			return &sumAcc[float64]{avg: a.Kind == Avg}, nil
		case in.Kind == types.Decimal:
			return &decSumAcc{avg: a.Kind == Avg, inScale: int32(in.Scale), outScale: int32(a.Out.Scale)}, nil
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

func (c *countAcc) appendTo(b array.Builder, groups []int32) {
	ib := b.(*array.Int64Builder)
	for _, g := range groups {
		ib.Append(c.n[g])
	}
}

// sumAcc sums integers (wrapping, as Java) or floats; with avg it also
// counts, and the result is sum/count in the result's type.
type sumAcc[T int64 | float64] struct {
	avg bool
	sum []T
	n   []int64
}

func (s *sumAcc[T]) grow(n int) {
	s.sum = growTo(s.sum, n)
	s.n = growTo(s.n, n)
}

func (s *sumAcc[T]) update(col arrow.Array, rows, groups []int32) {
	switch a := col.(type) {
	case *array.Int64:
		sumInto(s.sum, s.n, a.Int64Values(), a, rows, groups)
	case *array.Int32:
		sumInto(s.sum, s.n, a.Int32Values(), a, rows, groups)
	case *array.Float64:
		sumInto(s.sum, s.n, a.Float64Values(), a, rows, groups)
	case *array.Float32:
		sumInto(s.sum, s.n, a.Float32Values(), a, rows, groups)
	}
}

func sumInto[T int64 | float64, V int32 | int64 | float32 | float64](sum []T, n []int64, v []V, a arrow.Array, rows, groups []int32) {
	if a.NullN() == 0 {
		for i, r := range rows {
			g := groups[i]
			sum[g] += T(v[r])
			n[g]++
		}
		return
	}
	for i, r := range rows {
		if a.IsValid(int(r)) {
			g := groups[i]
			sum[g] += T(v[r])
			n[g]++
		}
	}
}

func (s *sumAcc[T]) reset(g int32) { s.sum[g], s.n[g] = 0, 0 }

func (s *sumAcc[T]) merge(g, h int32) {
	s.sum[g] += s.sum[h]
	s.n[g] += s.n[h]
}

func (s *sumAcc[T]) size() int { return 16 }
func (s *sumAcc[T]) heap() int { return 0 }

func (s *sumAcc[T]) put(dst []byte, g int32) []byte {
	dst = binary.AppendVarint(dst, s.n[g])
	switch v := any(s.sum[g]).(type) {
	case int64:
		return binary.AppendVarint(dst, v)
	case float64:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}

func (s *sumAcc[T]) get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	s.n[g], src = cnt, src[n:]
	switch any(s.sum[g]).(type) {
	case int64:
		v, n := binary.Varint(src)
		if n <= 0 {
			return nil, errState
		}
		s.sum[g], src = T(v), src[n:]
	case float64:
		if len(src) < 8 {
			return nil, errState
		}
		s.sum[g], src = T(math.Float64frombits(binary.LittleEndian.Uint64(src))), src[8:]
	}
	return src, nil
}

func (s *sumAcc[T]) appendTo(b array.Builder, groups []int32) {
	for _, g := range groups {
		if s.n[g] == 0 {
			b.AppendNull()
			continue
		}
		v := s.sum[g]
		if s.avg {
			v /= T(s.n[g])
		}
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(int64(v))
		case *array.Int32Builder:
			b.Append(int32(v))
		case *array.Float64Builder:
			b.Append(float64(v))
		case *array.Float32Builder:
			b.Append(float32(v))
		}
	}
}

// decSumAcc sums DECIMAL values at their scale.
type decSumAcc struct {
	avg               bool
	inScale, outScale int32
	sum               []decimal128.Num
	n                 []int64
}

func (s *decSumAcc) grow(n int) {
	s.sum = growTo(s.sum, n)
	s.n = growTo(s.n, n)
}

func (s *decSumAcc) update(col arrow.Array, rows, groups []int32) {
	a := col.(*array.Decimal128)
	for i, r := range rows {
		if a.IsValid(int(r)) {
			g := groups[i]
			s.sum[g] = s.sum[g].Add(a.Value(int(r)))
			s.n[g]++
		}
	}
}

func (s *decSumAcc) reset(g int32) { s.sum[g], s.n[g] = decimal128.Num{}, 0 }

func (s *decSumAcc) merge(g, h int32) {
	s.sum[g] = s.sum[g].Add(s.sum[h])
	s.n[g] += s.n[h]
}

func (s *decSumAcc) size() int { return 24 }
func (s *decSumAcc) heap() int { return 0 }

func (s *decSumAcc) put(dst []byte, g int32) []byte {
	dst = binary.AppendVarint(dst, s.n[g])
	return putDec(dst, s.sum[g])
}

func (s *decSumAcc) get(src []byte, g int32) ([]byte, error) {
	cnt, n := binary.Varint(src)
	if n <= 0 {
		return nil, errState
	}
	s.n[g] = cnt
	var err error
	s.sum[g], src, err = getDec(src[n:])
	return src, err
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

func (s *decSumAcc) appendTo(b array.Builder, groups []int32) {
	db := b.(*array.Decimal128Builder)
	for _, g := range groups {
		if s.n[g] == 0 {
			db.AppendNull()
			continue
		}
		v := s.sum[g]
		if s.avg {
			v = divRound(v.IncreaseScaleBy(s.outScale-s.inScale), decimal128.FromI64(s.n[g]))
		}
		db.Append(v)
	}
}

// divRound divides rounding half away from zero.
func divRound(a, b decimal128.Num) decimal128.Num {
	q, r := a.Div(b)
	if r.Abs().Add(r.Abs()).GreaterEqual(b.Abs()) {
		if a.Sign()*b.Sign() < 0 {
			return q.Sub(decimal128.FromI64(1))
		}
		return q.Add(decimal128.FromI64(1))
	}
	return q
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

func (e *extreme[T]) appendTo(b array.Builder, groups []int32) {
	for _, g := range groups {
		if !e.seen[g] {
			b.AppendNull()
		} else {
			e.build(b, e.v[g])
		}
	}
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
