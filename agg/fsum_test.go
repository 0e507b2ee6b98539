package agg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

func float64s(v ...float64) arrow.Array {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	b.AppendValues(v, nil)
	return b.NewArray()
}

func float32s(v ...float32) arrow.Array {
	b := array.NewFloat32Builder(memory.DefaultAllocator)
	b.AppendValues(v, nil)
	return b.NewArray()
}

// exactSum is the reference: the sum of v in math/big at a precision that
// holds any sum of doubles exactly, rounded once to nearest even, with
// IEEE's NaN and infinity rules, and +0 for a zero sum.
func exactSum(v []float64) float64 {
	var nan, pinf, ninf bool
	s := new(big.Float).SetPrec(2300).SetMode(big.ToNearestEven)
	for _, x := range v {
		switch {
		case math.IsNaN(x):
			nan = true
		case math.IsInf(x, 1):
			pinf = true
		case math.IsInf(x, -1):
			ninf = true
		default:
			s.Add(s, new(big.Float).SetFloat64(x))
		}
	}
	switch {
	case nan || pinf && ninf:
		return math.NaN()
	case pinf:
		return math.Inf(1)
	case ninf:
		return math.Inf(-1)
	}
	f, _ := s.Float64()
	return f + 0 // -0 + 0 = +0
}

// randomDoubles returns n doubles of one of several kinds: exponents over
// the whole range, values of similar size that cancel, subnormals, values
// near the top of the range, and prices as a CSV file would hold them.
func randomDoubles(r *rand.Rand, n int) []float64 {
	v := make([]float64, 0, n)
	kind := r.IntN(5)
	for len(v) < n {
		var x float64
		switch kind {
		case 0: // any exponent
			x = math.Float64frombits(r.Uint64()&^(0x7ff<<52) | uint64(r.IntN(0x7ff))<<52)
		case 1: // similar magnitudes, some that cancel exactly
			x = math.Ldexp(r.Float64()+0.5, r.IntN(120)-60)
			if r.IntN(3) == 0 && len(v) > 0 {
				x = -v[r.IntN(len(v))]
			}
		case 2: // subnormals and the smallest normals
			x = math.Float64frombits(r.Uint64() & (1<<53 - 1))
		case 3: // near the top: sums pass the range and come back
			x = math.Ldexp(r.Float64()+1, 1023-r.IntN(3))
		default: // prices, and a few far away
			x = float64(r.IntN(1_000_000)) / 100
			switch r.IntN(20) {
			case 0:
				x *= 1e16
			case 1:
				x *= 1e-20
			}
		}
		if r.IntN(2) == 0 {
			x = -x
		}
		v = append(v, x)
	}
	return v
}

// sumInRandomOrder adds v in a random order, in batches of random sizes,
// into random groups of several accumulators, which it then merges in a
// random tree (Merge, MergeFrom, MergeRows, and state through Put and
// Get), and returns the result's bits.
func sumInRandomOrder(t *testing.T, r *rand.Rand, kind Kind, in types.Type, v []float64) uint64 {
	t.Helper()
	const groups = 4
	perm := r.Perm(len(v))
	accs := make([]Acc, 1+r.IntN(3))
	for i := range accs {
		accs[i] = sumOf(t, kind, in, groups)
	}
	for lo := 0; lo < len(perm); {
		hi := min(len(perm), lo+1+r.IntN(40))
		var col arrow.Array
		if in.Kind == types.Float {
			f := make([]float32, 0, hi-lo)
			for _, i := range perm[lo:hi] {
				f = append(f, float32(v[i]))
			}
			col = float32s(f...)
		} else {
			f := make([]float64, 0, hi-lo)
			for _, i := range perm[lo:hi] {
				f = append(f, v[i])
			}
			col = float64s(f...)
		}
		rows, gs := make([]int32, hi-lo), make([]int32, hi-lo)
		for i := range rows {
			rows[i], gs[i] = int32(i), int32(r.IntN(groups))
		}
		accs[r.IntN(len(accs))].Update(col, rows, gs)
		lo = hi
	}
	// Everything into group 0 of accs[0], in a random tree.
	for i := len(accs) - 1; i > 0; i-- {
		switch r.IntN(3) {
		case 0:
			accs[i-1].MergeRows([]int32{0, 1, 2, 3}, accs[i], []int32{3, 2, 1, 0})
		case 1:
			for g := range int32(groups) {
				accs[i-1].MergeFrom(g, accs[i], g)
			}
		default:
			var st [groups][]byte
			for g := range int32(groups) {
				st[g] = accs[i].Put(nil, g)
			}
			for g := range int32(groups) {
				if _, err := accs[i].Get(st[g], (g+1)%groups); err != nil {
					t.Fatal(err)
				}
			}
			for g := range int32(groups) {
				accs[i-1].MergeFrom(g, accs[i], g)
			}
		}
	}
	a := accs[0]
	for _, g := range r.Perm(groups - 1) {
		if r.IntN(2) == 0 {
			a.Merge(0, int32(g)+1)
			continue
		}
		st := a.Put(nil, 0)
		if _, err := a.Get(st, 0); err != nil {
			t.Fatal(err)
		}
		a.Merge(int32(g)+1, 0)
		a.Reset(0)
		a.Merge(0, int32(g)+1)
	}
	out, _ := ResultType(kind, in)
	b := array.NewBuilder(memory.DefaultAllocator, out.Arrow())
	defer b.Release()
	if err := a.AppendTo(b, []int32{0}); err != nil {
		t.Fatal(err)
	}
	switch res := b.NewArray().(type) {
	case *array.Float64:
		return math.Float64bits(res.Value(0))
	case *array.Float32:
		return uint64(math.Float32bits(res.Value(0)))
	}
	t.Fatalf("result of %v(%v) is no float", kind, in)
	return 0
}

// A DOUBLE sum is the exact sum rounded once, whatever the order of the
// values and the merges of partial sums: bit for bit the same in every
// order, and equal to math/big's.
func TestFloatSumAnyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 1000 {
		v := randomDoubles(r, 1+r.IntN(200))
		want := math.Float64bits(exactSum(v))
		for order := range 6 {
			got := sumInRandomOrder(t, r, Sum, types.TDouble, v)
			if got != want && !(math.IsNaN(math.Float64frombits(got)) && math.IsNaN(math.Float64frombits(want))) {
				t.Fatalf("trial %d order %d: sum of %d values = %v (%#x), want %v (%#x)", trial, order, len(v),
					math.Float64frombits(got), got, math.Float64frombits(want), want)
			}
		}
	}
}

// A FLOAT sum rounds the exact sum once to FLOAT; AVG divides the rounded
// sum, in any order.
func TestFloatSumFloat32AndAvg(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		v := randomDoubles(r, 1+r.IntN(100))
		for i := range v {
			v[i] = float64(float32(v[i]))
		}
		f := float32(exactSum(v))
		if !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) {
			e := new(big.Float).SetPrec(2300)
			for _, x := range v {
				e.Add(e, big.NewFloat(x))
			}
			f, _ = e.Float32()
			f += 0
		}
		want32 := uint64(math.Float32bits(f))
		wantAvg := math.Float64bits(exactSum(v) / float64(len(v)))
		for order := range 4 {
			if got := sumInRandomOrder(t, r, Sum, types.TFloat, v); got != want32 && !math.IsNaN(float64(f)) {
				t.Fatalf("trial %d order %d: FLOAT sum = %v, want %v", trial, order, math.Float32frombits(uint32(got)), f)
			}
			if got := sumInRandomOrder(t, r, Avg, types.TDouble, v); got != wantAvg && !math.IsNaN(math.Float64frombits(wantAvg)) {
				t.Fatalf("trial %d order %d: AVG = %v, want %v", trial, order, math.Float64frombits(got), math.Float64frombits(wantAvg))
			}
		}
	}
}

// sumResult returns group g's DOUBLE result as a string.
func sumResult(t *testing.T, ac Acc, g int32) string {
	t.Helper()
	s, err := result(t, ac, arrow.PrimitiveTypes.Float64, g)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// NaN and the infinities sum as IEEE addition does, in any order: NaN if
// there is a NaN or both infinities, else the infinity; a finite sum past
// the range is an infinity, one that comes back into it is not; a zero
// sum is +0, as the sum of -0 and 0 is; retracting a NaN or an infinity
// takes it back out.
func TestFloatSumSpecials(t *testing.T) {
	inf, max := math.Inf(1), math.MaxFloat64
	for _, tc := range []struct {
		v    []float64
		want string
	}{
		{[]float64{1, math.NaN(), 2}, "NaN"},
		{[]float64{inf, 1, inf}, "+Inf"},
		{[]float64{-inf, 1}, "-Inf"},
		{[]float64{inf, -inf}, "NaN"},
		{[]float64{max, max}, "+Inf"},
		{[]float64{-max, -max}, "-Inf"},
		{[]float64{max, max, -max}, "1.7976931348623157e+308"},
		{[]float64{math.Copysign(0, -1), math.Copysign(0, -1)}, "0"},
		{[]float64{1e16, 0.1, -1e16}, "0.1"},
		{[]float64{0.1, 0.2, 0.3, -0.6}, "2.7755575615628914e-17"},
		{[]float64{5e-324, 5e-324}, "1e-323"},
	} {
		for _, rev := range []bool{false, true} {
			v := append([]float64(nil), tc.v...)
			if rev {
				for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
					v[i], v[j] = v[j], v[i]
				}
			}
			ac := sumOf(t, Sum, types.TDouble, 2)
			ac.Update(float64s(v...), []int32{0, 1, 2, 3}[:len(v)], make([]int32, len(v)))
			if got := sumResult(t, ac, 0); got != tc.want {
				t.Errorf("SUM%v = %s, want %s", v, got, tc.want)
			}
		}
	}
	ac := retracting(t, Sum, types.TDouble)
	col := float64s(1.5, math.NaN(), inf, -inf, 2.25)
	all := []int32{0, 1, 2, 3, 4}
	ac.Update(col, all, make([]int32, 5))
	for i, want := range []string{"NaN", "NaN", "-Inf", "2.25", "(null)"} {
		ac.(Retracter).Retract(col, []int32{all[i]}, []int32{0})
		if got := sumResult(t, ac, 0); got != want {
			t.Errorf("after retracting %d values: %s, want %s", i+1, got, want)
		}
	}
	if ac.(*floatSumAcc).slots[0] != (fslot{}) {
		t.Errorf("a group without values keeps state %+v", ac.(*floatSumAcc).slots[0])
	}
}

// Retracting values returns the sum, and its state, exactly to what the
// remaining values give: Put writes the same bytes.
func TestFloatSumRetractExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 1000 {
		keep := randomDoubles(r, 1+r.IntN(50))
		gone := randomDoubles(r, 1+r.IntN(50))
		ac := retracting(t, Sum, types.TDouble)
		both := append(append([]float64(nil), keep...), gone...)
		r.Shuffle(len(both), func(i, j int) { both[i], both[j] = both[j], both[i] })
		ac.Update(float64s(both...), iota32(len(both)), make([]int32, len(both)))
		ac.(Retracter).Retract(float64s(gone...), iota32(len(gone)), make([]int32, len(gone)))
		ac.Update(float64s(keep...), iota32(len(keep)), ones(len(keep)))
		got, want := ac.Put(nil, 0), ac.Put(nil, 1)
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d: state after retraction %x, of the values kept %x", trial, got, want)
		}
		if s, w := sumResult(t, ac, 0), fmt.Sprint(exactSum(keep)); s != w && !(s == "NaN" && w == "NaN") {
			t.Fatalf("trial %d: sum after retraction %s, want %s", trial, s, w)
		}
	}
}

func iota32(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

func ones(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// State written before sums were exact (a count and a double) reads as a
// sum of that one value; a sum that is a double still writes so.
func TestFloatSumOldState(t *testing.T) {
	old := func(n int64, x float64) []byte {
		return binary.LittleEndian.AppendUint64(binary.AppendVarint(nil, n), math.Float64bits(x))
	}
	for _, tc := range []struct {
		n    int64
		sum  float64
		add  []float64
		want string
	}{
		{3, 1819.1299999999999, nil, "1819.1299999999999"},
		{3, 1819.1299999999999, []float64{0.01}, fmt.Sprint(exactSum([]float64{1819.1299999999999, 0.01}))},
		{2, 1e16, []float64{-1e16, 0.1}, "0.1"},
		{1, math.Inf(-1), []float64{1}, "-Inf"},
		{1, math.NaN(), []float64{1}, "NaN"},
		{0, 0, nil, "(null)"},
	} {
		ac := sumOf(t, Sum, types.TDouble, 1)
		st := append(old(tc.n, tc.sum), 0xee)
		rest, err := ac.Get(st, 0)
		if err != nil || !bytes.Equal(rest, []byte{0xee}) {
			t.Fatalf("old state %x: rest %x, %v", st, rest, err)
		}
		if len(tc.add) == 0 && !math.IsInf(tc.sum, 0) && !math.IsNaN(tc.sum) {
			if again := ac.Put(nil, 0); !bytes.Equal(again, st[:len(st)-1]) {
				t.Errorf("state %x writes back as %x", st[:len(st)-1], again)
			}
		}
		ac.Update(float64s(tc.add...), iota32(len(tc.add)), make([]int32, len(tc.add)))
		if got := sumResult(t, ac, 0); got != tc.want {
			t.Errorf("old sum %v + %v = %s, want %s", tc.sum, tc.add, got, tc.want)
		}
	}
	ac := sumOf(t, Sum, types.TDouble, 1)
	for _, bad := range [][]byte{{}, {0x02, 1, 2}, {0x01}, {0x01, 0x04}, {0x01, 0x02, 40}, {0x01, 0x01}} {
		if _, err := ac.Get(bad, 0); err == nil {
			t.Errorf("Get(%x) read a state", bad)
		}
	}
}

// An exact sum's state marks its format in its header byte: every state
// Put writes has the top bit clear, and Get refuses one with the bit set,
// as a later strand's format, with ErrLaterFormat rather than as corrupt
// or misread.
func TestFloatSumLaterFormat(t *testing.T) {
	for _, v := range [][]float64{{0.1, 0.2}, {1e16, 0.1}, {1e300, 1e-300}, {math.NaN(), 1}, {math.Inf(1)}} {
		ac := sumOf(t, Sum, types.TDouble, 1)
		ac.Update(float64s(v...), iota32(len(v)), make([]int32, len(v)))
		st := ac.Put(nil, 0)
		cnt, n := binary.Varint(st)
		if cnt >= 0 || n <= 0 || st[n]&fsumLater != 0 {
			t.Fatalf("sum of %v: state %x, want an exact sum's with a header below %#x", v, st, fsumLater)
		}
		later := bytes.Clone(st)
		later[n] |= fsumLater
		_, err := sumOf(t, Sum, types.TDouble, 1).Get(later, 0)
		if !errors.Is(err, ErrLaterFormat) || errors.Is(err, ErrCorrupt) {
			t.Errorf("Get(%x) of a later format: %v, want ErrLaterFormat", later, err)
		}
	}
}

// A sum that needs a full accumulator (values far apart, NaN) keeps it
// through Put and Get, merges and Reset.
func TestFloatSumWide(t *testing.T) {
	v := []float64{1e300, 1e-300, -1e300, 3, math.SmallestNonzeroFloat64}
	ac := sumOf(t, Sum, types.TDouble, 3)
	ac.Update(float64s(v...), iota32(len(v)), []int32{0, 0, 0, 0, 1})
	st := ac.Put(nil, 0)
	if _, err := ac.Get(st, 2); err != nil {
		t.Fatal(err)
	}
	ac.Merge(2, 1)
	want := fmt.Sprint(exactSum(v))
	if got := sumResult(t, ac, 2); got != want {
		t.Errorf("sum = %s, want %s", got, want)
	}
	if ac.Heap() == 0 {
		t.Error("a full accumulator is not counted in Heap")
	}
	for g := range int32(3) {
		ac.Reset(g)
	}
	if f := ac.(*floatSumAcc); len(f.free) != len(f.big) {
		t.Errorf("%d of %d full accumulators free after Reset", len(f.free), len(f.big))
	}
}

// A window whose top limb would overflow (thousands of values near 2^65
// in a window made for small ones) moves the sum to a full accumulator,
// exactly; NULLs are skipped and not counted.
func TestFloatSumWindowOverflow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var v []float64
	for i := range 5000 {
		x := math.Ldexp(1+r.Float64(), 65)
		if i%7 == 0 {
			x = float64(r.IntN(1000)) / 100
		}
		v = append(v, x)
	}
	ac := sumOf(t, Avg, types.TDouble, 1)
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	for _, x := range v {
		b.Append(x)
		b.AppendNull()
	}
	col := b.NewArray()
	ac.Update(col, iota32(col.Len()), make([]int32, col.Len()))
	want := fmt.Sprint(exactSum(v) / float64(len(v)))
	if got := sumResult(t, ac, 0); got != want {
		t.Errorf("AVG = %s, want %s", got, want)
	}
	if f := ac.(*floatSumAcc); len(f.big) != 1 {
		t.Errorf("%d full accumulators, want 1", len(f.big))
	}
}
