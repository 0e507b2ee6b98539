package exec

import (
	"errors"
	"strings"
	"testing"

	"github.com/strandsql/strand/memseg"
)

// TestMemoryShare: the budget is split evenly among the subtasks of the
// operators with managed memory, in segments small enough for a small
// share, and a budget that cannot give each the segments its operator
// needs is refused, naming the operator.
func TestMemoryShare(t *testing.T) {
	graph := func(p, segs int) *Graph {
		return &Graph{Vertices: []*Vertex{
			{Name: "src", Parallelism: p, Ops: []OpSpec{{Name: "Calc"}}},
			{Name: "agg", Parallelism: p, Ops: []OpSpec{{Name: "WindowAggregate(x)", MemorySegments: segs}}},
			{Name: "topn", Parallelism: 1, Ops: []OpSpec{{Name: "WindowTopN(y)", MemorySegments: 8}}},
		}}
	}
	for _, c := range []struct {
		budget    int64
		p, segs   int
		share     int64
		seg       int
		refused   bool
		refusedBy string
	}{
		{budget: 256 << 20, p: 4, segs: 4, share: 256 << 20 / 5 / (32 << 10) * (32 << 10), seg: 32 << 10},
		{budget: 5 << 20, p: 4, segs: 4, share: 1 << 20, seg: 16 << 10},
		{budget: 40 << 10, p: 4, segs: 8, share: 8 << 10, seg: 1 << 10},
		{budget: 40 << 10, p: 4, segs: 10, refused: true, refusedBy: "WindowAggregate(x)"},
		{budget: 32 << 10, p: 4, segs: 4, refused: true},
	} {
		m, err := memseg.NewManager(c.budget, memseg.DefaultSegmentSize)
		if err != nil {
			t.Fatal(err)
		}
		share, seg, _, err := memoryShare(graph(c.p, c.segs), m)
		if c.refused {
			if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), c.refusedBy) {
				t.Errorf("budget %d, p%d, %d segments: %v, want ErrMemory naming %q", c.budget, c.p, c.segs, err, c.refusedBy)
			}
			continue
		}
		if err != nil || share != c.share || seg != c.seg {
			t.Errorf("budget %d, p%d, %d segments: share %d of %d-byte segments (%v), want %d of %d",
				c.budget, c.p, c.segs, share, seg, err, c.share, c.seg)
		}
	}
}
