package memseg

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// writeRow writes vals with w (reset first) and returns the row bytes.
func writeRow(w *RowWriter, vals []val) []byte {
	w.Reset()
	for i, v := range vals {
		if v.null {
			continue
		}
		switch v.t {
		case Bool:
			w.SetBool(i, v.b)
		case Int32, Date32:
			w.SetInt32(i, int32(v.i))
		case Float32:
			w.SetFloat32(i, float32(v.f))
		case Float64:
			w.SetFloat64(i, v.f)
		case Decimal128:
			w.SetDecimal128(i, v.i, v.lo)
		case String, Bytes:
			w.SetBytes(i, v.s)
		default:
			w.SetInt64(i, v.i)
		}
	}
	return w.Bytes()
}

func readVal(r Row, i int) val {
	v := val{t: r.Schema().Type(i), null: r.IsNull(i)}
	switch v.t {
	case Bool:
		v.b = r.Bool(i)
	case Int32, Date32:
		v.i = int64(r.Int32(i))
	case Float32:
		v.f = float64(r.Float32(i))
	case Float64:
		v.f = r.Float64(i)
	case Decimal128:
		v.i, v.lo = r.Decimal128(i)
	case String, Bytes:
		v.s = r.Bytes(i)
	default:
		v.i = r.Int64(i)
	}
	return v
}

func sameVal(a, b val) bool {
	if a.null || b.null {
		return a.null == b.null
	}
	if a.t == Float32 || a.t == Float64 {
		return math.Float64bits(a.f) == math.Float64bits(b.f) || math.IsNaN(a.f) && math.IsNaN(b.f)
	}
	return a.b == b.b && a.i == b.i && a.lo == b.lo && bytes.Equal(a.s, b.s)
}

func TestRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 3, 10, 63, 64, 65, 130} {
		types := make([]Type, n)
		for i := range types {
			types[i] = allTypes[r.IntN(len(allTypes))]
		}
		s, err := NewSchema(types...)
		if err != nil {
			t.Fatal(err)
		}
		w := NewRowWriter(s)
		for range 200 {
			vals := make([]val, n)
			for i, ty := range types {
				vals[i] = randVal(r, ty)
			}
			b := append([]byte(nil), writeRow(w, vals)...)
			row := s.Row(b)
			for i, v := range vals {
				got := readVal(row, i)
				if !sameVal(v, got) {
					t.Fatalf("%d fields, field %d (%v): wrote %+v, read %+v", n, i, types[i], v, got)
				}
				o := randOrder(r)
				if k, want := row.AppendKey(nil, i, o), encode(nil, v, o); !bytes.Equal(k, want) {
					t.Fatalf("field %d (%v): AppendKey %x, want %x", i, types[i], k, want)
				}
			}
		}
	}
	if _, err := NewSchema(Type(0)); err == nil {
		t.Error("invalid type accepted")
	}
}

func TestRowSetNullAgain(t *testing.T) {
	s, _ := NewSchema(Int64, String)
	w := NewRowWriter(s)
	w.SetInt64(0, 42)
	w.SetNull(0)
	w.SetBytes(1, []byte("inline"))
	row := s.Row(w.Bytes())
	if !row.IsNull(0) || row.Int64(0) != 0 || row.IsNull(1) || string(row.Bytes(1)) != "inline" {
		t.Fatalf("row %x", w.Bytes())
	}
}
