package window

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// BenchmarkFlushChanged measures Flush alone when 1% of a window's 1M
// groups changed since the last one, rewrites included, as the
// checkpoints of exec's BenchmarkWindowCheckpoint make it (COUNT(*) and
// SUM of a BIGINT key).
//
//	go test -run '^$' -bench FlushChanged ./window
func BenchmarkFlushChanged(b *testing.B) {
	const keys = 1_000_000
	a, err := New(Spec{Window: TumbleOf(3_600_000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1},
		Aggs: []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}, {Kind: agg.Sum, Arg: 1, Filter: -1, Out: types.TBigInt}}}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	a.Track()
	a.UseStore(func() (*state.Store, error) { return nil, nil }, "w", 128, 0)
	add := func(ks []int64) {
		rows := make([]row, len(ks))
		for i, k := range ks {
			rows[i] = row{k: k}
		}
		for lo := 0; lo < len(rows); lo += 4096 {
			bt := batchOf(rows[lo:min(lo+4096, len(rows))])
			if _, err := a.Add(bt); err != nil {
				b.Fatal(err)
			}
			bt.Release()
		}
	}
	all := make([]int64, keys)
	for i := range all {
		all[i] = int64(i)
	}
	add(all)
	var w discard
	a.Flush(&w)
	a.Flushed()
	r := rand.New(rand.NewPCG(1, 2))
	changed := make([]int64, keys/100)
	round := func() {
		for i := range changed {
			changed[i] = r.Int64N(keys)
		}
		add(changed)
	}
	for range 200 {
		round()
		a.Flush(&w)
		a.Flushed()
	}
	w = discard{}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		round()
		b.StartTimer()
		a.Flush(&w)
		a.Flushed()
	}
	b.ReportMetric(float64(w.bytes)/float64(b.N)/(1<<20), "MiB/op")
}

// discard is a Writer that counts what it is given.
type discard struct{ bytes int }

func (d *discard) Set(_ string, _ uint16, _ string, key, value []byte) {
	d.bytes += len(key) + len(value)
}
func (d *discard) Delete(string, uint16, string, []byte) {}
