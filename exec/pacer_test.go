package exec

import (
	"context"
	"slices"
	"testing"
	"time"
)

// sizedSource is a memSource whose splits have the sizes given, in bytes.
type sizedSource struct {
	memSource
	size []int64
}

func (s *sizedSource) Size(sp Split) (int64, error) { return s.size[sp.Index], nil }

func sizedSplits(size ...int64) ([]Split, *sizedSource) {
	src := &sizedSource{memSource: memSource{splits: make([][][2]int64, len(size))}, size: size}
	splits, _ := src.Splits()
	return splits, src
}

// TestPacer: a subtask waits only when it is more than p-1 splits and a
// half ahead of another that is still reading; at the same speed (each
// k*p+s splits in) none waits, and a subtask done holds no one back.
func TestPacer(t *testing.T) {
	if newPacer(1) != nil {
		t.Fatal("a pacer for one subtask")
	}
	const mb = 1 << 20
	pc := newPacer(2)
	splits, src := sizedSplits(8*mb, 8*mb, 8*mb, 8*mb, 8*mb, 8*mb)
	pc.sizes(splits, src)
	// Both at the start of their first split: subtask 1 is one split on.
	if pc.ahead(1, pc.position(1, 0, 0, 8*mb)) || pc.ahead(0, pc.position(0, 0, 0, 8*mb)) {
		t.Fatal("a subtask waits at the start")
	}
	pc.set(0, pc.position(0, 0, 2*mb, 8*mb)) // a quarter into split 0
	for _, c := range []struct {
		k         int
		read      int64
		wantAhead bool
	}{
		{0, 6 * mb, false}, // split 1 at 3/4: 1.5 splits on
		{0, 7 * mb, true},  // 1.625 splits on
		{1, 0, true},       // split 3
	} {
		if got := pc.ahead(1, pc.position(1, c.k, c.read, 8*mb)); got != c.wantAhead {
			t.Fatalf("subtask 1 at its split %d, %d bytes in: ahead %v, want %v", c.k, c.read, got, c.wantAhead)
		}
	}
	// Subtask 0 never waits for one behind it in the file.
	pc.set(1, pc.position(1, 0, 0, 8*mb))
	if pc.ahead(0, pc.position(0, 1, 0, 8*mb)) {
		t.Fatal("subtask 0 at split 2 waits for subtask 1 at split 1")
	}
	if !pc.ahead(0, pc.position(0, 1, 5*mb, 8*mb)) {
		t.Fatal("subtask 0 at split 2 and 5/8 does not wait for subtask 1 at the start of split 1")
	}
	pc.done(1)
	if pc.ahead(0, pc.position(0, 2, 0, 8*mb)) {
		t.Fatal("a subtask waits for one that is done")
	}

	// Without sizes, a split counts as a unit, and one not started as
	// its start.
	pc = newPacer(2)
	pc.sizes(make([]Split, 6), &memSource{})
	if got := pc.position(1, 2, 5, -1); got != 5*paceUnit {
		t.Fatalf("position without a size %d, want %d", got, 5*paceUnit)
	}
	if !pc.ahead(1, pc.position(1, 1, 0, -1)) {
		t.Fatal("subtask 1 at split 3 does not wait for subtask 0 not started")
	}
}

// TestPacerFileSizes: positions count bytes, so that a subtask done with
// small files does not wait for another reading a large one that comes
// before them; counted in splits, subtask 1, at file 3 after the small
// file 1, waited until subtask 0 had read all of file 0.
func TestPacerFileSizes(t *testing.T) {
	const mb = 1 << 20
	pc := newPacer(2)
	splits, src := sizedSplits(8*mb, 1<<10, 1<<10, 8*mb, 1<<10, 1<<10)
	pc.sizes(splits, src)
	pc.set(0, pc.position(0, 0, 0, 8*mb)) // the start of file 0
	if pc.ahead(1, pc.position(1, 1, 0, 8*mb)) {
		t.Fatal("subtask 1 at the start of file 3 waits for subtask 0 at the start of file 0")
	}
	if !pc.ahead(1, pc.position(1, 1, 5*mb, 8*mb)) {
		t.Fatal("subtask 1 more than a file and a half ahead does not wait")
	}
}

// inOrderSource is a pacedSource read in order (InOrder) and sized in
// rows, whose split 0 is read slowly.
type inOrderSource struct {
	pacedSource
	slow time.Duration
}

func (s *inOrderSource) InOrder() bool { return true }

func (s *inOrderSource) Size(sp Split) (int64, error) { return int64(len(s.splits[sp.Index])), nil }

func (s *inOrderSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	r, err := s.memSource.Open(sp, off, ro)
	pause := s.pause
	if sp.Index == 0 && !ro.Peek {
		pause = s.slow
	}
	return &pacedReader{SplitReader: r, pause: pause}, err
}

// TestPacerStopWhileWaiting stops a job with a savepoint while subtask 1
// waits for subtask 0, slow in split 0, checkpoints being taken
// meanwhile: the stop completes, and resuming at another parallelism
// emits the rest, together an uninterrupted run's output.
func TestPacerStopWhileWaiting(t *testing.T) {
	rows := make([][][2]int64, 6)
	for i := range 3000 {
		rows[i/500] = append(rows[i/500], [2]int64{int64(i), int64(i % 7)})
	}
	ref := spReference(t, rows, 10)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cp := spCheckpointing(t)
	cp.Interval = 3 * time.Millisecond
	first := &memSink{}
	src := &inOrderSource{pacedSource{memSource{batch: 10, splits: rows}, 0}, 3 * time.Millisecond}
	j, err := Start(ctx, spGraph(src, first, 2, nil), Options{Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // split 0 takes 150 ms
	path, err := j.Stop(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatalf("stop: %v", err)
	}
	rest := &memSink{}
	resumeFrom(t, spGraph(&inOrderSource{pacedSource{memSource{batch: 10, splits: rows}, 0}, 0}, rest, 3, nil), path)
	got := slices.Sorted(slices.Values(append(slices.Clone(first.rows), rest.rows...)))
	if want := slices.Sorted(slices.Values(ref.rows)); !slices.Equal(got, want) {
		t.Fatalf("stopped and resumed: %d rows, uninterrupted: %d", len(got), len(want))
	}
}
