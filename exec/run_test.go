package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// memSource serves fixed rows (ts, key) split into splits.
type memSource struct {
	splits [][][2]int64
	batch  int
}

var memSchema = types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}}

func (s *memSource) Schema() types.Schema { return memSchema }
func (s *memSource) Bounded() bool        { return true }
func (s *memSource) Splits() ([]Split, error) {
	out := make([]Split, len(s.splits))
	for i := range out {
		out[i] = Split{ID: fmt.Sprint("split-", i), Index: i}
	}
	return out, nil
}
func (s *memSource) Open(sp Split, off Offset, _ ReadOptions) (SplitReader, error) {
	return &memReader{rows: s.splits[sp.Index], pos: int(off.Pos), batch: s.batch}, nil
}

type memReader struct {
	rows  [][2]int64
	pos   int
	batch int
}

func (r *memReader) Next() (arrow.RecordBatch, error) {
	if r.pos >= len(r.rows) {
		return nil, io.EOF
	}
	end := min(r.pos+r.batch, len(r.rows))
	ts := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	k := array.NewInt64Builder(memory.DefaultAllocator)
	for _, row := range r.rows[r.pos:end] {
		ts.Append(arrow.Timestamp(row[0]))
		k.Append(row[1])
	}
	r.pos = end
	cols := []arrow.Array{ts.NewArray(), k.NewArray()}
	return array.NewRecordBatch(memSchema.Arrow(), cols, int64(len(cols[0].(*array.Timestamp).Values()))), nil
}
func (r *memReader) Offset() Offset { return Offset{Pos: int64(r.pos)} }
func (r *memReader) Close() error   { return nil }

// memSink collects rows as strings.
type memSink struct {
	mu     sync.Mutex
	rows   []string
	closed int
	abort  int
}

func (s *memSink) Open(types.Schema, int, int) (SinkWriter, error) { return &memWriter{s: s}, nil }

type memWriter struct{ s *memSink }

func (w *memWriter) Write(b arrow.RecordBatch) error {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	for r := 0; r < int(b.NumRows()); r++ {
		var row string
		for c := 0; c < int(b.NumCols()); c++ {
			row += fmt.Sprint(b.Column(c).ValueStr(r), " ")
		}
		w.s.rows = append(w.s.rows, row)
	}
	return nil
}
func (w *memWriter) Close() error { w.s.mu.Lock(); w.s.closed++; w.s.mu.Unlock(); return nil }
func (w *memWriter) Abort() error { w.s.mu.Lock(); w.s.abort++; w.s.mu.Unlock(); return nil }

// countGraph counts rows per key in 10 ms tumbling windows.
func countGraph(src Source, sink Sink, p int) *Graph {
	wm := &expr.Col{Index: 0, Name: "ts", T: types.TTimestamp}
	tumble := window.TumbleOf(10, 0)
	srcV := &Vertex{ID: 1, Name: "src", Parallelism: p, Source: &SourceSpec{Table: "t", Source: src, Schema: memSchema, Watermark: wm, TimeCol: 0, Fires: tumble.Fires}}
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}
	spec := window.Spec{Window: tumble, In: memSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}
	aggV := &Vertex{ID: 2, Name: "agg", Parallelism: p, Inputs: []*Edge{{From: srcV, Kind: Hash, Keys: []int{1}}}, Sink: sink,
		Ops: []OpSpec{{Name: "agg", Out: spec.Out(), New: func() (Operator, error) { return &WindowAgg{Spec: spec}, nil }}}}
	return &Graph{Vertices: []*Vertex{srcV, aggV}}
}

func TestRunWindowCountsAtAnyParallelism(t *testing.T) {
	// Split 0 has a late row (ts 3 after the split's watermark passed 9);
	// split 1 is in order.
	src := &memSource{batch: 2, splits: [][][2]int64{
		{{1, 1}, {2, 2}, {12, 1}, {3, 1}, {25, 2}},
		{{5, 1}, {15, 2}, {16, 2}},
	}}
	var want []string
	for _, p := range []int{1, 2, 3} {
		sink := &memSink{}
		m := &Metrics{}
		if err := Run(context.Background(), countGraph(src, sink, p), Options{Metrics: m, BatchSize: 2}); err != nil {
			t.Fatal(err)
		}
		sort.Strings(sink.rows)
		if want == nil {
			want = sink.rows
			exp := []string{
				"1 1970-01-01T00:00:00 1970-01-01T00:00:00.01 2 ",
				"1 1970-01-01T00:00:00.01 1970-01-01T00:00:00.02 1 ",
				"2 1970-01-01T00:00:00 1970-01-01T00:00:00.01 1 ",
				"2 1970-01-01T00:00:00.01 1970-01-01T00:00:00.02 2 ",
				"2 1970-01-01T00:00:00.02 1970-01-01T00:00:00.03 1 ",
			}
			if fmt.Sprint(want) != fmt.Sprint(exp) {
				t.Fatalf("p=%d rows:\n%q\nwant\n%q", p, want, exp)
			}
		} else if fmt.Sprint(sink.rows) != fmt.Sprint(want) {
			t.Errorf("p=%d rows differ:\n%q\nwant\n%q", p, sink.rows, want)
		}
		if m.LateRows.Load() != 1 || m.RowsRead.Load() != 8 || m.RowsWritten.Load() != 5 {
			t.Errorf("p=%d metrics: %s", p, m.Summary(0))
		}
		if sink.closed != p || sink.abort != 0 {
			t.Errorf("p=%d: %d writers closed, %d aborted", p, sink.closed, sink.abort)
		}
	}
}

// failOp fails on its first batch.
type failOp struct{}

var errBoom = errors.New("boom")

func (failOp) Process(arrow.RecordBatch, Emitter) error { return errBoom }

func TestRunFailureAbortsSinks(t *testing.T) {
	src := &memSource{batch: 1, splits: [][][2]int64{{{1, 1}, {2, 1}}}}
	sink := &memSink{}
	g := &Graph{Vertices: []*Vertex{{ID: 1, Name: "src", Parallelism: 2, Source: &SourceSpec{Table: "t", Source: src, Schema: memSchema, TimeCol: -1}, Sink: sink,
		Ops: []OpSpec{{Name: "fail", Out: memSchema, New: func() (Operator, error) { return failOp{}, nil }}}}}}
	err := Run(context.Background(), g, Options{})
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if sink.closed != 0 || sink.abort != 2 {
		t.Errorf("%d closed, %d aborted; want 0, 2", sink.closed, sink.abort)
	}
}

func TestKeyGroupsCoverSubtasks(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 128} {
		seen := make([]bool, n)
		last := 0
		for kg := 0; kg < DefaultMaxParallelism; kg++ {
			s := Subtask(kg, DefaultMaxParallelism, n)
			if s < last || s >= n {
				t.Fatalf("n=%d: key group %d -> subtask %d (ranges must be contiguous)", n, kg, s)
			}
			last = s
			seen[s] = true
		}
		for i, ok := range seen {
			if !ok {
				t.Errorf("n=%d: subtask %d owns no key group", n, i)
			}
		}
	}
}

func TestValidateRejectsBadGraphs(t *testing.T) {
	src := &memSource{}
	a := &Vertex{ID: 1, Name: "a", Parallelism: 2, Source: &SourceSpec{Source: src, TimeCol: -1}}
	b := &Vertex{ID: 2, Name: "b", Parallelism: 3, Inputs: []*Edge{{From: a, Kind: Forward}}, Sink: &memSink{}, Ops: []OpSpec{{Name: "x"}}}
	if err := Run(context.Background(), &Graph{Vertices: []*Vertex{a, b}}, Options{}); err == nil {
		t.Error("forward edge between parallelism 2 and 3 accepted")
	}
	if err := Run(context.Background(), &Graph{Vertices: []*Vertex{a}}, Options{}); err == nil {
		t.Error("vertex without sink or consumer accepted")
	}
}

func TestKeyGroupsMatchesSubtask(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 7, 128} {
		for s := 0; s < n; s++ {
			lo, hi := KeyGroups(s, DefaultMaxParallelism, n)
			for kg := lo; kg <= hi; kg++ {
				if Subtask(kg, DefaultMaxParallelism, n) != s {
					t.Fatalf("n=%d: key group %d in range of %d but routed to %d", n, kg, s, Subtask(kg, DefaultMaxParallelism, n))
				}
			}
			if s == 0 && lo != 0 || s == n-1 && hi != DefaultMaxParallelism-1 {
				t.Fatalf("n=%d: ranges do not cover all key groups", n)
			}
		}
	}
}
