package exec

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// growingSource is a memSource whose later splits appear after the job
// starts, as partitions discovered while it runs.
type growingSource struct {
	memSource
	visible atomic.Int32
	opened  chan Split
}

func (s *growingSource) Splits() ([]Split, error) {
	all, _ := s.memSource.Splits()
	n := int(s.visible.Load())
	for i := range all[:n] {
		all[i].New = i > 0
	}
	return all[:n], nil
}

func (s *growingSource) Open(sp Split, off Offset, ro ReadOptions) (SplitReader, error) {
	s.opened <- sp
	return s.memSource.Open(sp, off, ro)
}

func (s *growingSource) DiscoverEvery() time.Duration { return 10 * time.Millisecond }

// TestDiscoveredSplits: splits that appear while the job runs are opened
// by the subtask of their index, new, and read; a subtask without splits
// keeps running.
func TestDiscoveredSplits(t *testing.T) {
	src := &growingSource{memSource: memSource{batch: 2, splits: [][][2]int64{{{1, 1}}, {{2, 2}, {3, 3}}, {{4, 4}}}}, opened: make(chan Split, 8)}
	src.visible.Store(1)
	sink := &memSink{}
	srcV := &Vertex{ID: 1, Name: "src", Parallelism: 2, Source: &SourceSpec{Table: "t", Source: src, Schema: memSchema, TimeCol: -1}, Sink: sink,
		Ops: []OpSpec{{Name: "pass", Out: memSchema, New: func() (Operator, error) { return NewCalc(memSchema, nil, nil, memSchema) }}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, &Graph{Vertices: []*Vertex{srcV}}, Options{BatchSize: 2}) }()
	if sp := <-src.opened; sp.ID != "split-0" {
		t.Fatalf("opened %+v first", sp)
	}
	src.visible.Store(3)
	for range 2 {
		select {
		case sp := <-src.opened:
			if !sp.New {
				t.Errorf("discovered split %+v is not new", sp)
			}
		case err := <-done:
			t.Fatalf("the job ended before discovering: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("the splits that appeared were never opened")
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		sink.mu.Lock()
		n := len(sink.rows)
		sink.mu.Unlock()
		if n == 4 {
			break
		}
	}
	cancel()
	<-done
	if fmt.Sprint(len(sink.rows)) != "4" {
		t.Fatalf("rows %q, want the 4 rows of every split", sink.rows)
	}
}
