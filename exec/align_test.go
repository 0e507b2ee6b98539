package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// TestAlignGroup: a group spans the subtasks of every source in it; a
// subtask waits only when more than its drift ahead of the least
// watermark of those that hold the group back, which the done, the idle
// and those without a watermark do not; the least's holder never waits.
func TestAlignGroup(t *testing.T) {
	src := func(p int, a Alignment) *Vertex {
		return &Vertex{Parallelism: p, Source: &SourceSpec{Align: a}}
	}
	a, b, other, none := src(2, Alignment{"g", 100}), src(1, Alignment{"g", 300}), src(2, Alignment{"h", 100}), src(3, Alignment{})
	al := alignments(&Graph{Vertices: []*Vertex{a, none, b, other, {Parallelism: 2}}})
	if len(al) != 3 || len(al[a]) != 2 || len(al[b]) != 1 || len(al[other]) != 2 || al[none] != nil {
		t.Fatalf("aligners %v", al)
	}
	if al[a][0].g != al[b][0].g || al[a][0].g == al[other][0].g || len(al[a][0].g.wm) != 3 {
		t.Fatal("groups not by name across vertices")
	}
	a0, a1, b0 := al[a][0], al[a][1], al[b][0]
	if a0.ahead() || a0.self == a1.self || a1.self == b0.self {
		t.Fatal("a subtask without a watermark waits, or two share a place")
	}
	a0.hold(1000)
	if a0.ahead() {
		t.Fatal("the only subtask with a watermark waits for itself")
	}
	a1.hold(types.MinWatermark) // none yet: holds no one back
	if a0.ahead() || a1.ahead() {
		t.Fatal("a subtask without a watermark holds the group back, or waits")
	}
	b0.hold(950)
	if a0.ahead() || b0.ahead() {
		t.Fatal("50 ms apart with drifts 100 and 300: one waits")
	}
	b0.hold(850)
	if !a0.ahead() || b0.ahead() {
		t.Fatal("150 ms ahead with a drift of 100 does not wait, or the least's holder waits")
	}
	al[other][0].hold(0) // another group holds this one back in nothing
	a1.hold(1250)
	if !a1.ahead() || !a0.ahead() || b0.ahead() {
		t.Fatal("a second subtask 400 ms ahead does not wait")
	}
	b0.hold(holdsNone) // done, or idle
	if a0.ahead() || !a1.ahead() {
		t.Fatal("a subtask done still holds the group back")
	}
	a0.hold(holdsNone)
	if a1.ahead() {
		t.Fatal("the last subtask reading waits")
	}
	// Far-apart watermarks do not overflow the difference.
	a0.hold(types.MinWatermark + 1)
	a1.hold(types.MaxWatermark - 1)
	if !a1.ahead() || a0.ahead() {
		t.Fatal("watermarks at the ends of time compare wrong")
	}
}

// speedSource is a memSource whose split i's reader pauses pause[i]
// before each batch, and which records each split's progress (spread).
type speedSource struct {
	memSource
	pause []time.Duration
	rec   *spread
}

func (s *speedSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.memSource.Open(sp, off, ro)
	return &speedReader{SplitReader: r, pause: s.pause[sp.Index], split: sp.Index, rec: s.rec}, err
}

type speedReader struct {
	SplitReader
	pause time.Duration
	split int
	rec   *spread
	n     int
}

func (r *speedReader) Next() (arrow.RecordBatch, error) {
	if r.n++; r.n == 2 {
		r.rec.started()
	}
	time.Sleep(r.pause)
	b, err := r.SplitReader.Next()
	r.rec.read(r.split, b, err)
	return b, err
}

// spread records how far apart in event time the splits' readers are:
// for each batch read, how far its last time is ahead of the last time
// read of each other split still being read. Every reader waits at its
// second batch until every one has read its first, so that each has a
// watermark before any gets ahead: one without holds no one back.
type spread struct {
	mu    sync.Mutex
	start sync.WaitGroup
	cur   []int64 // per split, unset before its first batch
	ended []bool
	max   int64
}

func newSpread(splits int) *spread {
	s := &spread{cur: make([]int64, splits), ended: make([]bool, splits)}
	for i := range s.cur {
		s.cur[i] = unset
	}
	s.start.Add(splits)
	return s
}

func (s *spread) started() {
	s.start.Done()
	s.start.Wait()
}

func (s *spread) read(split int, b arrow.RecordBatch, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if errors.Is(err, io.EOF) {
		s.ended[split] = true
		return
	}
	if err != nil || b.NumRows() == 0 {
		return
	}
	ts := b.Column(0).(*array.Timestamp)
	s.cur[split] = int64(ts.Value(ts.Len() - 1))
	for o, c := range s.cur {
		if o != split && c != unset && !s.ended[o] {
			s.max = max(s.max, s.cur[split]-c)
		}
	}
}

// steadyRows are n rows per split, 10 ms apart in time from 0, over 5
// keys.
func steadyRows(splits, n int) [][][2]int64 {
	rows := make([][][2]int64, splits)
	for s := range rows {
		for i := range n {
			rows[s] = append(rows[s], [2]int64{int64(i * 10), int64(i % 5)})
		}
	}
	return rows
}

// alignedGraph counts rows per key in 10 ms tumbling windows over the
// union of srcs, each a source of parallelism p in alignment a (the zero
// Alignment: none).
func alignedGraph(sink Sink, a Alignment, p int, srcs ...Source) *Graph {
	wm := &expr.Col{Index: 0, Name: "ts", T: types.TTimestamp}
	tumble := window.TumbleOf(10, 0)
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}
	spec := window.Spec{Window: tumble, In: memSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}
	aggV := &Vertex{ID: len(srcs) + 1, Name: "agg", Parallelism: p, Sink: sink, SinkUID: "sink-out",
		Ops: []OpSpec{{Name: "agg", UID: "agg", Fingerprint: spec.Fingerprint(), Out: spec.Out(),
			New: func() (Operator, error) { return &WindowAgg{Spec: spec, UID: "agg"}, nil }}}}
	g := &Graph{}
	for i, src := range srcs {
		v := &Vertex{ID: i + 1, Name: fmt.Sprint("src", i), Parallelism: p,
			Source: &SourceSpec{UID: fmt.Sprint("source-", i), Table: "t", Source: src, Schema: memSchema, Watermark: wm, TimeCol: 0, Fires: tumble.Fires, Align: a}}
		g.Vertices = append(g.Vertices, v)
		aggV.Inputs = append(aggV.Inputs, &Edge{From: v, Kind: Hash, Keys: []int{1}})
	}
	g.Vertices = append(g.Vertices, aggV)
	return g
}

// TestAlignDriftBound reads three splits at very different speeds, a
// subtask each: aligned, no reader gets more than the drift and one
// batch ahead of another still reading, and the counts are those of a
// run without alignment, in which the fast readers run far ahead.
func TestAlignDriftBound(t *testing.T) {
	const (
		p     = 3
		n     = 600
		batch = 10
		drift = 200
		step  = batch * 10 // how far one batch moves a split's time
	)
	pause := []time.Duration{time.Millisecond, 0, 200 * time.Microsecond}
	run := func(a Alignment) (*memSink, int64) {
		rec := newSpread(p)
		sink := &memSink{}
		src := &speedSource{memSource{batch: batch, splits: steadyRows(p, n)}, pause, rec}
		if err := Run(context.Background(), alignedGraph(sink, a, p, src), Options{BatchSize: batch}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(sink.rows)
		return sink, rec.max
	}
	free, freeSpread := run(Alignment{})
	aligned, spread := run(Alignment{Group: "g", MaxDrift: drift})
	if spread > drift+step {
		t.Errorf("aligned, a reader got %d ms ahead of another, more than the drift %d and a batch %d", spread, drift, step)
	}
	if freeSpread <= drift+step {
		t.Errorf("without alignment the readers were at most %d ms apart: the test shows nothing", freeSpread)
	}
	if len(free.rows) == 0 || !slices.Equal(free.rows, aligned.rows) {
		t.Fatalf("aligned %d rows, unaligned %d: they differ", len(aligned.rows), len(free.rows))
	}
	t.Logf("spread: aligned %d ms, unaligned %d ms", spread, freeSpread)
}

// gateSource is a memSource whose split i, where gate[i] is set, reads
// empty batches until that channel is closed: before its rows if
// before[i], else after them. ended[i] is closed when split i's reader
// ends, and last[i] is the last time it read. With start set, each
// reader waits at its second batch until every one has read its first
// (spread).
type gateSource struct {
	memSource
	gate   []chan struct{}
	before []bool
	ended  []chan struct{}
	last   []atomic.Int64
	start  *sync.WaitGroup
}

func newGateSource(rows [][][2]int64, batch int) *gateSource {
	s := &gateSource{memSource: memSource{batch: batch, splits: rows}, gate: make([]chan struct{}, len(rows)),
		before: make([]bool, len(rows)), ended: make([]chan struct{}, len(rows)), last: make([]atomic.Int64, len(rows))}
	for i := range s.ended {
		s.ended[i] = make(chan struct{})
		s.last[i].Store(unset)
	}
	return s
}

func (s *gateSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.memSource.Open(sp, off, ro)
	return &gateReader{SplitReader: r, s: s, i: sp.Index}, err
}

type gateReader struct {
	SplitReader
	s     *gateSource
	i     int
	ended bool
	n     int
}

// shut reports whether the split's gate holds it at this batch.
func (r *gateReader) shut() bool {
	g := r.s.gate[r.i]
	if g == nil {
		return false
	}
	select {
	case <-g:
		return false
	case <-time.After(time.Millisecond):
		return true
	}
}

func (r *gateReader) Next() (arrow.RecordBatch, error) {
	if r.n++; r.n == 2 && r.s.start != nil {
		r.s.start.Done()
		r.s.start.Wait()
	}
	if r.s.before[r.i] && r.shut() {
		return emptyMemBatch(), nil
	}
	b, err := r.SplitReader.Next()
	if errors.Is(err, io.EOF) {
		if !r.s.before[r.i] && r.shut() {
			return emptyMemBatch(), nil
		}
		if !r.ended {
			r.ended = true
			close(r.s.ended[r.i])
		}
	}
	if err == nil && b.NumRows() > 0 {
		ts := b.Column(0).(*array.Timestamp)
		r.s.last[r.i].Store(int64(ts.Value(ts.Len() - 1)))
	}
	return b, err
}

// alignReference is the output of the graph over rows unaligned and
// ungated.
func alignReference(t *testing.T, rows [][][2]int64, p int) []string {
	t.Helper()
	sink := &memSink{}
	if err := Run(context.Background(), alignedGraph(sink, Alignment{}, p, &memSource{batch: 10, splits: rows}), Options{BatchSize: 10}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sink.rows)
	return sink.rows
}

// TestAlignNoStall: subtasks that read no rows for a while do not stall
// the group: a split whose rows come only after the others have ended
// (no watermark until then), a split that stops having rows and goes
// idle (table.exec.source.idle-timeout), an empty split and a subtask
// without splits. Each waits for the others to end, so if these held
// the group back, the job would never end.
func TestAlignNoStall(t *testing.T) {
	long := steadyRows(1, 600)[0]
	short := long[:10]
	for _, c := range []struct {
		name   string
		rows   [][][2]int64
		p      int
		idle   time.Duration
		before bool
	}{
		{"no watermark yet", [][][2]int64{long, long}, 2, 0, true},
		{"idle", [][][2]int64{short, long}, 2, 20 * time.Millisecond, false},
		{"empty split and none", [][][2]int64{nil, short, long}, 4, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := alignReference(t, c.rows, c.p)
			src := newGateSource(c.rows, 10)
			// The first split waits for the last to end.
			src.gate[0], src.before[0] = make(chan struct{}), c.before
			go func() { <-src.ended[len(c.rows)-1]; close(src.gate[0]) }()
			g := alignedGraph(&memSink{}, Alignment{Group: "g", MaxDrift: 100}, c.p, src)
			g.Vertices[0].Source.IdleTimeout = c.idle
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := Run(ctx, g, Options{BatchSize: 10}); err != nil {
				t.Fatalf("the job stalled: %v", err)
			}
			got := g.Vertices[1].Sink.(*memSink).rows
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%d rows, unaligned %d", len(got), len(want))
			}
		})
	}
}

// TestAlignCheckpointsWhileWaiting: a subtask waiting for a slower one
// of its group answers checkpoints meanwhile, and the output is the
// unaligned one's.
func TestAlignCheckpointsWhileWaiting(t *testing.T) {
	rows := steadyRows(2, 600)
	rows[0] = rows[0][:10] // then held until the test lets it end
	want := alignReference(t, rows, 2)
	src := newGateSource(rows, 10)
	src.gate[0] = make(chan struct{})
	src.start = &sync.WaitGroup{}
	src.start.Add(2)
	cp := spCheckpointing(t)
	cp.Interval = 2 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sink := &memSink{}
	j, err := Start(ctx, alignedGraph(sink, Alignment{Group: "g", MaxDrift: 100}, 2, src), Options{Checkpoint: cp, BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	for src.last[1].Load() < 190 {
		time.Sleep(time.Millisecond)
	}
	start := j.Checkpoints().Completed
	for j.Checkpoints().Completed < start+3 {
		select {
		case <-ctx.Done():
			t.Fatal("no checkpoint completes while a subtask waits")
		case <-time.After(time.Millisecond):
		}
	}
	// Split 0 is at 90: split 1 waits at most the drift and a batch on.
	if last := src.last[1].Load(); last > 90+100+100 {
		t.Fatalf("split 1 read up to %d, past the drift", last)
	}
	close(src.gate[0])
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sink.rows)
	if !slices.Equal(sink.rows, want) {
		t.Fatalf("%d rows, unaligned %d", len(sink.rows), len(want))
	}
}

// TestAlignTwoSources: two sources of one group, each of two subtasks
// at different speeds, feed one operator (as two tables feed a join),
// checkpointing all along: the job ends with the unaligned output.
func TestAlignTwoSources(t *testing.T) {
	rows := steadyRows(2, 400)
	cp := spCheckpointing(t)
	cp.Interval = time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sink := &memSink{}
	slow := &speedSource{memSource{batch: 10, splits: rows}, []time.Duration{time.Millisecond, 300 * time.Microsecond}, newSpread(2)}
	fast := &speedSource{memSource{batch: 10, splits: rows}, []time.Duration{0, 100 * time.Microsecond}, newSpread(2)}
	j, err := Start(ctx, alignedGraph(sink, Alignment{Group: "g", MaxDrift: 50}, 2, slow, fast), Options{Checkpoint: cp, BatchSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if j.Checkpoints().Completed == 0 {
		t.Error("no checkpoint completed")
	}
	ref := &memSink{}
	if err := Run(context.Background(), alignedGraph(ref, Alignment{}, 2, &memSource{batch: 10, splits: rows}, &memSource{batch: 10, splits: rows}), Options{BatchSize: 10}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sink.rows)
	slices.Sort(ref.rows)
	if !slices.Equal(sink.rows, ref.rows) {
		t.Fatalf("%d rows, unaligned %d", len(sink.rows), len(ref.rows))
	}
}

// TestAlignWithPacer: an InOrder source's subtask 1, early in time but
// ahead in the splits, waits for subtask 0 (pacer), which, late in time,
// is ahead of subtask 1 in its alignment group. Waiting for its
// source's others, subtask 1 holds no one back, so the two do not wait
// for each other for ever.
func TestAlignWithPacer(t *testing.T) {
	// Subtask 0 reads splits 0, 2, 4 (from 10 s on), subtask 1 reads
	// splits 1, 3, 5 (from 0 s on).
	rows := make([][][2]int64, 6)
	for s := range rows {
		base := int64(10000*(1-s%2) + 1000*s)
		for i := range 100 {
			rows[s] = append(rows[s], [2]int64{base + int64(i), int64(i % 7)})
		}
	}
	ref := spReference(t, rows, 10)
	slices.Sort(ref.rows)
	src := &inOrderSource{pacedSource{memSource{batch: 10, splits: rows}, 0}, 0}
	sink := &memSink{}
	g := spGraph(src, sink, 2, nil)
	g.Vertices[0].Source.Align = Alignment{Group: "g", MaxDrift: 100}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Run(ctx, g, Options{BatchSize: 10}); err != nil {
		t.Fatalf("the job stalled: %v", err)
	}
	slices.Sort(sink.rows)
	if !slices.Equal(sink.rows, ref.rows) {
		t.Fatalf("%d rows, unaligned %d", len(sink.rows), len(ref.rows))
	}
}
