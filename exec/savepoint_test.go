package exec

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// pacedSource is a memSource whose readers pause before every batch, so a
// job runs long enough to take savepoints of.
type pacedSource struct {
	memSource
	pause time.Duration
}

func (s *pacedSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.memSource.Open(sp, off, ro)
	return &pacedReader{SplitReader: r, pause: s.pause}, err
}

type pacedReader struct {
	SplitReader
	pause time.Duration
}

func (r *pacedReader) Next() (arrow.RecordBatch, error) {
	time.Sleep(r.pause)
	return r.SplitReader.Next()
}

// endGatedSource is a pacedSource whose readers, at the end of their rows,
// read empty batches until open is closed (never, if it is nil): its
// job's input does not end before the test lets it, however slow the
// machine, so a savepoint or a stop asked for meanwhile cannot find it
// finishing (ErrFinishing).
type endGatedSource struct {
	pacedSource
	open <-chan struct{}
}

func (s *endGatedSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.pacedSource.Open(sp, off, ro)
	return &endGatedReader{SplitReader: r, open: s.open}, err
}

type endGatedReader struct {
	SplitReader
	open <-chan struct{}
}

func (r *endGatedReader) Next() (arrow.RecordBatch, error) {
	b, err := r.SplitReader.Next()
	if !errors.Is(err, io.EOF) {
		return b, err
	}
	select {
	case <-r.open:
		return nil, io.EOF
	default:
		return emptyMemBatch(), nil
	}
}

// emptyMemBatch is a batch of memSchema without rows.
func emptyMemBatch() arrow.RecordBatch {
	ts := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	k := array.NewInt64Builder(memory.DefaultAllocator)
	return array.NewRecordBatch(memSchema.Arrow(), []arrow.Array{ts.NewArray(), k.NewArray()}, 0)
}

// snapFail fails the snapshot of every checkpoint fail says, and passes
// its input on.
type snapFail struct{ fail func(id int64) bool }

func (o *snapFail) Process(b arrow.RecordBatch, out Emitter) error {
	b.Retain() // Emit hands the batch over; Process only borrows it
	return out.Emit(b)
}
func (o *snapFail) Snapshot(id int64) (OperatorSnapshot, error) {
	if o.fail(id) {
		return OperatorSnapshot{}, errBoom
	}
	return OperatorSnapshot{}, nil
}

// spGraph counts rows per key in 10 ms tumbling windows, with a uid, at
// parallelism p; fail, if set, fails the source's snapshots it says.
func spGraph(src Source, sink Sink, p int, fail func(int64) bool) *Graph {
	wm := &expr.Col{Index: 0, Name: "ts", T: types.TTimestamp}
	tumble := window.TumbleOf(10, 0)
	srcV := &Vertex{ID: 1, Name: "src", Parallelism: p, Source: &SourceSpec{UID: "source-t", Table: "t", Source: src, Schema: memSchema, Watermark: wm, TimeCol: 0, Fires: tumble.Fires}}
	if fail != nil {
		srcV.Ops = []OpSpec{{Name: "snapfail", Out: memSchema, New: func() (Operator, error) { return &snapFail{fail: fail}, nil }}}
	}
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}}
	spec := window.Spec{Window: tumble, In: memSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs}
	aggV := &Vertex{ID: 2, Name: "agg", Parallelism: p, Inputs: []*Edge{{From: srcV, Kind: Hash, Keys: []int{1}}}, Sink: sink, SinkUID: "sink-out",
		Ops: []OpSpec{{Name: "agg", UID: "agg", Fingerprint: spec.Fingerprint(), Out: spec.Out(),
			New: func() (Operator, error) { return &WindowAgg{Spec: spec, UID: "agg"}, nil }}}}
	return &Graph{Vertices: []*Vertex{srcV, aggV}}
}

// spRows are n rows in time order over 7 keys, in two splits.
func spRows(n int) [][][2]int64 {
	splits := make([][][2]int64, 2)
	for i := range n {
		splits[i%2] = append(splits[i%2], [2]int64{int64(i), int64(i % 7)})
	}
	return splits
}

func spCheckpointing(t *testing.T) *Checkpointing {
	t.Helper()
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	return &Checkpointing{FS: fs, WorkDir: "work", Storage: storage, Job: "j", FirstID: 1, Timeout: time.Minute}
}

// leftovers lists what dir holds.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// resumeFrom runs g from the savepoint at path to the end of its input.
func resumeFrom(t *testing.T, g *Graph, path string) {
	t.Helper()
	md, err := checkpoint.LoadSavepoint(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := spCheckpointing(t)
	cp.Restore, cp.SavepointDir, cp.FirstID = md, path, md.ID+1
	if err := Run(context.Background(), g, Options{Checkpoint: cp}); err != nil {
		t.Fatal(err)
	}
}

// TestSavepointsConcurrentThenStop asks for three savepoints at once, then
// stops the job with a fourth: each completes in a directory of its own,
// the stopped job emits nothing after its savepoint, and resuming from it
// emits the rest: together, exactly an uninterrupted run's output.
func TestSavepointsConcurrentThenStop(t *testing.T) {
	rows := spRows(3000)
	ref := spReference(t, rows, 10)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	first := &memSink{}
	// The input does not end: the stop comes before its end.
	src := &endGatedSource{pacedSource{memSource{batch: 10, splits: rows}, time.Millisecond}, nil}
	j, err := Start(ctx, spGraph(src, first, 2, nil), Options{Checkpoint: spCheckpointing(t)})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	var wg sync.WaitGroup
	paths := make([]string, 3)
	errs := make([]error, 3)
	for i := range paths {
		wg.Go(func() { paths[i], errs[i] = j.Savepoint(ctx, dir) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("savepoint %d: %v", i, err)
		}
		if _, err := checkpoint.LoadSavepoint(paths[i]); err != nil {
			t.Fatal(err)
		}
	}
	path, err := j.Stop(ctx, dir, false)
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	if s := j.Status(); s != Stopped {
		t.Fatalf("status %s after a stop", s)
	}
	if all := append(slices.Clone(paths), path); len(slices.Compact(slices.Sorted(slices.Values(all)))) != 1+len(paths) {
		t.Fatalf("savepoints share a directory: %v", all)
	}
	if n := len(leftovers(t, dir)); n != 1+len(paths) {
		t.Fatalf("%s holds %v, want the %d savepoints", dir, leftovers(t, dir), 1+len(paths))
	}
	rest := &memSink{}
	resumeFrom(t, spGraph(&memSource{batch: 10, splits: rows}, rest, 3, nil), path)
	got := append(slices.Clone(first.rows), rest.rows...)
	slices.Sort(got)
	want := slices.Sorted(slices.Values(ref.rows))
	if !slices.Equal(got, want) {
		t.Fatalf("stopped and resumed: %d rows (%d before the stop), uninterrupted: %d", len(got), len(first.rows), len(want))
	}
}

// TestSavepointFailureKeepsRunning fails a savepoint's snapshot, and then
// a stop's: each is reported, leaves nothing in the directory, and the job
// runs on to the end of its input with all of its output.
func TestSavepointFailureKeepsRunning(t *testing.T) {
	rows := spRows(2000)
	ref := spReference(t, rows, 10)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	fail := func(id int64) bool { return id <= 2 } // the two savepoints; 3 is the final checkpoint
	sink := &memSink{}
	// The input ends only after the stop has failed.
	open := make(chan struct{})
	src := &endGatedSource{pacedSource{memSource{batch: 10, splits: rows}, time.Millisecond}, open}
	j, err := Start(ctx, spGraph(src, sink, 2, fail), Options{Checkpoint: spCheckpointing(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Savepoint(ctx, dir); !errors.Is(err, errBoom) {
		t.Fatalf("savepoint: %v, want the snapshot's failure", err)
	}
	if _, err := j.Stop(ctx, dir, false); !errors.Is(err, errBoom) {
		t.Fatalf("stop: %v, want the snapshot's failure", err)
	}
	close(open)
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if s := j.Status(); s != Finished {
		t.Fatalf("status %s", s)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("failed savepoints left %v", l)
	}
	if got, want := slices.Sorted(slices.Values(sink.rows)), slices.Sorted(slices.Values(ref.rows)); !slices.Equal(got, want) {
		t.Fatalf("%d rows after failed savepoints, want %d", len(got), len(want))
	}
}

// TestSavepointWhileEnding asks for savepoints until the job has ended:
// each returns, with a savepoint or an error, and none hangs.
func TestSavepointWhileEnding(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	j, err := Start(ctx, spGraph(&memSource{batch: 10, splits: spRows(2000)}, &memSink{}, 2, nil), Options{Checkpoint: spCheckpointing(t)})
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case <-j.Done():
			if err := j.Wait(); err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
		if path, err := j.Savepoint(ctx, dir); err == nil {
			if _, err := checkpoint.LoadSavepoint(path); err != nil {
				t.Fatal(err)
			}
		} else if ctx.Err() != nil {
			t.Fatalf("savepoint hangs: %v", err)
		}
	}
}

// TestStopsWhileCheckpointing stops a job that checkpoints every few
// milliseconds twice at once, with a savepoint asked for meanwhile: one
// stop completes, the other and anything after it is refused, nothing
// hangs, and resuming from the stop's savepoint completes the output, in
// either checkpointing mode: a savepoint is aligned in both.
func TestStopsWhileCheckpointing(t *testing.T) {
	t.Run("exactly-once", func(t *testing.T) { testStopsWhileCheckpointing(t, false) })
	t.Run("at-least-once", func(t *testing.T) { testStopsWhileCheckpointing(t, true) })
}

func testStopsWhileCheckpointing(t *testing.T, atLeastOnce bool) {
	rows := spRows(3000)
	ref := spReference(t, rows, 7)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	cp := spCheckpointing(t)
	cp.Interval, cp.AtLeastOnce = 2*time.Millisecond, atLeastOnce
	first := &memSink{}
	// The input does not end: the stops come before its end.
	src := &endGatedSource{pacedSource{memSource{batch: 7, splits: rows}, time.Millisecond}, nil}
	j, err := Start(ctx, spGraph(src, first, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	var wg sync.WaitGroup
	paths := make([]string, 3)
	errs := make([]error, 3)
	for i := range 2 {
		wg.Go(func() { paths[i], errs[i] = j.Stop(ctx, dir, false) })
	}
	wg.Go(func() { paths[2], errs[2] = j.Savepoint(ctx, dir) })
	wg.Wait()
	var stop string
	for i := range 2 {
		if errs[i] == nil {
			if stop != "" {
				t.Fatal("both stops completed")
			}
			stop = paths[i]
		}
	}
	if stop == "" || j.Status() != Stopped {
		t.Fatalf("stops: %v; status %s", errs, j.Status())
	}
	if _, err := j.Savepoint(ctx, dir); err == nil {
		t.Fatal("a savepoint of a stopped job")
	}
	rest := &memSink{}
	resumeFrom(t, spGraph(&memSource{batch: 7, splits: rows}, rest, 2, nil), stop)
	got := slices.Sorted(slices.Values(append(slices.Clone(first.rows), rest.rows...)))
	if want := slices.Sorted(slices.Values(ref.rows)); !slices.Equal(got, want) {
		t.Fatalf("stopped and resumed: %d rows, uninterrupted: %d", len(got), len(want))
	}
}

// stallSink is a memSink whose writers hold barrier 1 until release is
// closed.
type stallSink struct {
	memSink
	release chan struct{}
}

func (s *stallSink) Open(types.Schema, int, int) (SinkWriter, error) {
	return &stallWriter{memWriter{s: &s.memSink}, s.release}, nil
}

type stallWriter struct {
	memWriter
	release chan struct{}
}

func (w *stallWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	if id == 1 {
		<-w.release
	}
	return nil, nil
}

// TestSavepointTimeout: a savepoint not complete in time fails with the
// reason, leaves nothing in its directory, and the job runs on to the end
// of its input with all of its output.
func TestSavepointTimeout(t *testing.T) {
	rows := spRows(2000)
	ref := spReference(t, rows, 7)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	cp := spCheckpointing(t)
	cp.Timeout = 100 * time.Millisecond
	cp.Tolerable = 1000 // as in TestStaleDrainBarrier
	sink := &stallSink{release: make(chan struct{})}
	j, err := Start(ctx, spGraph(&pacedSource{memSource{batch: 7, splits: rows}, time.Millisecond}, sink, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Stop(ctx, dir, false); err == nil || !strings.Contains(err.Error(), "not complete after") {
		t.Fatalf("stop: %v, want a timeout", err)
	}
	close(sink.release)
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Fatalf("a timed-out savepoint left %v", l)
	}
	if got, want := slices.Sorted(slices.Values(sink.rows)), slices.Sorted(slices.Values(ref.rows)); !slices.Equal(got, want) {
		t.Fatalf("%d rows after a timed-out stop, want %d", len(got), len(want))
	}
}

// tickCount counts the processing-time callbacks it gets.
type tickCount struct{ n atomic.Int64 }

func (o *tickCount) Process(b arrow.RecordBatch, out Emitter) error {
	b.Retain() // Emit hands the batch over; Process only borrows it
	return out.Emit(b)
}
func (o *tickCount) OnProcessingTime(Emitter) error { o.n.Add(1); return nil }

// TestNoProcessingTimeAfterStop: once a stop-with-savepoint is complete,
// a task waiting for its inputs to end no longer lets operators act on
// processing time: what they would fire is in the savepoint, and would be
// emitted again after the resume.
func TestNoProcessingTimeAfterStop(t *testing.T) {
	op := &tickCount{}
	sink := &sinkOutput{w: &memWriter{s: &memSink{}}, metrics: &Metrics{}}
	c, err := newChain(&TaskContext{}, []OpSpec{{Name: "tick", New: func() (Operator, error) { return op, nil }}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	coord := &coordinator{cfg: &Checkpointing{}}
	coord.stopped.Store(true)
	in := make(chan Element, 1)
	task := &inputTask{ctx: context.Background(), name: "t", ins: []<-chan Element{in}, chain: c, out: sink, coord: coord}
	errc := make(chan error, 1)
	go func() { errc <- task.run() }()
	time.Sleep(3 * ProcessingTimeInterval)
	in <- Element{Kind: ElemEnd}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if n := op.n.Load(); n != 0 {
		t.Fatalf("%d processing-time callbacks after the stop", n)
	}
}

// gatedSource is a memSource whose readers wait for open to be closed
// before their first batch.
type gatedSource struct {
	memSource
	open chan struct{}
}

func (s *gatedSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.memSource.Open(sp, off, ro)
	return &gatedReader{SplitReader: r, open: s.open}, err
}

type gatedReader struct {
	SplitReader
	open  chan struct{}
	reads int
}

func (r *gatedReader) Next() (arrow.RecordBatch, error) {
	if r.reads++; r.reads == 1 {
		<-r.open
	}
	return r.SplitReader.Next()
}

// TestStaleDrainBarrier: a stop --drain whose savepoint timed out before
// the sources took its barrier is over; a source that takes the barrier
// later must not drain (fire every window and run on with the watermark
// at its end, every later row late) but go on as if it had never come.
func TestStaleDrainBarrier(t *testing.T) {
	rows := spRows(2000)
	ref := spReference(t, rows, 7)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cp := spCheckpointing(t)
	cp.Timeout = 100 * time.Millisecond
	// The timeout is the savepoint's; the checkpoints after it may time
	// out too on a busy machine, which is not what is tested.
	cp.Tolerable = 1000
	src := &gatedSource{memSource{batch: 7, splits: rows}, make(chan struct{})}
	sink := &memSink{}
	j, err := Start(ctx, spGraph(src, sink, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Stop(ctx, t.TempDir(), true); err == nil || !strings.Contains(err.Error(), "not complete after") {
		t.Fatalf("stop --drain: %v, want a timeout", err)
	}
	close(src.open)
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(slices.Values(sink.rows)), slices.Sorted(slices.Values(ref.rows)); !slices.Equal(got, want) {
		t.Fatalf("%d rows after a stale drain barrier, want %d", len(got), len(want))
	}
}

// failCommitSink is a twoPhaseSink whose commits fail.
type failCommitSink struct{ twoPhaseSink }

func (s *failCommitSink) Commit([]checkpoint.PendingFile) error { return errBoom }

// TestSavepointCommitFails: a savepoint whose _metadata is written is
// complete even if committing the sinks then fails (a restore repeats the
// commit): the job fails, and whoever asked gets the savepoint's path, not
// an error saying it was not complete.
func TestSavepointCommitFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sink := &failCommitSink{twoPhaseSink{job: "j", handed: map[string]bool{}}}
	j, err := Start(ctx, spGraph(&pacedSource{memSource{batch: 7, splits: spRows(2000)}, time.Millisecond}, sink, 2, nil), Options{Checkpoint: spCheckpointing(t)})
	if err != nil {
		t.Fatal(err)
	}
	path, err := j.Savepoint(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("savepoint: %v", err)
	}
	if _, err := checkpoint.LoadSavepoint(path); err != nil {
		t.Fatal(err)
	}
	if err := j.Wait(); !errors.Is(err, errBoom) {
		t.Fatalf("job: %v, want the commit's failure", err)
	}
}

// spReference runs spGraph over rows uninterrupted, in batches of batch
// rows, and returns its output.
func spReference(t *testing.T, rows [][][2]int64, batch int) *memSink {
	t.Helper()
	ref := &memSink{}
	if err := Run(context.Background(), spGraph(&memSource{batch: batch, splits: rows}, ref, 2, nil), Options{}); err != nil {
		t.Fatal(err)
	}
	return ref
}
