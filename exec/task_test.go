package exec

import (
	"context"
	"runtime"
	"testing"
)

// TestInputTaskReceivesWithoutAllocating: a task reading two channels
// (a hash exchange from two subtasks) receives its elements without an
// allocation each; reflect.Select, which it used for more than one
// channel, allocates its cases and a copy of every element it receives.
// With three channels it still does (the count is checked to be large,
// so that the measure itself is shown to see allocations).
func TestInputTaskReceivesWithoutAllocating(t *testing.T) {
	const n = 2000
	for _, tc := range []struct {
		ins  int
		many bool
	}{{2, false}, {3, true}} {
		sink := &sinkOutput{w: &memWriter{s: &memSink{}}, metrics: &Metrics{}}
		c, err := newChain(&TaskContext{}, []OpSpec{{Name: "pass", New: func() (Operator, error) { return &tickCount{}, nil }}}, sink)
		if err != nil {
			t.Fatal(err)
		}
		chans := make([]chan Element, tc.ins)
		ins := make([]<-chan Element, tc.ins)
		for i := range chans {
			chans[i] = make(chan Element, n)
			ins[i] = chans[i]
			// The same watermark again and again: nothing downstream runs,
			// so what is counted is the receiving.
			for range n / tc.ins {
				chans[i] <- Element{Kind: ElemWatermark, Watermark: 7}
			}
			chans[i] <- Element{Kind: ElemEnd}
		}
		task := &inputTask{ctx: context.Background(), name: "t", ins: ins, chain: c, out: sink}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := task.run(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		allocs := after.Mallocs - before.Mallocs
		t.Logf("%d inputs: %d allocations for %d elements", tc.ins, allocs, n)
		if tc.many != (allocs > n) {
			t.Fatalf("%d inputs: %d allocations for %d elements", tc.ins, allocs, n)
		}
	}
}
