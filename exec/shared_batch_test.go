package exec

import (
	"context"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// TestSharedBatchReceivers: a hash exchange shares one batch among its
// receivers, which read it at once in their own goroutines. A batch cut
// from a larger one (NewSlice) has columns whose NULL count Arrow
// computes, and caches, on first use: two receivers asking for it at
// once would race (go test -race), so the exchange computes the counts
// before it shares the batch.
func TestSharedBatchReceivers(t *testing.T) {
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}
	al := memory.DefaultAllocator
	ts := array.NewTimestampBuilder(al, &arrow.TimestampType{Unit: arrow.Millisecond})
	k, v := array.NewInt64Builder(al), array.NewInt64Builder(al)
	for i := range 400 {
		if i%37 == 0 {
			ts.AppendNull()
		} else {
			ts.Append(arrow.Timestamp(i % 50))
		}
		k.Append(int64(i % 23))
		if i%5 == 0 {
			v.AppendNull()
		} else {
			v.Append(int64(i))
		}
	}
	whole := array.NewRecordBatch(schema.Arrow(), []arrow.Array{ts.NewArray(), k.NewArray(), v.NewArray()}, 400)
	defer whole.Release()
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}, {Kind: agg.Sum, Arg: 2, Filter: -1, Out: types.TBigInt}}
	spec := window.Spec{Window: window.TumbleOf(10, 0), In: schema, TimeCol: 0, Keys: []int{1}, Aggs: aggs, BatchSize: 64}
	for range 20 {
		const n = 2
		chans := make([]chan Element, n)
		outs := make([]chan<- Element, n)
		for i := range chans {
			chans[i] = make(chan Element, 1)
			outs[i] = chans[i]
		}
		o := &chanOutput{ctx: context.Background(), kind: Hash, outs: outs, keys: []int{1}, maxPar: 128, alloc: al}
		if err := o.Emit(whole.NewSlice(3, 390)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, ch := range chans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := <-ch
				defer e.Batch.Release()
				a, err := window.New(spec, al)
				if err != nil {
					errs[i] = err
					return
				}
				defer a.Release()
				if e.Part != nil {
					defer e.Part.Free()
					_, errs[i] = a.AddRows(e.Batch, e.Part.Rows, e.Part.Hashes)
					return
				}
				_, errs[i] = a.Add(e.Batch)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}
