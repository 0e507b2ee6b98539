package tests

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// TestVertexMetrics checks each vertex's counters after a job: the rows
// into and out of its chain, and its watermark.
func TestVertexMetrics(t *testing.T) {
	t.Chdir(t.TempDir())
	s := session.New(io.Discard, io.Discard)
	s.Parallelism = 3
	if err := s.ExecScript(context.Background(), fmt.Sprintf(crashQuery, 3000, 0)); err != nil {
		t.Fatal(err)
	}
	j := s.Jobs.List()[0]
	vs := j.Vertices()
	if len(vs) != 2 {
		t.Fatalf("%d vertices, want 2 (source, window)", len(vs))
	}
	read, late, written := j.Metrics.RowsRead.Load(), j.Metrics.LateRows.Load(), j.Metrics.RowsWritten.Load()
	src, win := vs[0], vs[1]
	if src.RowsIn.Load() != read-late || src.RowsOut.Load() != read-late {
		t.Errorf("source vertex: in %d, out %d; the job read %d rows, %d late", src.RowsIn.Load(), src.RowsOut.Load(), read, late)
	}
	if win.RowsIn.Load() != read-late || win.RowsOut.Load() != written || written == 0 {
		t.Errorf("window vertex: in %d, out %d; want %d and %d", win.RowsIn.Load(), win.RowsOut.Load(), read-late, written)
	}
	for _, v := range vs {
		if v.Watermark() != types.MaxWatermark || v.Parallelism != 3 {
			t.Errorf("%s: watermark %d, parallelism %d after a bounded job", v.Name, v.Watermark(), v.Parallelism)
		}
	}
}
