package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/types"
)

// twoLog is a two-input operator that logs every call it receives.
type twoLog struct {
	mu  sync.Mutex
	log []string
}

func (o *twoLog) add(format string, a ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log = append(o.log, fmt.Sprintf(format, a...))
}

func (o *twoLog) lines() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.log)
}

func (o *twoLog) Process(arrow.RecordBatch, Emitter) error {
	return fmt.Errorf("Process called on a two-input operator")
}

func (o *twoLog) ProcessInput(side Side, b arrow.RecordBatch, out Emitter) error {
	o.add("%s batch %d", side, b.Column(0).(interface{ Value(int) int64 }).Value(0))
	return nil
}

func (o *twoLog) OnInputWatermark(side Side, wm int64, _ Emitter) error {
	o.add("%s watermark %d", side, wm)
	return nil
}

func (o *twoLog) OnWatermark(wm int64, _ Emitter) error {
	if wm == types.MaxWatermark {
		o.add("watermark max")
	} else {
		o.add("watermark %d", wm)
	}
	return nil
}

func (o *twoLog) EndInput(side Side, _ Emitter) error {
	o.add("%s end", side)
	return nil
}

func (o *twoLog) Finish(Emitter) error { o.add("finish"); return nil }

func (o *twoLog) Snapshot(id int64) (OperatorSnapshot, error) {
	o.add("snapshot %d", id)
	return OperatorSnapshot{UID: "two"}, nil
}

// nullOutput is a task's output that drops everything.
type nullOutput struct{}

func (nullOutput) Emit(b arrow.RecordBatch) error { b.Release(); return nil }
func (nullOutput) watermark(int64) error          { return nil }
func (nullOutput) barrier(checkpoint.Barrier) (*checkpoint.SinkState, error) {
	return nil, nil
}
func (nullOutput) end() error { return nil }

func (nullOutput) idle() error { return nil }

// twoTask runs a task headed by op over two channels of the left input
// and one of the right, unbuffered so that each send returns once the
// task has taken the element: the test controls the order exactly. With
// atLeastOnce set it checkpoints without alignment.
func twoTask(t *testing.T, op *twoLog, atLeastOnce bool) (l0, l1, r chan Element, done chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	spec := OpSpec{Name: "two", TwoInput: true, New: func() (Operator, error) { return op, nil }}
	c, err := newChain(&TaskContext{}, []OpSpec{spec}, nullOutput{})
	if err != nil {
		t.Fatal(err)
	}
	l0, l1, r = make(chan Element), make(chan Element), make(chan Element)
	g := &Graph{Vertices: []*Vertex{{Name: "two", Parallelism: 1}}}
	coord := newCoordinator(ctx, &Checkpointing{AtLeastOnce: atLeastOnce}, g, DefaultMaxParallelism, func(error) {})
	task := &inputTask{ctx: ctx, name: "two", ins: []<-chan Element{l0, l1, r}, sides: []Side{Left, Left, Right},
		chain: c, out: nullOutput{}, coord: coord}
	done = make(chan error, 1)
	go func() { done <- task.run() }()
	return l0, l1, r, done
}

func batchOf(t *testing.T, v int64) Element {
	return Element{Kind: ElemBatch, Batch: int64Batch(t, v)}
}

func wmOf(wm int64) Element { return Element{Kind: ElemWatermark, Watermark: wm} }

var endElem = Element{Kind: ElemEnd}

// TestTwoInputIdentityWatermarksAndEnds: each batch arrives with its side,
// each side's watermark is the minimum of its channels, the operator's the
// minimum of both sides, and each side's end is reported on its own.
func TestTwoInputIdentityWatermarksAndEnds(t *testing.T) {
	op := &twoLog{}
	l0, l1, r, done := twoTask(t, op, false)
	l0 <- batchOf(t, 1)
	r <- batchOf(t, 2)
	l1 <- batchOf(t, 3)
	l0 <- wmOf(10) // left is still held back by l1
	r <- wmOf(20)  // right's own watermark; the operator's waits for left
	l1 <- wmOf(5)  // left 5, the operator 5
	l1 <- wmOf(30) // left 10 (l0), the operator 10
	r <- endElem   // the right side ends: the operator's watermark is left's
	l0 <- wmOf(40) // left 30, the operator 30
	l0 <- endElem
	l1 <- endElem
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{
		"left batch 1", "right batch 2", "left batch 3",
		"right watermark 20",
		"left watermark 5", "watermark 5",
		"left watermark 10", "watermark 10",
		"right end",
		"left watermark 30", "watermark 30",
		"left end", "watermark max", "finish",
	}
	if got := op.lines(); !slices.Equal(got, want) {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTwoInputAlignsBarriersAcrossBoth: in exactly-once mode a left
// channel that delivered barrier 1 is not read until the other left
// channel and the right input have delivered it too, so the snapshot
// holds no row after the barrier; in at-least-once mode it is read on.
func TestTwoInputAlignsBarriersAcrossBoth(t *testing.T) {
	for _, alo := range []bool{false, true} {
		t.Run(fmt.Sprintf("atLeastOnce=%v", alo), func(t *testing.T) {
			op := &twoLog{}
			l0, l1, r, done := twoTask(t, op, alo)
			bar := Element{Kind: ElemBarrier, Barrier: checkpoint.Barrier{ID: 1}}
			l0 <- bar
			sent := make(chan struct{})
			go func() {
				l0 <- batchOf(t, 100) // after the barrier on l0
				close(sent)
			}()
			if alo {
				<-sent // read at once: nothing blocks the channel
			}
			l1 <- batchOf(t, 1)
			l1 <- bar
			r <- batchOf(t, 2)
			r <- bar
			<-sent
			l0 <- endElem
			l1 <- endElem
			r <- endElem
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			got := op.lines()
			snap, after := slices.Index(got, "snapshot 1"), slices.Index(got, "left batch 100")
			if snap < 0 || after < 0 {
				t.Fatalf("calls: %v", got)
			}
			if !alo && after < snap {
				t.Fatalf("exactly-once: a row after the barrier was processed before the snapshot: %v", got)
			}
			if alo && after > snap {
				t.Fatalf("at-least-once: the channel was blocked: %v", got)
			}
			if i := slices.Index(got, "right batch 2"); i > snap {
				t.Fatalf("a row before the right barrier is not in the snapshot: %v", got)
			}
		})
	}
}

func TestValidateTwoInputVertices(t *testing.T) {
	src := &Vertex{Name: "src", Parallelism: 1, Source: &SourceSpec{}}
	two := OpSpec{Name: "join", TwoInput: true}
	one := OpSpec{Name: "calc"}
	for _, c := range []struct {
		name string
		v    *Vertex
		want string
	}{
		{"a two-input head with one input", &Vertex{Name: "v", Parallelism: 1, Inputs: []*Edge{{From: src}}, Ops: []OpSpec{two}, Sink: &memSink{}}, "needs two"},
		{"a two-input head with three", &Vertex{Name: "v", Parallelism: 1, Inputs: []*Edge{{From: src}, {From: src}, {From: src}}, Ops: []OpSpec{two}, Sink: &memSink{}}, "needs two"},
		{"a two-input operator chained second", &Vertex{Name: "v", Parallelism: 1, Inputs: []*Edge{{From: src}, {From: src}}, Ops: []OpSpec{two, two}, Sink: &memSink{}}, "not first"},
	} {
		src.Ops = []OpSpec{one}
		err := validate(&Graph{Vertices: []*Vertex{src, c.v}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestTwoInputCountsSubtaskRowsIn: the rows into a two-input head count
// on its subtask as on its vertex, from either side, as a one-input
// head's do (the dashboard shows both).
func TestTwoInputCountsSubtaskRowsIn(t *testing.T) {
	m := newVertexMetrics(&Vertex{Name: "two", Parallelism: 1})
	spec := OpSpec{Name: "two", TwoInput: true, New: func() (Operator, error) { return &twoLog{}, nil }}
	c, err := newChain(&TaskContext{vertex: m}, []OpSpec{spec}, nullOutput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []Side{Left, Right, Left} {
		if err := c.pushInput(side, int64Batch(t, 7)); err != nil {
			t.Fatal(err)
		}
	}
	if in, sub := m.RowsIn.Load(), m.Subtasks[0].RowsIn.Load(); in != 3 || sub != in {
		t.Fatalf("rows in: vertex %d, subtask %d, want 3 both", in, sub)
	}
}
