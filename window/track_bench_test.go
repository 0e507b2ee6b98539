package window

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// BenchmarkAddTracked measures what checkpointing adds to Add (Track, and
// UseStore's key groups): COUNT(*) in one window over keys held groups (10
// 000, as many as Nexmark q12e's window holds, and 1M), batches of 4 096
// rows of random keys, every group made before the timing starts.
//
//	go test -run '^$' -bench AddTracked ./window
func BenchmarkAddTracked(b *testing.B) {
	for _, keys := range []int{10_000, 1_000_000} {
		var x uint64 = 1
		batches := make([]arrow.RecordBatch, 64)
		for i := range batches {
			rows := make([]row, 4096)
			for j := range rows {
				x = x*6364136223846793005 + 1442695040888963407
				rows[j] = row{k: int64(x >> 33 % uint64(keys))}
			}
			batches[i] = batchOf(rows)
		}
		all := make([]row, keys)
		for k := range all {
			all[k] = row{k: int64(k)}
		}
		for _, track := range []bool{false, true} {
			name := fmt.Sprintf("keys=%d/untracked", keys)
			if track {
				name = fmt.Sprintf("keys=%d/tracked", keys)
			}
			b.Run(name, func(b *testing.B) {
				a, err := New(Spec{Window: TumbleOf(3_600_000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1},
					Aggs: []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}}, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				if track {
					a.Track()
					a.UseStore(func() (*state.Store, error) { return nil, nil }, "w", 128, 0)
				}
				for lo := 0; lo < keys; lo += 4096 {
					bt := batchOf(all[lo:min(lo+4096, keys)])
					if _, err := a.Add(bt); err != nil {
						b.Fatal(err)
					}
					bt.Release()
				}
				i := 0
				for b.Loop() {
					if _, err := a.Add(batches[i%len(batches)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*4096), "ns/row")
			})
		}
		for _, bt := range batches {
			bt.Release()
		}
	}
}
