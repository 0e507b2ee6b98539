package join

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Both sides of the window join tests are (we TIMESTAMP(3), k BIGINT, v
// STRING, ws TIMESTAMP(3)): we and ws are the window's end and start,
// joined on k, ws and we. The expected rows leave ws out.
var windowed = types.Schema{{Name: "we", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TString}, {Name: "ws", Type: types.TTimestamp}}

func wjSpec(kind Kind) WindowSpec {
	out := append(append(types.Schema{}, windowed...), windowed...)
	if kind.filtering() {
		out = windowed
	}
	return WindowSpec{UID: "window-join-test", Kind: kind, Left: windowed, Right: windowed, LeftKeys: []int{1, 3, 0}, RightKeys: []int{1, 3, 0},
		Start: 1, End: 2, Window: "TUMBLE(10 s)", Out: out}
}

// wrow is an input row: window end (s), key (nil for NULL) and value.
type wrow struct {
	end int64
	k   *int64
	v   string
}

func wr(end, k int64, v string) wrow { return wrow{end, &k, v} }
func wnull(end int64, v string) wrow { return wrow{end, nil, v} }

func wbatch(rows ...wrow) arrow.RecordBatch {
	eb := array.NewTimestampBuilder(memory.DefaultAllocator, windowed[0].Type.Arrow().(*arrow.TimestampType))
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	sb := array.NewTimestampBuilder(memory.DefaultAllocator, windowed[3].Type.Arrow().(*arrow.TimestampType))
	defer sb.Release()
	defer eb.Release()
	defer kb.Release()
	defer vb.Release()
	for _, r := range rows {
		eb.Append(arrow.Timestamp(r.end * 1000))
		if r.k == nil {
			kb.AppendNull()
		} else {
			kb.Append(*r.k)
		}
		vb.Append(r.v)
		sb.Append(arrow.Timestamp(r.end*1000 - 10000))
	}
	e, k, v, ws := eb.NewArray(), kb.NewArray(), vb.NewArray(), sb.NewArray()
	defer e.Release()
	defer k.Release()
	defer v.Release()
	defer ws.Release()
	return array.NewRecordBatch(windowed.Arrow(), []arrow.Array{e, k, v, ws}, int64(len(rows)))
}

func openWindow(t *testing.T, s WindowSpec, mem *memseg.Manager) (*WindowJoin, *exec.Metrics) {
	t.Helper()
	j, err := NewWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	m := &exec.Metrics{}
	ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 2, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
		Now: func() int64 { return 0 }, Checkpoint: &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}, Memory: mem, Metrics: m}
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, m
}

// wstep is an input batch (rows) of side or a watermark (s), and what it
// must emit, sorted: the order of a window's keys is their key groups'.
type wstep struct {
	side exec.Side
	rows []wrow
	wm   int64
	want []string
}

func runWindow(t *testing.T, j *WindowJoin, steps []wstep) {
	t.Helper()
	out := &collect{}
	for i, s := range steps {
		var err error
		if s.rows != nil {
			b := wbatch(s.rows...)
			err = j.ProcessInput(s.side, b, out)
			b.Release()
		} else {
			err = j.OnWatermark(s.wm*1000-1, out)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := shortRows(out.take())
		if !slices.Equal(got, s.want) {
			t.Fatalf("step %d: emitted\n  %s\nwant\n  %s", i, strings.Join(got, "\n  "), strings.Join(s.want, "\n  "))
		}
	}
}

// shortRows renders rows without their ws columns and with times in
// seconds, sorted.
func shortRows(rows []string) []string {
	for k, r := range rows {
		kind, vals, _ := strings.Cut(strings.TrimSuffix(r, "]"), "[")
		var keep []string
		for i, v := range strings.Split(vals, ", ") {
			if i%len(windowed) != 3 {
				keep = append(keep, strings.ReplaceAll(strings.ReplaceAll(v, "1970-01-01T00:00:", ""), ".000Z", ""))
			}
		}
		rows[k] = kind + "[" + strings.Join(keep, ", ") + "]"
	}
	slices.Sort(rows)
	return rows
}

// fullSteps are the rows of two windows, ending at 10 s and 20 s; a
// window's rows join when the watermark reaches its end.
var fullSteps = []wstep{
	{side: exec.Left, rows: []wrow{wr(10, 1, "a"), wr(10, 1, "a"), wr(10, 2, "b"), wnull(10, "n"), wr(20, 1, "c")}},
	{side: exec.Right, rows: []wrow{wr(10, 1, "x"), wr(10, 3, "y"), wnull(10, "m"), wr(20, 2, "z")}},
	{wm: 10, want: []string{
		"+I[10, 1, a, 10, 1, x]", "+I[10, 1, a, 10, 1, x]", "+I[10, 2, b, null, null, null]",
		"+I[10, null, n, null, null, null]", "+I[null, null, null, 10, 3, y]", "+I[null, null, null, 10, null, m]"}},
	{wm: 20, want: []string{"+I[20, 1, c, null, null, null]", "+I[null, null, null, 20, 2, z]"}},
}

// TestWindowJoinFull: pairs of a key within a window, duplicates as
// copies, NULL keys and rows without a match padded, each window when it
// fires.
func TestWindowJoinFull(t *testing.T) {
	j, _ := openWindow(t, wjSpec(FullOuter), nil)
	runWindow(t, j, fullSteps)
}

// TestWindowJoinKinds: the same rows through every other kind.
func TestWindowJoinKinds(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		want []string
	}{
		{Inner, []string{"+I[10, 1, a, 10, 1, x]", "+I[10, 1, a, 10, 1, x]"}},
		{LeftOuter, []string{"+I[10, 1, a, 10, 1, x]", "+I[10, 1, a, 10, 1, x]", "+I[10, 2, b, null, null, null]", "+I[10, null, n, null, null, null]"}},
		{RightOuter, []string{"+I[10, 1, a, 10, 1, x]", "+I[10, 1, a, 10, 1, x]", "+I[null, null, null, 10, 3, y]", "+I[null, null, null, 10, null, m]"}},
		{Semi, []string{"+I[10, 1, a]", "+I[10, 1, a]"}},
		{Anti, []string{"+I[10, 2, b]", "+I[10, null, n]"}},
	} {
		t.Run(c.kind.String(), func(t *testing.T) {
			j, _ := openWindow(t, wjSpec(c.kind), nil)
			runWindow(t, j, append(slices.Clone(fullSteps[:2]), wstep{wm: 10, want: c.want}))
		})
	}
}

// TestWindowJoinResidual: the rest of the condition decides each pair.
func TestWindowJoinResidual(t *testing.T) {
	s := wjSpec(LeftOuter)
	s.Residual = &expr.Call{Fn: expr.Lt, T: types.TBoolean, Args: []expr.Expr{
		&expr.Col{Index: 2, Name: "v", T: types.TString}, &expr.Col{Index: 6, Name: "v", T: types.TString}}}
	j, _ := openWindow(t, s, nil)
	runWindow(t, j, []wstep{
		{side: exec.Left, rows: []wrow{wr(10, 1, "a"), wr(10, 1, "q"), wr(10, 1, "z")}},
		{side: exec.Right, rows: []wrow{wr(10, 1, "m"), wr(10, 1, "r")}},
		{wm: 10, want: []string{"+I[10, 1, a, 10, 1, m]", "+I[10, 1, a, 10, 1, r]", "+I[10, 1, q, 10, 1, r]", "+I[10, 1, z, null, null, null]"}},
	})
}

// TestWindowJoinLate: a row of a window that has fired is dropped and
// counted; the sources drop those first, so this is a safety net.
func TestWindowJoinLate(t *testing.T) {
	j, m := openWindow(t, wjSpec(Inner), nil)
	runWindow(t, j, []wstep{
		{wm: 10},
		{side: exec.Left, rows: []wrow{wr(10, 1, "late"), wr(20, 1, "a")}},
		{side: exec.Right, rows: []wrow{wr(20, 1, "x")}},
		{wm: 20, want: []string{"+I[20, 1, a, 20, 1, x]"}},
	})
	if n := m.LateRows.Load(); n != 1 {
		t.Fatalf("late rows %d, want 1", n)
	}
}

// TestWindowJoinSpills: with managed memory too small for the rows, the
// windows go to the store and are read back when they fire: the same
// result; and a snapshot leaves nothing in memory.
func TestWindowJoinSpills(t *testing.T) {
	mem, err := memseg.NewManager(4*256, 256)
	if err != nil {
		t.Fatal(err)
	}
	j, m := openWindow(t, wjSpec(FullOuter), mem)
	var left, right []wrow
	for i := range int64(40) {
		left = append(left, wr(10+10*(i%2), i%7, "l"))
		right = append(right, wr(10+10*(i%2), i%5, "r"))
	}
	steps := []wstep{{side: exec.Left, rows: left}, {side: exec.Right, rows: right}}
	ref, refMetrics := openWindow(t, wjSpec(FullOuter), nil)
	out := &collect{}
	for _, s := range steps {
		b := wbatch(s.rows...)
		if err := ref.ProcessInput(s.side, b, out); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	if err := ref.OnWatermark(20000, out); err != nil {
		t.Fatal(err)
	}
	if n := refMetrics.Spills.Load(); n != 0 {
		t.Fatalf("the reference spilled %d windows", n)
	}
	want := shortRows(out.take())
	if _, err := j.Snapshot(1); err != nil {
		t.Fatal(err)
	}
	runWindow(t, j, append(steps, wstep{wm: 20, want: want}))
	if m.Spills.Load() == 0 {
		t.Fatal("no spill with 4 segments of 256 bytes")
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes of managed memory held after every window fired", mem.Used())
	}
}

// TestWindowSpecChecks: the window's columns must be timestamps among
// the keys, and the window is part of the fingerprint.
func TestWindowSpecChecks(t *testing.T) {
	s := wjSpec(Inner)
	s.End = 0
	if _, err := NewWindow(s); err == nil {
		t.Fatal("a BIGINT window_end")
	}
	s = wjSpec(Inner)
	s.End = 3
	if _, err := NewWindow(s); err == nil {
		t.Fatal("a window_end that is no key")
	}
	a, b := wjSpec(Inner), wjSpec(Inner)
	b.Window = "TUMBLE(20 s)"
	if a.Fingerprint() == b.Fingerprint() {
		t.Fatal("the window is part of the fingerprint")
	}
}
