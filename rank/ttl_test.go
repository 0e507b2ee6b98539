package rank

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
)

// kinds collects what an operator emits as kind[k,v,t] lines.
type kinds struct{ lines []string }

func (c *kinds) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, col := range b.Columns() {
			vals = append(vals, col.ValueStr(r))
		}
		c.lines = append(c.lines, exec.KindOf(b, r).String()+"["+strings.Join(vals, ",")+"]")
	}
	return nil
}

// TestNormalizeTTL: a ChangelogNormalize whose key's row expired (by the
// rows' event time) starts the key again with +I and drops a deletion of
// it; each write keeps its key live for the TTL.
func TestNormalizeTTL(t *testing.T) {
	n, err := NewNormalize(NormalizeSpec{UID: "normalize-ttl", In: kvtSchema, Key: []int{0},
		TTL: exec.StateTTL{TTL: state.TTL{Millis: 10}, TimeCol: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: 128, Parallelism: 1}); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	out := &kinds{}
	for _, cs := range [][]change{
		{{exec.Insert, 1, 1, 0}, {exec.Insert, 2, 1, 0}},
		{{exec.Insert, 1, 1, 8}},  // key 1 now lives to 18
		{{exec.Insert, 1, 2, 15}}, // key 1 live: -U/+U
		{{exec.Insert, 2, 2, 15}}, // key 2 expired at 10: +I again
		{{exec.Delete, 1, 2, 40}}, // key 1 expired at 25: nothing to delete
	} {
		b := changeBatch(cs)
		if err := n.Process(b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	want := []string{"+I[1,1,1970-01-01T00:00:00]", "+I[2,1,1970-01-01T00:00:00]",
		"-U[1,1,1970-01-01T00:00:00]", "+U[1,1,1970-01-01T00:00:00.008]",
		"-U[1,1,1970-01-01T00:00:00.008]", "+U[1,2,1970-01-01T00:00:00.015]",
		"+I[2,2,1970-01-01T00:00:00.015]"}
	if !slices.Equal(out.lines, want) {
		t.Fatalf("emitted\n  %s\nwant\n  %s", strings.Join(out.lines, "\n  "), strings.Join(want, "\n  "))
	}
}
