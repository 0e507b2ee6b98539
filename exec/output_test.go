package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/memseg"
)

// exchangeBatch makes n rows of a BIGINT, an INT and a STRING column,
// some NULL, keys repeating as skewed keys do.
func exchangeBatch(r *rand.Rand, n int) arrow.RecordBatch {
	al := memory.DefaultAllocator
	i64, i32, str := array.NewInt64Builder(al), array.NewInt32Builder(al), array.NewStringBuilder(al)
	for range n {
		if r.IntN(20) == 0 {
			i64.AppendNull()
			i32.AppendNull()
			str.AppendNull()
			continue
		}
		k := r.IntN(50)
		i64.Append(int64(k) - 25)
		i32.Append(int32(k * 3))
		str.Append(fmt.Sprint("k", k))
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "c", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{i64.NewArray(), i32.NewArray(), str.NewArray()}, int64(n))
}

// TestHashExchangeParts sends batches through a hash exchange to three
// receivers and checks that each row goes to the one owning its key
// group, once, with memseg.Hash of its key, for keys of one integer-like
// column (hashed by value), of a string and of two columns; that a
// receiver of every row gets the batch without a row list; and that one
// receiver, or a key of no columns, gets the batch as it is; with the
// default number of key groups (a power of two) and another.
func TestHashExchangeParts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, maxPar := range []int{128, 100} { // a mask, and a division
		for _, keys := range [][]int{{0}, {1}, {2}, {0, 2}, {}} {
			for _, n := range []int{3, 1} {
				for _, rows := range []int{1, 7, 500} {
					t.Run(fmt.Sprintf("maxpar%d/keys%v/out%d/rows%d", maxPar, keys, n, rows), func(t *testing.T) {
						chans := make([]chan Element, n)
						outs := make([]chan<- Element, n)
						for i := range chans {
							chans[i] = make(chan Element, 4)
							outs[i] = chans[i]
						}
						o := &chanOutput{ctx: context.Background(), kind: Hash, outs: outs, keys: keys, maxPar: maxPar, alloc: memory.DefaultAllocator}
						b := exchangeBatch(r, rows)
						b.Retain()
						defer b.Release()
						if err := o.Emit(b); err != nil {
							t.Fatal(err)
						}
						var enc memseg.KeyEncoder
						if err := enc.Reset(b, keys); err != nil {
							t.Fatal(err)
						}
						seen := make([]int, rows)
						for ti, ch := range chans {
							for len(ch) > 0 {
								e := <-ch
								if e.Batch != b {
									t.Fatalf("receiver %d got another batch", ti)
								}
								if e.Part == nil {
									if n > 1 && len(keys) > 0 {
										t.Fatalf("receiver %d: no Part", ti)
									}
									for i := range seen {
										seen[i]++
									}
									e.Batch.Release()
									continue
								}
								sel := e.Part.Rows
								if sel == nil {
									sel = make([]int32, rows)
									for i := range sel {
										sel[i] = int32(i)
									}
								} else if len(sel) == rows {
									t.Errorf("receiver %d: a Part listing every row", ti)
								}
								if !slices.Equal(e.Part.Keys, keys) || len(e.Part.Hashes) != len(sel) {
									t.Fatalf("receiver %d: Part of keys %v, %d hashes for %d rows", ti, e.Part.Keys, len(e.Part.Hashes), len(sel))
								}
								for i, row := range sel {
									key := enc.Append(nil, int(row))
									h := memseg.Hash(key)
									if e.Part.Hashes[i] != h {
										t.Fatalf("row %d: hash %#x, want %#x", row, e.Part.Hashes[i], h)
									}
									if want := Subtask(int(h%uint64(maxPar)), maxPar, n); want != ti {
										t.Fatalf("row %d went to %d, its key group's owner is %d", row, ti, want)
									}
									seen[row]++
								}
								e.Part.Free()
								e.Batch.Release()
							}
						}
						for row, c := range seen {
							if c != 1 {
								t.Fatalf("row %d delivered %d times", row, c)
							}
						}
					})
				}
			}
		}
	}
}
