package exec

import (
	"context"
	"sync/atomic"
	"testing"
)

// holdingSink is a memSink that holds its directory (Holder).
type holdingSink struct {
	memSink
	held, taken atomic.Int32
}

func (s *holdingSink) Hold() (func(), error) {
	s.taken.Add(1)
	s.held.Add(1)
	return func() { s.held.Add(-1) }, nil
}

// TestHoldReleasedBeforeWait: a sink's hold is released by the time Wait
// returns, so that the next run of the job finds its directory free.
func TestHoldReleasedBeforeWait(t *testing.T) {
	for range 50 {
		sink := &holdingSink{}
		j, err := Start(context.Background(), spGraph(&memSource{batch: 10, splits: spRows(40)}, sink, 2, nil), Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The job may have finished already (40 rows), releasing
		// its hold: that Start took it once is what can be checked.
		if n := sink.taken.Load(); n != 1 {
			t.Fatalf("Start held the sink %d times", n)
		}
		if err := j.Wait(); err != nil {
			t.Fatal(err)
		}
		if n := sink.held.Load(); n != 0 {
			t.Fatalf("after Wait the sink is still held (%d)", n)
		}
	}
}
