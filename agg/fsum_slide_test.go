package agg

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// A FLOAT or DOUBLE SUM or AVG that slides over its input, as a bounded
// OVER frame does (each row added, the row that leaves the frame taken
// back), holds at every row the state and the result of the frame's rows
// folded from empty: with NULLs, frames of NULLs only, NaN, the
// infinities, -0, and values that need a full accumulator.
func TestFloatSumSlideExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e308, -1e308, 5e-324}
	for trial := range 200 {
		n := 1 + r.IntN(60)
		v := randomDoubles(r, n)
		valid := make([]bool, n)
		for i := range v {
			valid[i] = r.IntN(4) != 0
			if r.IntN(8) == 0 {
				v[i] = specials[r.IntN(len(specials))]
			}
		}
		for _, in := range []types.Type{types.TDouble, types.TFloat} {
			col := floatColumn(in, v, valid)
			for _, kind := range []Kind{Sum, Avg} {
				width := 1 + r.IntN(8)
				ac := retracting(t, kind, in)
				for i := range n {
					ac.Update(col, []int32{int32(i)}, []int32{0})
					if i >= width {
						ac.(Retracter).Retract(col, []int32{int32(i - width)}, []int32{0})
					}
					lo := max(0, i-width+1)
					fresh := retracting(t, kind, in)
					for j := lo; j <= i; j++ {
						fresh.Update(col, []int32{int32(j)}, []int32{0})
					}
					out, _ := ResultType(kind, in)
					got, want := results(t, ac, out, []int32{0}), results(t, fresh, out, []int32{0})
					if got != want {
						t.Fatalf("trial %d %v(%v) rows %d..%d: sliding %s, folded %s", trial, kind, in, lo, i, got, want)
					}
					if gs, ws := ac.Put(nil, 0), fresh.Put(nil, 0); !bytes.Equal(gs, ws) {
						t.Fatalf("trial %d %v(%v) rows %d..%d: sliding state %x, folded %x", trial, kind, in, lo, i, gs, ws)
					}
				}
			}
		}
	}
}

// floatColumn is v as a column of type in (DOUBLE or FLOAT), NULL where
// valid is false.
func floatColumn(in types.Type, v []float64, valid []bool) arrow.Array {
	if in.Kind == types.Double {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		b.AppendValues(v, valid)
		return b.NewArray()
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	b := array.NewFloat32Builder(memory.DefaultAllocator)
	b.AppendValues(f, valid)
	return b.NewArray()
}
