package exec

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

var keySchema = types.Schema{{Name: "k", Type: types.TBigInt}}

func keyBatch(keys ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(keys, nil)
	a := b.NewArray()
	defer a.Release()
	return array.NewRecordBatch(keySchema.Arrow(), []arrow.Array{a}, int64(len(keys)))
}

// rowsOf renders a window aggregate's output rows as "key start end count".
func rowsOf(b arrow.RecordBatch) []string {
	var out []string
	for r := 0; r < int(b.NumRows()); r++ {
		out = append(out, fmt.Sprintf("%s %d %d %s", b.Column(0).ValueStr(r),
			b.Column(1).(*array.Timestamp).Value(r), b.Column(2).(*array.Timestamp).Value(r), b.Column(3).ValueStr(r)))
	}
	return out
}

type collect struct{ rows []string }

func (c *collect) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	c.rows = append(c.rows, rowsOf(b)...)
	return nil
}

func countPerKey(t *testing.T, size int64) Operator {
	t.Helper()
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}
	op, err := NewWindowAgg("w", window.Spec{Window: window.TumbleOf(size, 0), In: keySchema, TimeCol: -1, Keys: []int{0}, Aggs: aggs})
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// TestProcWindowInjectedClock drives a processing-time window with a clock
// the test sets: rows go to the window holding the clock when they arrive,
// whatever their content; a window fires once the clock reaches its end,
// on the next batch or tick; event-time watermarks fire nothing but the
// final one, which fires every window.
func TestProcWindowInjectedClock(t *testing.T) {
	var now int64
	op := countPerKey(t, 10)
	if err := op.(Opener).Open(&TaskContext{Alloc: memory.DefaultAllocator, Metrics: &Metrics{}, Now: func() int64 { return now }, BatchSize: 16}); err != nil {
		t.Fatal(err)
	}
	out := &collect{}
	step := func(what string, f func() error, want ...string) {
		t.Helper()
		out.rows = nil
		if err := f(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(out.rows) != fmt.Sprint(want) {
			t.Fatalf("%s: emitted %q, want %q", what, out.rows, want)
		}
	}
	push := func(keys ...int64) func() error {
		return func() error {
			b := keyBatch(keys...)
			defer b.Release()
			return op.Process(b, out)
		}
	}
	tick := func() error { return op.(ProcessingTimeHandler).OnProcessingTime(out) }
	wm := func(wm int64) func() error { return func() error { return op.(WatermarkHandler).OnWatermark(wm, out) } }

	now = 3
	step("rows at 3", push(2, 1, 2))
	now = 9 // the window's last millisecond: still open
	step("rows at 9", push(1))
	step("tick at 9", tick)
	step("event-time watermark", wm(1000))
	now = 10
	step("tick at 10 fires [0, 10)", tick, "1 0 10 2", "2 0 10 2")
	step("nothing left to fire", tick)
	now = 25
	step("rows at 25", push(7))
	now = 5 // a clock going back is read as standing still
	step("rows at 5 join [20, 30)", push(7))
	now = 31
	step("a batch at 31 fires [20, 30) first", push(8), "7 20 30 2")
	step("end of input fires the rest", wm(types.MaxWatermark), "8 30 40 1")
	if err := op.(Closer).Close(); err != nil {
		t.Fatal(err)
	}
}

// slowSource serves one batch of keys, then returns empty batches until
// released (or a timeout), as an idle unbounded source would.
type slowSource struct {
	keys     []int64
	release  chan struct{}
	timedOut atomic.Bool
}

func (s *slowSource) Schema() types.Schema     { return keySchema }
func (s *slowSource) Bounded() bool            { return true }
func (s *slowSource) Splits() ([]Split, error) { return []Split{{ID: "slow"}}, nil }
func (s *slowSource) Open(Split, Offset, ReadOptions) (SplitReader, error) {
	return &slowReader{s: s, deadline: time.Now().Add(5 * time.Second)}, nil
}

type slowReader struct {
	s        *slowSource
	sent     bool
	deadline time.Time
}

func (r *slowReader) Next() (arrow.RecordBatch, error) {
	if !r.sent {
		r.sent = true
		return keyBatch(r.s.keys...), nil
	}
	select {
	case <-r.s.release:
		return nil, io.EOF
	case <-time.After(time.Millisecond):
	}
	if time.Now().After(r.deadline) {
		r.s.timedOut.Store(true)
		return nil, io.EOF
	}
	return keyBatch(), nil
}
func (r *slowReader) Offset() Offset { return Offset{} }
func (r *slowReader) Close() error   { return nil }

// signalSink records rows and closes release at the first one.
type signalSink struct {
	memSink
	release chan struct{}
	once    atomic.Bool
}

func (s *signalSink) Open(types.Schema, int, int) (SinkWriter, error) {
	return &signalWriter{memWriter{s: &s.memSink}, s}, nil
}

type signalWriter struct {
	memWriter
	s *signalSink
}

func (w *signalWriter) Write(b arrow.RecordBatch) error {
	if err := w.memWriter.Write(b); err != nil {
		return err
	}
	if b.NumRows() > 0 && w.s.once.CompareAndSwap(false, true) {
		close(w.s.release)
	}
	return nil
}

// TestProcWindowFiresWhileIdle checks that the task's timer fires a
// processing-time window while its input is idle: the source does not end
// until the window's rows have reached the sink. The clock counts
// milliseconds from the start, so the batch's 10 ms window ends soon after
// it arrives, and only a timer tick can fire it.
func TestProcWindowFiresWhileIdle(t *testing.T) {
	start := time.Now()
	now := func() int64 { return time.Since(start).Milliseconds() }
	release := make(chan struct{})
	src := &slowSource{keys: []int64{1, 2, 1}, release: release}
	sink := &signalSink{release: release}
	op := countPerKey(t, 10)
	spec := op.(*ProcWindowAgg).Spec
	srcV := &Vertex{ID: 1, Name: "src", Parallelism: 1, Source: &SourceSpec{Table: "t", Source: src, Schema: keySchema, TimeCol: -1}}
	aggV := &Vertex{ID: 2, Name: "agg", Parallelism: 2, Inputs: []*Edge{{From: srcV, Kind: Hash, Keys: []int{0}}}, Sink: sink,
		Ops: []OpSpec{{Name: "agg", Out: spec.Out(), New: func() (Operator, error) { return countPerKey(t, 10), nil }}}}
	err := Run(context.Background(), &Graph{Vertices: []*Vertex{srcV, aggV}}, Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if src.timedOut.Load() {
		t.Fatal("the window did not fire while the source was idle")
	}
	// Rows are "key start end count "; the window depends on timing.
	var counts []string
	for _, r := range sink.rows {
		f := strings.Fields(r)
		counts = append(counts, f[0]+":"+f[3])
	}
	sort.Strings(counts)
	if fmt.Sprint(counts) != "[1:2 2:1]" {
		t.Errorf("rows %q, want counts 1:2 and 2:1", sink.rows)
	}
}
