package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkHashExchange splits batches of 4096 rows of a BIGINT key (as
// a window aggregate's GROUP BY user_id) between two receivers, which
// free what they get.
func BenchmarkHashExchange(b *testing.B) {
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 4096 {
		bld.Append(int64(i*7919) % 10000)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{bld.NewArray()}, 4096)
	defer batch.Release()
	chans := []chan Element{make(chan Element, 1), make(chan Element, 1)}
	o := &chanOutput{ctx: context.Background(), kind: Hash, outs: []chan<- Element{chans[0], chans[1]}, keys: []int{0}, maxPar: DefaultMaxParallelism, alloc: memory.DefaultAllocator}
	b.ReportAllocs()
	for b.Loop() {
		batch.Retain()
		if err := o.Emit(batch); err != nil {
			b.Fatal(err)
		}
		for _, ch := range chans {
			e := <-ch
			e.Part.Free()
			e.Batch.Release()
		}
	}
}
