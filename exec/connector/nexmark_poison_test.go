package connector

import (
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
)

// TestNexmarkPoisoned: the generator writes every byte of the buffers it
// takes unzeroed (expr.NewBufferNoZero), so its batches out of garbage
// filled memory (the poison debug mode) equal those out of Go's zeroed
// memory, in the flat shapes and Flink's, with NULL rows spread out.
func TestNexmarkPoisoned(t *testing.T) {
	all := map[string][]string{
		"person":  {"id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"},
		"auction": {"id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"},
		"bid":     {"auction", "bidder", "price", "channel", "url", "dateTime", "extra"},
	}
	tabs := []Table{
		nexTable("person", "events.num", "3000"),
		nexTable("auction", "events.num", "3000"),
		nexTable("bid", "events.num", "3000"),
		flinkTable(all),
		flinkTable(map[string][]string{"bid": all["bid"]}),
	}
	defer expr.SetAllocPoison(expr.SetAllocPoison(true))
	pool := exec.NewPoolAlloc()
	for _, tab := range tabs {
		src := must(NewSource(tab))
		for _, sp := range must(src.Splits()) {
			read := func(a memory.Allocator) []arrow.RecordBatch {
				r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 77, Alloc: a}))
				defer r.Close()
				var out []arrow.RecordBatch
				for {
					rec, err := r.Next()
					if errors.Is(err, io.EOF) {
						return out
					}
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, rec)
				}
			}
			want, got := read(memory.NewGoAllocator()), read(pool)
			if len(want) != len(got) {
				t.Fatalf("%s %s: %d batches, want %d", tab.Name, sp.ID, len(got), len(want))
			}
			for i := range want {
				if err := array.ValidateRecordFull(got[i]); err != nil {
					t.Fatalf("%s %s batch %d: %v", tab.Name, sp.ID, i, err)
				}
				if !array.RecordEqual(want[i], got[i]) {
					t.Fatalf("%s %s batch %d differs out of poisoned memory:\n%v\nwant\n%v", tab.Name, sp.ID, i, got[i], want[i])
				}
				want[i].Release()
				got[i].Release()
			}
		}
	}
}
