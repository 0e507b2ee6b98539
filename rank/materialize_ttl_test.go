package rank

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
)

// TestMaterializeTTL: a sink key whose rows expired (by event time) is
// forgotten: its next row is +I, and a retraction of a forgotten row is
// dropped.
func TestMaterializeTTL(t *testing.T) {
	m, err := NewMaterialize(MaterializeSpec{UID: "m", In: kvtSchema, Key: []int{0}, TTL: ttl10})
	if err != nil {
		t.Fatal(err)
	}
	got := runTTLAt(t, m, [][]change{
		{{exec.Insert, 1, 1, 0}},
		{{exec.Insert, 1, 2, 5}},  // key 1 now lives to 15
		{{exec.Delete, 1, 1, 0}},  // live: taken out, not the last row
		{{exec.Insert, 1, 3, 20}}, // expired: +I
		{{exec.Delete, 1, 3, 20}}, // swept at 40: dropped
	}, []int64{-1, 4, 4, 19, 40})
	const ts = "1970-01-01T00:00:00"
	wantLines(t, got, []string{"+I[1,1," + ts + "]", "+U[1,2," + ts + ".005]", "+I[1,3," + ts + ".02]"})
}

// TestMaterializeTTLProcTime: by processing time, the task's clock.
func TestMaterializeTTLProcTime(t *testing.T) {
	m, err := NewMaterialize(MaterializeSpec{UID: "m", In: kvtSchema, Key: []int{0}, TTL: exec.StateTTL{TTL: state.TTL{Millis: 10}, TimeCol: -1}})
	if err != nil {
		t.Fatal(err)
	}
	var now int64
	if err := m.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: 128, Parallelism: 1, Now: func() int64 { return now }}); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	out := &kinds{}
	for _, c := range []struct {
		now int64
		ch  change
	}{{0, change{exec.Insert, 1, 1, 0}}, {9, change{exec.Insert, 2, 1, 0}}, {10, change{exec.Delete, 1, 1, 0}}, {11, change{exec.Delete, 2, 1, 0}}, {12, change{exec.Insert, 1, 2, 0}}} {
		now = c.now
		b := changeBatch([]change{c.ch})
		if err := m.Process(b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	const ts = "1970-01-01T00:00:00"
	wantLines(t, out.lines, []string{"+I[1,1," + ts + "]", "+I[2,1," + ts + "]", "-D[2,1," + ts + "]", "+I[1,2," + ts + "]"})
}
