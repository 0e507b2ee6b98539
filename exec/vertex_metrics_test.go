package exec

import (
	"context"
	"testing"
	"time"
)

// TestSubtaskMetrics runs a window count at parallelism 2 whose split 0
// has a late row: each subtask's rows add up to its vertex's, the late row
// is counted on the source subtask that read split 0 and on no other, and
// every subtask's watermark is the end of time once the input has ended.
func TestSubtaskMetrics(t *testing.T) {
	src := &memSource{batch: 2, splits: [][][2]int64{
		{{1, 1}, {2, 2}, {12, 1}, {3, 1}, {25, 2}},
		{{5, 1}, {15, 2}, {16, 2}},
	}}
	m := &Metrics{}
	j, err := Start(context.Background(), countGraph(src, &memSink{}, 2), Options{Metrics: m, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Wait(); err != nil {
		t.Fatal(err)
	}
	vs := j.Vertices()
	if len(vs) != 2 || len(vs[0].Subtasks) != 2 || len(vs[1].Subtasks) != 2 {
		t.Fatalf("vertices %+v", vs)
	}
	for _, v := range vs {
		var in, out int64
		for i := range v.Subtasks {
			s := &v.Subtasks[i]
			in += s.RowsIn.Load()
			out += s.RowsOut.Load()
			if wm := s.Watermark(); wm != v.Watermark() {
				t.Errorf("%s[%d] watermark %d, vertex %d", v.Name, i, wm, v.Watermark())
			}
		}
		if in != v.RowsIn.Load() || out != v.RowsOut.Load() {
			t.Errorf("%s: subtasks %d in %d out, vertex %d in %d out", v.Name, in, out, v.RowsIn.Load(), v.RowsOut.Load())
		}
	}
	src0, src1 := &vs[0].Subtasks[0], &vs[0].Subtasks[1]
	if src0.LateRows.Load() != 1 || src1.LateRows.Load() != 0 {
		t.Errorf("late rows per source subtask %d %d, want 1 0", src0.LateRows.Load(), src1.LateRows.Load())
	}
	if src0.RowsIn.Load() != 4 || src1.RowsIn.Load() != 3 {
		t.Errorf("rows into the source chains %d %d, want 4 3 (the late row is dropped before)", src0.RowsIn.Load(), src1.RowsIn.Load())
	}
	if vs[1].RowsOut.Load() != m.RowsWritten.Load() || m.RowsWritten.Load() != 5 {
		t.Errorf("agg rows out %d, written %d, want 5", vs[1].RowsOut.Load(), m.RowsWritten.Load())
	}
	// The channels are empty once the job has ended; a source has none
	// in, a sink none out.
	for _, v := range vs {
		for i := range v.Subtasks {
			if f := v.Subtasks[i].InputFill() + v.Subtasks[i].OutputFill(); f != 0 {
				t.Errorf("%s[%d] channels %.2f full after the end", v.Name, i, f)
			}
		}
	}
}

// TestChannelFill fills a subtask's channels by hand: the fill is the
// share of buffers taken over all its channels.
func TestChannelFill(t *testing.T) {
	a, b := make(chan Element, 4), make(chan Element, 4)
	s := SubtaskMetrics{ins: []<-chan Element{a, b}, outs: []chan<- Element{a}}
	a <- Element{}
	a <- Element{}
	b <- Element{}
	if f := s.InputFill(); f != 3.0/8 {
		t.Errorf("input fill %v, want 3/8", f)
	}
	if f := s.OutputFill(); f != 0.5 {
		t.Errorf("output fill %v, want 1/2", f)
	}
	if f := (&SubtaskMetrics{}).InputFill(); f != 0 {
		t.Errorf("a source's input fill %v", f)
	}
}

// TestCheckpointHistory takes periodic checkpoints and a savepoint, then
// fails a savepoint: the history lists each, newest first, with its
// status, trigger time, duration, sizes and path or failure.
func TestCheckpointHistory(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cp := spCheckpointing(t)
	cp.Interval = 20 * time.Millisecond
	failing := make(chan int64, 1)
	fail := func(id int64) bool {
		select {
		case f := <-failing:
			failing <- f
			return f == id
		default:
			return false
		}
	}
	j, err := Start(ctx, spGraph(&pacedSource{memSource{batch: 10, splits: spRows(20000)}, time.Millisecond}, &memSink{}, 2, fail), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	for j.Checkpoints().Completed < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	dir := t.TempDir()
	path, err := j.Savepoint(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	h := j.CheckpointHistory()
	var sp CheckpointRecord
	for _, r := range h {
		if r.Savepoint {
			sp = r
		}
	}
	if !sp.Savepoint || sp.Status != Completed || sp.Path != path || sp.Size == 0 || sp.Incremental != sp.Size || sp.Duration <= 0 {
		t.Fatalf("savepoint record %+v, path %s", sp, path)
	}
	var periodic int
	for i, r := range h {
		if i > 0 && r.ID >= h[i-1].ID {
			t.Fatalf("history not newest first: %+v", h)
		}
		if !r.Savepoint && r.Status == Completed {
			periodic++
			if r.Size == 0 || r.Incremental > r.Size || r.Trigger.Before(j.Started) || r.Duration <= 0 {
				t.Errorf("checkpoint record %+v", r)
			}
		}
	}
	if periodic < 2 {
		t.Fatalf("%d completed checkpoints in %+v", periodic, h)
	}
	// The next checkpoint fails its snapshot, whichever it is.
	failing <- j.CheckpointHistory()[0].ID + 1
	for {
		h = j.CheckpointHistory()
		if r := h[0]; r.Status == CheckpointFailed {
			if r.Failure == "" || r.ID != <-failing {
				t.Fatalf("failed record %+v", r)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	j.Cancel()
	_ = j.Wait()
	if (&Job{}).CheckpointHistory() != nil {
		t.Error("a job without checkpoints has a history")
	}
}
