package rank

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// topnRow is a row of the test schema: window_end, k STRING, v BIGINT,
// d DOUBLE; nil pointers are NULLs.
type topnRow struct {
	end int64
	k   *string
	v   *int64
	d   *float64
}

var topnSchema = types.Schema{
	{Name: "window_end", Type: types.TTimestamp.WithNotNull(true)},
	{Name: "k", Type: types.TString},
	{Name: "v", Type: types.TBigInt},
	{Name: "d", Type: types.TDouble},
}

func topnBatch(rows []topnRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, topnSchema.Arrow())
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(r.end))
		if r.k == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*r.k)
		}
		if r.v == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(*r.v)
		}
		if r.d == nil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Float64Builder).Append(*r.d)
		}
	}
	return b.NewRecordBatch()
}

// topnOut is an exec.Emitter that renders rows as text, one line each.
type topnOut struct {
	rows    []string
	batches int
	max     int // most rows in one batch
}

func (c *topnOut) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	c.batches++
	c.max = max(c.max, int(b.NumRows()))
	for r := 0; r < int(b.NumRows()); r++ {
		var f []string
		for _, col := range b.Columns() {
			if col.IsNull(r) {
				f = append(f, "null")
				continue
			}
			switch a := col.(type) {
			case *array.Float64:
				f = append(f, fmt.Sprintf("%x", math.Float64bits(a.Value(r)))) // exact, -0.0 and NaN included
			case *array.Timestamp:
				f = append(f, fmt.Sprint(int64(a.Value(r))))
			default:
				f = append(f, col.ValueStr(r))
			}
		}
		c.rows = append(c.rows, strings.Join(f, ","))
	}
	return nil
}

func (r topnRow) text(rownum int) string {
	f := []string{fmt.Sprint(r.end), "null", "null", "null"}
	if r.k != nil {
		f[1] = *r.k
	}
	if r.v != nil {
		f[2] = fmt.Sprint(*r.v)
	}
	if r.d != nil {
		f[3] = fmt.Sprintf("%x", math.Float64bits(*r.d))
	}
	if rownum > 0 {
		f = append(f, fmt.Sprint(rownum))
	}
	return strings.Join(f, ",")
}

func randRows(rng *rand.Rand, n int, ends []int64) []topnRow {
	rows := make([]topnRow, n)
	for i := range rows {
		r := topnRow{end: ends[rng.Intn(len(ends))]}
		if rng.Intn(20) > 0 {
			k := strings.Repeat(string(rune('a'+rng.Intn(3))), 1+rng.Intn(20))
			r.k = &k
		}
		if rng.Intn(20) > 0 {
			v := int64(rng.Intn(40)) - 20
			r.v = &v
		}
		if rng.Intn(20) > 0 {
			d := []float64{0, math.Copysign(0, -1), math.NaN(), 1.5, -2}[rng.Intn(5)]
			r.d = &d
		}
		rows[i] = r
	}
	return rows
}

// refOrder is the reference order of the test spec: window_end, v DESC
// NULLS LAST, k ASC NULLS FIRST, then the rest (d, by its bits).
func refOrder(a, b topnRow) int {
	if c := cmpInt(a.end, b.end); c != 0 {
		return c
	}
	switch {
	case a.v == nil && b.v != nil:
		return 1
	case a.v != nil && b.v == nil:
		return -1
	case a.v != nil:
		if c := cmpInt(*b.v, *a.v); c != 0 {
			return c
		}
	}
	switch {
	case a.k == nil && b.k != nil:
		return -1
	case a.k != nil && b.k == nil:
		return 1
	case a.k != nil:
		if c := strings.Compare(*a.k, *b.k); c != 0 {
			return c
		}
	}
	switch {
	case a.d == nil && b.d != nil:
		return -1
	case a.d != nil && b.d == nil:
		return 1
	case a.d != nil:
		return cmpInt(int64(math.Float64bits(*a.d)), int64(math.Float64bits(*b.d)))
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reference is what the test spec emits for rows: each window's rows in
// order, numbered, the first limit of each (0: all).
func reference(rows []topnRow, limit int) []string {
	s := slices.Clone(rows)
	slices.SortStableFunc(s, refOrder)
	var out []string
	n := 0
	for i, r := range s {
		if i == 0 || r.end != s[i-1].end {
			n = 0
		}
		if n++; limit == 0 || n <= limit {
			out = append(out, r.text(n))
		}
	}
	return out
}

func testSpec(dir string) WindowSpec {
	return WindowSpec{UID: "topn-test", In: topnSchema, WindowEnd: 0,
		Order:  []SortKey{{Col: 2, Desc: true, NullsLast: true}, {Col: 1}},
		RowNum: true, SpillDir: dir}
}

func feed(t *testing.T, op *WindowTopN, rows []topnRow, batch int) {
	t.Helper()
	for lo := 0; lo < len(rows); lo += batch {
		b := topnBatch(rows[lo:min(lo+batch, len(rows))])
		err := op.Process(b, nil)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTopNSpills sorts windows many times larger than a 64 KiB budget: the
// sorter spills runs (and merges groups of them, having fewer segments
// than runs), a partial fire moves the rows of later windows into a new
// sorter, and the output equals a reference sort, in order, in batches of
// at most BatchSize. Close gives every segment back and leaves no file.
func TestTopNSpills(t *testing.T) {
	m, err := memseg.NewManager(64<<10, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	op, err := NewWindowTopN(testSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&exec.TaskContext{Memory: m, BatchSize: 100, Alloc: memory.DefaultAllocator}); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	rng := rand.New(rand.NewSource(1))
	first := randRows(rng, 8000, []int64{10_000, 20_000})
	second := randRows(rng, 4000, []int64{20_000, 30_000})
	out := &topnOut{}

	feed(t, op, first, 97)
	if err := op.OnWatermark(9_999, out); err != nil { // fires 10 s, keeps 20 s
		t.Fatal(err)
	}
	if op.runs < 2 {
		t.Fatalf("%d runs: the window did not spill", op.runs)
	}
	feed(t, op, second, 97)
	if err := op.OnWatermark(types.MaxWatermark, out); err != nil {
		t.Fatal(err)
	}
	want := reference(append(slices.Clone(first), second...), 0)
	if len(out.rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(out.rows), len(want))
	}
	for i := range want {
		if out.rows[i] != want[i] {
			t.Fatalf("row %d: %s, want %s", i, out.rows[i], want[i])
		}
	}
	if out.max > 100 {
		t.Errorf("a batch of %d rows, BatchSize 100", out.max)
	}
	t.Logf("%d rows, %d runs, %d batches", len(out.rows), op.runs, out.batches)
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	if err := op.Close(); err != nil {
		t.Fatal(err)
	}
	if u := m.Used(); u != 0 {
		t.Errorf("Used = %d after Close", u)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left in the spill directory", len(ents))
	}
}

// TestTopNLimit keeps the first rows of each window and partition, with
// rownum, and counts rows of fired windows as late.
func TestTopNLimit(t *testing.T) {
	spec := testSpec("")
	spec.Limit = 2
	spec.Partition = []int{1}
	spec.Order = []SortKey{{Col: 3}} // d ASC NULLS FIRST: -2, NULL-free ties by bits
	op, err := NewWindowTopN(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := &exec.Metrics{}
	if err := op.Open(&exec.TaskContext{BatchSize: 2, Metrics: m}); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	s := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	i := func(v int64) *int64 { return &v }
	rows := []topnRow{
		{10, s("a"), i(1), f(3)}, {10, s("a"), i(2), f(1)}, {10, s("a"), i(3), nil},
		{10, s("b"), i(4), f(9)}, {10, nil, i(5), f(-1)}, {20, s("a"), i(6), f(0)},
		{10, s("a"), i(7), f(2)},
	}
	feed(t, op, rows, 3)
	out := &topnOut{}
	if err := op.OnWatermark(9, out); err != nil {
		t.Fatal(err)
	}
	feed(t, op, []topnRow{{10, s("z"), i(8), f(0)}}, 1) // late
	if err := op.OnWatermark(types.MaxWatermark, out); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"10,null,5," + fmt.Sprintf("%x", math.Float64bits(-1)) + ",1",
		"10,a,3,null,1",
		"10,a,2," + fmt.Sprintf("%x", math.Float64bits(1)) + ",2",
		"10,b,4," + fmt.Sprintf("%x", math.Float64bits(9)) + ",1",
		"20,a,6,0,1",
	}
	if strings.Join(out.rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(out.rows, "\n"), strings.Join(want, "\n"))
	}
	if m.LateRows.Load() != 1 {
		t.Errorf("%d late rows, want 1", m.LateRows.Load())
	}
}

// TestTopNSnapshotRestore checkpoints a Top-N holding the rows of two
// windows, one half fired, restores a new one from the checkpoint and
// checks that it emits what an uninterrupted one does: with plenty of
// memory, and with so little that the row log is written out before the
// barrier and the sorter spills.
func TestTopNSnapshotRestore(t *testing.T) {
	for _, budget := range []int64{0, 64 << 10} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) { testSnapshotRestore(t, budget) })
	}
}

func testSnapshotRestore(t *testing.T, budget int64) {
	var m *memseg.Manager
	if budget > 0 {
		var err error
		if m, err = memseg.NewManager(budget, 4<<10); err != nil {
			t.Fatal(err)
		}
	}
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	cp := &exec.Checkpointing{FS: fs, WorkDir: "work", Storage: storage}
	rng := rand.New(rand.NewSource(2))
	before := randRows(rng, 3000, []int64{10_000, 20_000})
	after := randRows(rng, 1000, []int64{20_000, 30_000})
	spec := testSpec(t.TempDir())
	spec.Limit = 50

	open := func(cp *exec.Checkpointing) *WindowTopN {
		op, err := NewWindowTopN(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := op.Open(&exec.TaskContext{BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism, Checkpoint: cp, Memory: m}); err != nil {
			t.Fatal(err)
		}
		return op
	}
	// Uninterrupted.
	ref := open(&exec.Checkpointing{FS: fs, WorkDir: "work-ref", Storage: storage})
	want := &topnOut{}
	feed(t, ref, before, 50)
	if err := ref.OnWatermark(9_999, want); err != nil {
		t.Fatal(err)
	}
	feed(t, ref, after, 50)
	if err := ref.OnWatermark(types.MaxWatermark, want); err != nil {
		t.Fatal(err)
	}
	ref.Close()

	op := open(cp)
	got := &topnOut{}
	feed(t, op, before, 50)
	if err := op.OnWatermark(9_999, got); err != nil {
		t.Fatal(err)
	}
	sn, err := op.Snapshot(1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, op, after[:10], 50) // after the barrier: not in the checkpoint
	op.Close()

	restore := &checkpoint.Metadata{ID: 1, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	op = open(&exec.Checkpointing{FS: fs, WorkDir: "work", Storage: storage, Restore: restore})
	feed(t, op, after, 50)
	if err := op.OnWatermark(types.MaxWatermark, got); err != nil {
		t.Fatal(err)
	}
	op.Close()
	if len(got.rows) < 100 || strings.Join(got.rows, "\n") != strings.Join(want.rows, "\n") {
		t.Fatalf("restored run emitted %d rows, uninterrupted %d; they differ", len(got.rows), len(want.rows))
	}
	if m != nil && m.Used() != 0 {
		t.Errorf("Used = %d after Close", m.Used())
	}

	// A query whose Top-N orders otherwise refuses the checkpoint.
	spec.Order = spec.Order[:1]
	bad, err := NewWindowTopN(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	err = bad.Open(&exec.TaskContext{MaxParallelism: exec.DefaultMaxParallelism, Checkpoint: &exec.Checkpointing{FS: fs, WorkDir: "work2", Storage: storage, Restore: restore}})
	if err == nil || !strings.Contains(err.Error(), "incompatible") {
		t.Fatalf("restore with another order: %v", err)
	}
}

// TestTopNStarved runs a Top-N whose manager another operator has
// exhausted: the segments it held back from Open let its sorter start, and
// it spills runs of a row or so, still in order.
func TestTopNStarved(t *testing.T) {
	m, err := memseg.NewManager(64<<10, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	op, err := NewWindowTopN(testSpec(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Open(&exec.TaskContext{Memory: m, BatchSize: 100}); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var hog [][]byte
	for {
		s, err := m.Alloc()
		if err != nil {
			break
		}
		hog = append(hog, s)
	}
	rows := randRows(rand.New(rand.NewSource(3)), 2000, []int64{10_000, 20_000})
	out := &topnOut{}
	feed(t, op, rows, 64)
	if err := op.OnWatermark(9_999, out); err != nil {
		t.Fatal(err)
	}
	if err := op.OnWatermark(types.MaxWatermark, out); err != nil {
		t.Fatal(err)
	}
	want := reference(rows, 0)
	if strings.Join(out.rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d rows differ from the reference's %d", len(out.rows), len(want))
	}
	for _, s := range hog {
		m.Free(s)
	}
	op.Close()
	if u := m.Used(); u != 0 {
		t.Errorf("Used = %d after Close", u)
	}
}
