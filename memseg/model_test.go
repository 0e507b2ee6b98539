package memseg

import (
	"bytes"
	"cmp"
	"math"
	"math/rand/v2"
)

// val is a test-side SQL value of any Type, the model the encodings are
// checked against.
type val struct {
	t    Type
	null bool
	b    bool
	i    int64 // Int32, Int64, Date32, Timestamp; Decimal128 high word
	lo   uint64
	f    float64 // Float64, Float32 (exactly representable)
	s    []byte
}

// sqlCompare is SQL ordering of two values of one column, written
// independently of the encoding: NULLs by o.NullsLast in either direction,
// -0.0 = 0.0, NaN greatest and equal to itself.
func sqlCompare(a, b val, o Order) int {
	if a.null || b.null {
		switch {
		case a.null && b.null:
			return 0
		case a.null == o.NullsLast:
			return 1
		default:
			return -1
		}
	}
	var c int
	switch a.t {
	case Bool:
		c = cmp.Compare(b2i(a.b), b2i(b.b))
	case Float32, Float64:
		an, bn := math.IsNaN(a.f), math.IsNaN(b.f)
		switch {
		case an || bn:
			c = cmp.Compare(b2i(an), b2i(bn))
		case a.f < b.f:
			c = -1
		case a.f > b.f:
			c = 1
		}
	case Decimal128:
		c = cmp.Compare(a.i, b.i)
		if c == 0 {
			c = cmp.Compare(a.lo, b.lo)
		}
	case String, Bytes:
		c = bytes.Compare(a.s, b.s)
	default:
		c = cmp.Compare(a.i, b.i)
	}
	if o.Desc {
		c = -c
	}
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func encode(dst []byte, v val, o Order) []byte {
	if v.null {
		return AppendNull(dst, o)
	}
	switch v.t {
	case Bool:
		return AppendBool(dst, v.b, o)
	case Float32:
		return AppendFloat32(dst, float32(v.f), o)
	case Float64:
		return AppendFloat64(dst, v.f, o)
	case Decimal128:
		return AppendDecimal128(dst, v.i, v.lo, o)
	case String, Bytes:
		return AppendString(dst, v.s, o)
	}
	return AppendInt64(dst, v.i, o)
}

var (
	edgeInts   = []int64{0, 1, -1, 2, -2, 255, 256, -256, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	edgeFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, math.Inf(1), math.Inf(-1), math.NaN(),
		-math.NaN(), math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000001),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 1e300, -1e-300}
	edgeStrings = []string{"", "\x00", "\x00\x00", "\x00\x01", "a", "a\x00", "a\x00b", "a\x01", "ab", "abc",
		"\xff", "\xff\xff", "\xff\x00", "é", "日本語", "日本", "😀", "abcdefgh", "abcdefghi", "abcdefgh\x00",
		"abcdefghij", "abcdefgg\xff\xff\xff", "a long string that is longer than every prefix width"}
)

// randVal returns a value of type t, often an edge case, sometimes NULL.
func randVal(r *rand.Rand, t Type) val {
	v := val{t: t}
	if r.IntN(8) == 0 {
		v.null = true
		return v
	}
	edge := r.IntN(3) == 0
	switch t {
	case Bool:
		v.b = r.IntN(2) == 1
	case Int32, Date32:
		if edge {
			v.i = int64(int32(edgeInts[r.IntN(len(edgeInts))]))
		} else {
			v.i = int64(int32(r.Uint32())) >> r.IntN(32)
		}
	case Int64, Timestamp:
		if edge {
			v.i = edgeInts[r.IntN(len(edgeInts))]
		} else {
			v.i = int64(r.Uint64()) >> r.IntN(64)
		}
	case Float64:
		if edge {
			v.f = edgeFloats[r.IntN(len(edgeFloats))]
		} else {
			v.f = math.Float64frombits(r.Uint64())
		}
	case Float32:
		if edge {
			v.f = float64(float32(edgeFloats[r.IntN(len(edgeFloats))]))
		} else {
			v.f = float64(math.Float32frombits(r.Uint32()))
		}
	case Decimal128:
		if edge {
			v.i = edgeInts[r.IntN(len(edgeInts))]
			v.lo = uint64(edgeInts[r.IntN(len(edgeInts))])
		} else {
			v.i = int64(r.Uint64()) >> r.IntN(64)
			v.lo = r.Uint64()
		}
	case String, Bytes:
		if edge {
			v.s = []byte(edgeStrings[r.IntN(len(edgeStrings))])
		} else {
			v.s = make([]byte, r.IntN(20))
			for i := range v.s {
				v.s[i] = "\x00\x01ab\xff"[r.IntN(5)]
			}
		}
	}
	return v
}

var allTypes = []Type{Bool, Int32, Int64, Float32, Float64, Decimal128, String, Bytes, Date32, Timestamp}

// randOrder returns one of the four orders.
func randOrder(r *rand.Rand) Order {
	return Order{Desc: r.IntN(2) == 1, NullsLast: r.IntN(2) == 1}
}

func sign(c int) int { return cmp.Compare(c, 0) }
