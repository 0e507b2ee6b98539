package exec

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/types"
)

// holder holds the watermark back by 10 and records the watermarks it
// and wmLog see.
type holder struct{ seen *[]int64 }

func (h holder) Process(b arrow.RecordBatch, out Emitter) error {
	b.Retain() // Emit hands the batch over; Process only borrows it
	return out.Emit(b)
}
func (h holder) OnWatermark(wm int64, _ Emitter) error { *h.seen = append(*h.seen, wm); return nil }
func (h holder) Held(wm int64) int64 {
	if wm == types.MaxWatermark {
		return wm
	}
	return wm - 10
}

type wmLog struct{ seen *[]int64 }

func (l wmLog) Process(b arrow.RecordBatch, out Emitter) error {
	b.Retain() // Emit hands the batch over; Process only borrows it
	return out.Emit(b)
}
func (l wmLog) OnWatermark(wm int64, _ Emitter) error { *l.seen = append(*l.seen, wm); return nil }

// TestChainHoldsWatermark: an operator that holds the watermark back
// sees the input's, the operators after it and the chain's output the
// held one; the end of time passes unchanged.
func TestChainHoldsWatermark(t *testing.T) {
	var at, after []int64
	specs := []OpSpec{
		{Name: "hold", New: func() (Operator, error) { return holder{&at}, nil }},
		{Name: "log", New: func() (Operator, error) { return wmLog{&after}, nil }},
	}
	c, err := newChain(&TaskContext{}, specs, nullOutput{})
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, wm := range []int64{100, 250, types.MaxWatermark} {
		held, err := c.watermark(wm)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, held)
	}
	want := []int64{90, 240, types.MaxWatermark}
	if !slices.Equal(at, []int64{100, 250, types.MaxWatermark}) || !slices.Equal(after, want) || !slices.Equal(out, want) {
		t.Fatalf("holder saw %v, the next operator %v, the output %v; want %v after the holder", at, after, out, want)
	}
}
