package window

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
)

// BenchmarkWindowKinds folds rows (one per millisecond, 1000 keys) into a
// TUMBLE of 10 s and a HOP of 10 s sliding by 2 s, firing as the
// watermark follows: the aggregate's cost per row for each.
func BenchmarkWindowKinds(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 4096
	var batches []arrow.RecordBatch
	for i := 0; i < 64; i++ {
		rows := make([]row, n)
		for j := range rows {
			rows[j] = row{ts: int64(i*n + j), k: rng.Int64N(1000), v: rng.Int64N(100)}
		}
		batches = append(batches, batchOf(rows))
	}
	for _, w := range []Assigner{TumbleOf(10000, 0), {Kind: Hop, Size: 10000, Slide: 2000}} {
		b.Run(w.Kind.String(), func(b *testing.B) {
			aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}, {Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}}
			b.SetBytes(n * int64(len(batches)))
			for b.Loop() {
				a, err := New(Spec{Window: w, In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				emit := func(r arrow.RecordBatch) error { r.Release(); return nil }
				for i, bt := range batches {
					if _, err := a.Add(bt); err != nil {
						b.Fatal(err)
					}
					if err := a.Advance(int64(i*n)-2000, emit); err != nil {
						b.Fatal(err)
					}
				}
				if err := a.Advance(types.MaxWatermark, emit); err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
		})
	}
}
