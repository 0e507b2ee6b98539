package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// values are the operations on the values of one orderable type that
// MIN and MAX need, with and without retraction.
type values[T any] struct {
	less  func(a, b T) bool
	read  func(a arrow.Array, i int) T
	build func(b array.Builder, v T)
	enc   func(dst []byte, v T) []byte
	dec   func(src []byte) (T, []byte, error)
	width int           // bytes of a T
	bytes func(v T) int // bytes a T holds on the heap; nil for none
}

// extreme keeps a MIN or MAX.
type extreme[T any] struct {
	values[T]
	max  bool
	held int // bytes the slots' values hold on the heap
	v    []T
	// seen has group g's bit set once g has a value: a bit, not a byte,
	// so that for a million groups it is 128 KiB, which stays in the
	// cache while v's slots are visited at random.
	seen []uint64
	mem  *memseg.Manager // see NewIn: set only for a T without pointers
	// warmed keeps warm's reads (warm.go).
	warmed uint64
}

// has reports whether group g has a value.
func (e *extreme[T]) has(g int32) bool { return e.seen[g>>6]&(1<<(g&63)) != 0 }

func (e *extreme[T]) Reset(g int32) {
	e.unhold(g)
	var zero T
	e.v[g] = zero
	e.seen[g>>6] &^= 1 << (g & 63)
}

func (e *extreme[T]) Merge(g, h int32) {
	if !e.has(h) {
		return
	}
	if !e.has(g) || e.max && e.less(e.v[g], e.v[h]) || !e.max && e.less(e.v[h], e.v[g]) {
		e.set(g, e.v[h])
	}
}

func (e *extreme[T]) MergeFrom(g int32, src Acc, h int32) {
	o := src.(*extreme[T])
	if !o.has(h) {
		return
	}
	if !e.has(g) || e.max && e.less(e.v[g], o.v[h]) || !e.max && e.less(o.v[h], e.v[g]) {
		e.set(g, o.v[h])
	}
}

func (e *extreme[T]) MergeRows(g []int32, src Acc, h []int32) {
	for i, x := range g {
		e.MergeFrom(x, src, h[i])
	}
}

// set makes x group g's value, keeping held up to date.
func (e *extreme[T]) set(g int32, x T) {
	e.unhold(g)
	e.v[g] = x
	e.seen[g>>6] |= 1 << (g & 63)
	if e.bytes != nil {
		e.held += e.bytes(x)
	}
}

func (e *extreme[T]) unhold(g int32) {
	if e.bytes != nil && e.has(g) {
		e.held -= e.bytes(e.v[g])
	}
}

// Touch implements Toucher: the value's slot; seen is small enough to
// stay in the cache.
func (e *extreme[T]) Touch(groups []int32) uint64 { return touch(e.v, groups) }

func (e *extreme[T]) Size() int { return e.width + 1 }
func (e *extreme[T]) Heap() int { return e.held }

func (e *extreme[T]) Grow(n int) {
	e.v = growIn(e.mem, e.v, n)
	e.seen = growIn(e.mem, e.seen, (n+63)/64)
}

func (e *extreme[T]) freeCols() {
	freeIn(e.mem, e.v)
	freeIn(e.mem, e.seen)
	e.v, e.seen, e.held = nil, nil, 0
}

func (e *extreme[T]) Update(col arrow.Array, rows, groups []int32) {
	e.warmed += warm(e.v, len(groups))
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
		if !e.has(g) || e.max && e.less(e.v[g], x) || !e.max && e.less(x, e.v[g]) {
			e.set(g, x)
		}
	}
}

func extremeInt64(v []int64, seen []uint64, isMax bool, col []int64, rows, groups []int32) {
	for i, r := range rows {
		g, x := groups[i], col[r]
		w, bit := &seen[g>>6], uint64(1)<<(g&63)
		switch {
		case *w&bit == 0:
			v[g] = x
			*w |= bit
		case isMax && x > v[g], !isMax && x < v[g]:
			v[g] = x
		}
	}
}

func (e *extreme[T]) AppendTo(b array.Builder, groups []int32) error {
	e.warmed += warm(e.v, len(groups))
	for _, g := range groups {
		if !e.has(g) {
			b.AppendNull()
		} else {
			e.build(b, e.v[g])
		}
	}
	return nil
}

func (e *extreme[T]) Put(dst []byte, g int32) []byte {
	if !e.has(g) {
		return append(dst, 0)
	}
	return e.enc(append(dst, 1), e.v[g])
}

func (e *extreme[T]) Get(src []byte, g int32) ([]byte, error) {
	if len(src) == 0 {
		return nil, ErrCorrupt
	}
	if src[0] == 0 {
		e.Reset(g)
		return src[1:], nil
	}
	v, rest, err := e.dec(src[1:])
	if err != nil {
		return nil, err
	}
	e.set(g, v)
	return rest, nil
}

func newExtreme(in types.Type, isMax, retract bool) (Acc, error) {
	switch in.Kind {
	case types.Int, types.BigInt, types.Date, types.Timestamp, types.TimestampLTZ:
		return pick(values[int64]{width: 8, less: func(a, b int64) bool { return a < b }, read: readInt, build: putInt, enc: encInt, dec: decInt}, isMax, retract), nil
	case types.Float, types.Double:
		return pick(values[float64]{width: 8, less: lessFloat, read: readFloat, build: putFloat, enc: encFloat, dec: decFloat}, isMax, retract), nil
	case types.Boolean:
		return pick(values[bool]{width: 1, less: func(a, b bool) bool { return !a && b },
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
					return false, nil, ErrCorrupt
				}
				return src[0] == 1, src[1:], nil
			}}, isMax, retract), nil
	case types.String:
		return pick(values[string]{width: 16, bytes: func(v string) int { return len(v) },
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
					return "", nil, ErrCorrupt
				}
				return string(src[k : k+int(n)]), src[k+int(n):], nil
			}}, isMax, retract), nil
	case types.Decimal:
		return pick(values[decimal128.Num]{width: 16, less: decimal128.Num.Less,
			read:  func(a arrow.Array, i int) decimal128.Num { return a.(*array.Decimal128).Value(i) },
			build: func(b array.Builder, v decimal128.Num) { b.(*array.Decimal128Builder).Append(v) },
			enc:   putDec, dec: getDec}, isMax, retract), nil
	}
	return nil, fmt.Errorf("MIN/MAX does not accept %v", in)
}

// pick returns a MIN or MAX over values v: one that keeps every value
// with its multiplicity when it must retract, else one value per group.
func pick[T any](v values[T], isMax, retract bool) Acc {
	if retract {
		return &multiset[T]{values: v, max: isMax}
	}
	return &extreme[T]{values: v, max: isMax}
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
	panic(fmt.Sprintf("agg: readInt on %s", a.DataType()))
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
		panic(fmt.Sprintf("agg: putInt on %T", b))
	}
}

func encInt(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

func decInt(src []byte) (int64, []byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		return 0, nil, ErrCorrupt
	}
	return v, src[n:], nil
}

func encFloat(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

func decFloat(src []byte) (float64, []byte, error) {
	if len(src) < 8 {
		return 0, nil, ErrCorrupt
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
