package memseg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// keyCase is a random multi-column key schema with two rows.
type keyCase struct {
	cols []KeyCol
	a, b []val
}

func rowCompare(cols []KeyCol, a, b []val) int {
	for i, c := range cols {
		if r := sqlCompare(a[i], b[i], c.Order); r != 0 {
			return r
		}
	}
	return 0
}

func encodeRow(dst []byte, cols []KeyCol, row []val) []byte {
	for i, c := range cols {
		dst = encode(dst, row[i], c.Order)
	}
	return dst
}

// checkPair checks the full encoding and the prefix of two rows against
// the model.
func checkPair(t *testing.T, cols []KeyCol, a, b []val) {
	t.Helper()
	ka, kb := encodeRow(nil, cols, a), encodeRow(nil, cols, b)
	want := rowCompare(cols, a, b)
	if got := sign(bytes.Compare(ka, kb)); got != want {
		t.Fatalf("cols %v\na %+v\nb %+v\nbytes.Compare = %d, SQL = %d\nka %x\nkb %x", cols, a, b, got, want, ka, kb)
	}
	l, err := NewLayout(cols...)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := make([]byte, l.Size()), make([]byte, l.Size())
	ta, err := l.Prefix(pa, ka)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := l.Prefix(pb, kb)
	if err != nil {
		t.Fatal(err)
	}
	pc := sign(bytes.Compare(pa, pb))
	if pc != 0 && pc != want {
		t.Fatalf("cols %v\na %+v\nb %+v\nprefix compare = %d, SQL = %d\npa %x\npb %x", cols, a, b, pc, want, pa, pb)
	}
	if pc == 0 && ta != tb {
		t.Fatalf("equal prefixes %x with truncated %v, %v", pa, ta, tb)
	}
	if pc == 0 && !ta && want != 0 {
		t.Fatalf("cols %v\na %+v\nb %+v\nequal untruncated prefixes %x for unequal keys", cols, a, b, pa)
	}
}

func TestKeyOrderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range scaled(200000, 50000) {
		cols := make([]KeyCol, 1+r.IntN(3))
		for i := range cols {
			cols[i] = KeyCol{Type: allTypes[r.IntN(len(allTypes))], Order: randOrder(r), Width: r.IntN(12)}
		}
		a, b := make([]val, len(cols)), make([]val, len(cols))
		for i, c := range cols {
			a[i], b[i] = randVal(r, c.Type), randVal(r, c.Type)
			if r.IntN(3) == 0 {
				b[i] = a[i] // equal columns make later columns decide
			}
		}
		checkPair(t, cols, a, b)
	}
}

func TestKeyEdgeOrder(t *testing.T) {
	o := Order{}
	var fs [][]byte
	for _, f := range []float64{math.Inf(-1), -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, 1, math.Inf(1), math.NaN()} {
		fs = append(fs, AppendFloat64(nil, f, o))
	}
	for i := 1; i < len(fs); i++ {
		c := bytes.Compare(fs[i-1], fs[i])
		if i == 4 && c != 0 || i != 4 && c >= 0 {
			t.Errorf("float step %d: compare %d", i, c)
		}
	}
	if !bytes.Equal(AppendFloat64(nil, math.NaN(), o), AppendFloat64(nil, -math.NaN(), o)) {
		t.Error("NaNs encode differently")
	}
	// NULLs stay where NullsLast puts them whatever the direction.
	for _, desc := range []bool{false, true} {
		first, last := Order{Desc: desc}, Order{Desc: desc, NullsLast: true}
		if bytes.Compare(AppendNull(nil, first), AppendInt64(nil, math.MinInt64, first)) >= 0 ||
			bytes.Compare(AppendNull(nil, first), AppendInt64(nil, math.MaxInt64, first)) >= 0 {
			t.Errorf("desc=%v: NULLS FIRST not first", desc)
		}
		if bytes.Compare(AppendNull(nil, last), AppendInt64(nil, math.MinInt64, last)) <= 0 ||
			bytes.Compare(AppendNull(nil, last), AppendInt64(nil, math.MaxInt64, last)) <= 0 {
			t.Errorf("desc=%v: NULLS LAST not last", desc)
		}
	}
}

func TestKeyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		ty := allTypes[r.IntN(len(allTypes))]
		v, o := randVal(r, ty), randOrder(r)
		trailer := []byte{0x00, 0xff, 0x01}
		k := append(encode(nil, v, o), trailer...)
		var (
			got  val
			rest []byte
			err  error
		)
		got.t = ty
		switch ty {
		case Bool:
			got.b, got.null, rest, err = DecodeBool(k, o)
		case Float32:
			var f float32
			f, got.null, rest, err = DecodeFloat32(k, o)
			got.f = float64(f)
		case Float64:
			got.f, got.null, rest, err = DecodeFloat64(k, o)
		case Decimal128:
			got.i, got.lo, got.null, rest, err = DecodeDecimal128(k, o)
		case String, Bytes:
			got.s, got.null, rest, err = DecodeString([]byte{}, k, o)
		default:
			got.i, got.null, rest, err = DecodeInt64(k, o)
		}
		if err != nil {
			t.Fatalf("%v %+v %+v: %v", ty, v, o, err)
		}
		if !bytes.Equal(rest, trailer) {
			t.Fatalf("%v %+v: rest %x", ty, v, rest)
		}
		if sqlCompare(v, got, o) != 0 || v.null != got.null {
			t.Fatalf("%v %+v %+v: decoded %+v", ty, v, o, got)
		}
		if (ty == Float64 || ty == Float32) && !v.null && v.f == 0 && math.Signbit(got.f) {
			t.Fatalf("-0.0 decoded with its sign")
		}
	}
}

func TestKeyCorrupt(t *testing.T) {
	o := Order{}
	bad := [][]byte{nil, {0x07}, {markValue}, {markValue, 1, 2}, {markNullLast}}
	for _, k := range bad {
		if _, _, _, err := DecodeInt64(k, o); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeInt64(%x) err = %v", k, err)
		}
	}
	for _, k := range [][]byte{{markValue, 'a'}, {markValue, 'a', 0}, {markValue, 0, 7}} {
		if _, _, _, err := DecodeString(nil, k, o); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeString(%x) err = %v", k, err)
		}
	}
	if _, _, _, err := DecodeBool([]byte{markValue, 2}, o); !errors.Is(err, ErrCorrupt) {
		t.Errorf("DecodeBool err = %v", err)
	}
	l, _ := NewLayout(KeyCol{Type: Int64}, KeyCol{Type: String})
	p := make([]byte, l.Size())
	for _, k := range [][]byte{AppendInt64(nil, 1, o), append(AppendInt64(nil, 1, o), markValue, 'x'),
		AppendString(AppendInt64(nil, 1, o), []byte("x"), o)[:12], append(AppendString(AppendInt64(nil, 1, o), nil, o), 0)} {
		if _, err := l.Prefix(p, k); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Prefix(%x) err = %v", k, err)
		}
	}
	if _, err := NewLayout(KeyCol{Type: String, Width: 255}); err == nil {
		t.Error("width 255 accepted")
	}
	if _, err := NewLayout(KeyCol{}); err == nil {
		t.Error("invalid type accepted")
	}
}

func TestHashVectors(t *testing.T) {
	// XXH64 with seed 0, from the reference implementation.
	for s, want := range map[string]uint64{
		"":    0xef46db3751d8e999,
		"a":   0xd24ec4f1a98c6e5b,
		"abc": 0x44bc2cf5ad770999,
		"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789": 0xf80e7b96315afffa,
	} {
		if got := Hash([]byte(s)); got != want {
			t.Errorf("Hash(%q) = %#x, want %#x", s, got, want)
		}
	}
}

// valFromBytes turns fuzzer bytes into a value of type t.
func valFromBytes(t Type, b []byte) val {
	v := val{t: t}
	if len(b) == 0 {
		v.null = true
		return v
	}
	var w [16]byte
	copy(w[:], b[1:])
	u := binary.LittleEndian.Uint64(w[:])
	switch t {
	case Bool:
		v.b = b[0]&1 == 1
	case Int32:
		v.i = int64(int32(u))
	case Float32:
		v.f = float64(math.Float32frombits(uint32(u)))
	case Float64:
		v.f = math.Float64frombits(u)
	case Decimal128:
		v.i, v.lo = int64(u), binary.LittleEndian.Uint64(w[8:])
	case String, Bytes:
		v.s = b[1:]
	default:
		v.i = int64(u)
	}
	return v
}

// FuzzKeyOrder checks sign(bytes.Compare(enc(a), enc(b))) == sign(sqlCompare(a, b))
// on two-column keys, so that a string's terminator is followed by more key.
func FuzzKeyOrder(f *testing.F) {
	f.Add(uint8(6), uint8(2), uint8(0), []byte("xab"), []byte("xa"), []byte{1, 2}, []byte{1, 3})
	f.Add(uint8(4), uint8(6), uint8(5), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0x80}, []byte{1}, []byte("x\x00"), []byte("x"))
	f.Add(uint8(6), uint8(6), uint8(3), []byte("x\x00\x00"), []byte("x\x00"), []byte("x"), []byte("x\xff"))
	f.Add(uint8(3), uint8(5), uint8(9), []byte{1, 0, 0, 0, 0x80}, []byte{1, 0, 0, 0, 0}, []byte{}, []byte{1})
	f.Fuzz(func(t *testing.T, t1, t2, flags uint8, a1, b1, a2, b2 []byte) {
		cols := []KeyCol{
			{Type: allTypes[int(t1)%len(allTypes)], Order: Order{Desc: flags&1 != 0, NullsLast: flags&2 != 0}, Width: int(flags>>4) % 12},
			{Type: allTypes[int(t2)%len(allTypes)], Order: Order{Desc: flags&4 != 0, NullsLast: flags&8 != 0}, Width: 3},
		}
		a := []val{valFromBytes(cols[0].Type, a1), valFromBytes(cols[1].Type, a2)}
		b := []val{valFromBytes(cols[0].Type, b1), valFromBytes(cols[1].Type, b2)}
		checkPair(t, cols, a, b)
	})
}
