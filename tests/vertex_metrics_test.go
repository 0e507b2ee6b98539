package tests

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
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

// TestBytesRead: a job over files counts the bytes of every file as its
// total and, once its input is consumed, all of them as read, also when
// the files are read as byte ranges (source.split-size); a generator has
// no bytes.
func TestBytesRead(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var size int64
	for i, n := range []int{300, 1700} {
		var b strings.Builder
		for r := range n {
			fmt.Fprintf(&b, "2024-01-01 00:00:%02d,%d,/p%d,1.5\n", r%60, r%7, r)
		}
		writeFile(t, filepath.Join(dir, "data", fmt.Sprintf("part-%d.csv", i)), b.String())
		size += int64(b.Len())
	}
	for _, path := range []string{"'data'", "'data', 'source.split-size' = '1kb'"} {
		for _, p := range []int{1, 2} {
			s := session.New(io.Discard, io.Discard)
			s.Parallelism = p
			ddl := strings.Replace(fmt2(clicksDDL, ""), "'data/clicks.csv'", path, 1)
			if err := s.ExecScript(context.Background(), ddl+"SELECT user_id FROM clicks WHERE amount > 1;\n"); err != nil {
				t.Fatal(err)
			}
			m := s.Jobs.List()[0].Metrics
			if m.BytesTotal.Load() != size || m.BytesRead.Load() != size || m.RowsRead.Load() != 2000 {
				t.Errorf("%s, parallelism %d: bytes read %d of %d, rows %d; want %d bytes", path, p, m.BytesRead.Load(), m.BytesTotal.Load(), m.RowsRead.Load(), size)
			}
		}
	}
	s := session.New(io.Discard, io.Discard)
	if err := s.ExecScript(context.Background(), "CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10');\nSELECT id FROM g;\n"); err != nil {
		t.Fatal(err)
	}
	if m := s.Jobs.List()[0].Metrics; m.BytesTotal.Load() != 0 || m.BytesRead.Load() != 0 {
		t.Errorf("datagen: bytes %d of %d", m.BytesRead.Load(), m.BytesTotal.Load())
	}
}
