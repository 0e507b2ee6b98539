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

// Both sides are (k BIGINT, v STRING), joined on k.
var side = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TString}}

func spec(kind Kind) Spec {
	return Spec{UID: "join-test", Kind: kind, Left: side, Right: side, LeftKeys: []int{0}, RightKeys: []int{0},
		Out: append(append(types.Schema{}, side...), side...)}
}

// row is one input row: kind, key (nil for NULL) and value.
type row struct {
	kind exec.RowKind
	k    *int64
	v    string
}

func ins(k int64, v string) row { return row{exec.Insert, &k, v} }
func del(k int64, v string) row { return row{exec.Delete, &k, v} }
func upB(k int64, v string) row { return row{exec.UpdateBefore, &k, v} }
func upA(k int64, v string) row { return row{exec.UpdateAfter, &k, v} }
func insNull(v string) row      { return row{exec.Insert, nil, v} }
func delNull(v string) row      { return row{exec.Delete, nil, v} }
func batch(rows ...row) arrow.RecordBatch {
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewStringBuilder(memory.DefaultAllocator)
	defer kb.Release()
	defer vb.Release()
	kinds := make([]exec.RowKind, len(rows))
	for i, r := range rows {
		if r.k == nil {
			kb.AppendNull()
		} else {
			kb.Append(*r.k)
		}
		vb.Append(r.v)
		kinds[i] = r.kind
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	return exec.WithKinds(array.NewRecordBatch(side.Arrow(), []arrow.Array{k, v}, int64(len(rows))), kinds)
}

// collect renders the emitted rows as the print sink would.
type collect struct{ lines []string }

func (c *collect) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, col := range b.Columns() {
			if col.IsNull(r) {
				vals = append(vals, "null")
			} else {
				vals = append(vals, col.ValueStr(r))
			}
		}
		c.lines = append(c.lines, exec.KindOf(b, r).String()+"["+strings.Join(vals, ", ")+"]")
	}
	return nil
}

func (c *collect) take() []string { out := c.lines; c.lines = nil; return out }

// open opens a join with a small cache (state.Cache).
func open(t *testing.T, s Spec, cp *exec.Checkpointing) *Join {
	t.Helper()
	return openCached(t, s, cp, 16<<10)
}

// openCached is open with a cache of share bytes of managed memory (none
// for 0).
func openCached(t *testing.T, s Spec, cp *exec.Checkpointing, share int64) *Join {
	t.Helper()
	j, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	if cp == nil {
		cp = &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}
	}
	ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 2, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
		Now: func() int64 { return 0 }, Checkpoint: cp}
	if share > 0 {
		mem, err := memseg.NewManager(share, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		ctx.Memory, ctx.MemoryShare = mem, share
	}
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// step is one input batch and the changes it must emit, in order.
type step struct {
	side exec.Side
	rows []row
	want []string
}

func run(t *testing.T, j *Join, steps []step) {
	t.Helper()
	out := &collect{}
	for i, s := range steps {
		b := batch(s.rows...)
		err := j.ProcessInput(s.side, b, out)
		b.Release()
		if err != nil {
			t.Fatal(err)
		}
		if got := out.take(); !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%s): emitted\n  %s\nwant\n  %s", i, s.side, strings.Join(got, "\n  "), strings.Join(s.want, "\n  "))
		}
	}
}

func TestLeftJoinPadsAndRetracts(t *testing.T) {
	run(t, open(t, spec(LeftOuter), nil), []step{
		{exec.Left, []row{ins(1, "a")}, []string{"+I[1, a, null, null]"}},
		{exec.Right, []row{ins(1, "x")}, []string{"-D[1, a, null, null]", "+I[1, a, 1, x]"}},
		{exec.Right, []row{ins(1, "y"), ins(2, "z")}, []string{"+I[1, a, 1, y]"}},
		{exec.Right, []row{del(1, "x")}, []string{"-D[1, a, 1, x]"}},
		{exec.Right, []row{del(1, "y")}, []string{"-D[1, a, 1, y]", "+I[1, a, null, null]"}},
		{exec.Left, []row{del(1, "a")}, []string{"-D[1, a, null, null]"}},
		// A NULL key matches nothing, and is padded and taken back.
		{exec.Left, []row{insNull("n"), delNull("n")}, []string{"+I[null, n, null, null]", "-D[null, n, null, null]"}},
		// A retraction of a row never stored emits nothing.
		{exec.Left, []row{del(5, "never")}, nil},
		{exec.Right, []row{insNull("m")}, nil},
	})
}

func TestFullJoinPadsBothSides(t *testing.T) {
	run(t, open(t, spec(FullOuter), nil), []step{
		{exec.Right, []row{ins(2, "z")}, []string{"+I[null, null, 2, z]"}},
		{exec.Left, []row{ins(2, "b")}, []string{"-D[null, null, 2, z]", "+I[2, b, 2, z]"}},
		{exec.Left, []row{ins(2, "c")}, []string{"+I[2, c, 2, z]"}},
		{exec.Left, []row{del(2, "b"), del(2, "c")}, []string{"-D[2, b, 2, z]", "-D[2, c, 2, z]", "+I[null, null, 2, z]"}},
		{exec.Right, []row{del(2, "z")}, []string{"-D[null, null, 2, z]"}},
	})
}

func TestRightJoinDuplicateRows(t *testing.T) {
	// Two copies of a row are one entry with a count of two.
	run(t, open(t, spec(RightOuter), nil), []step{
		{exec.Right, []row{ins(3, "r"), ins(3, "r")}, []string{"+I[null, null, 3, r]", "+I[null, null, 3, r]"}},
		{exec.Left, []row{ins(3, "l")}, []string{"-D[null, null, 3, r]", "-D[null, null, 3, r]", "+I[3, l, 3, r]", "+I[3, l, 3, r]"}},
		{exec.Right, []row{del(3, "r")}, []string{"-D[3, l, 3, r]"}},
		{exec.Left, []row{del(3, "l")}, []string{"-D[3, l, 3, r]", "+I[null, null, 3, r]"}},
	})
}

func TestInnerJoinKeepsUpdateKinds(t *testing.T) {
	// A side that is not outer passes its input's kinds on.
	run(t, open(t, spec(Inner), nil), []step{
		{exec.Right, []row{ins(1, "x")}, nil},
		{exec.Left, []row{ins(1, "a")}, []string{"+I[1, a, 1, x]"}},
		{exec.Left, []row{upB(1, "a"), upA(1, "b")}, []string{"-U[1, a, 1, x]", "+U[1, b, 1, x]"}},
		{exec.Right, []row{ins(2, "w")}, nil},
	})
}

func TestResidualDecidesMatches(t *testing.T) {
	// LEFT JOIN ... ON l.k = r.k AND l.v < r.v: a left row whose only
	// candidate fails the condition stays padded.
	s := spec(LeftOuter)
	s.Residual = &expr.Call{Fn: expr.Lt, T: types.TBoolean, Args: []expr.Expr{
		&expr.Col{Index: 1, Name: "v", T: types.TString}, &expr.Col{Index: 3, Name: "v", T: types.TString}}}
	run(t, open(t, s, nil), []step{
		{exec.Right, []row{ins(1, "m")}, nil},
		{exec.Left, []row{ins(1, "a"), ins(1, "z")}, []string{"+I[1, a, 1, m]", "+I[1, z, null, null]"}},
		{exec.Right, []row{ins(1, "zz")}, []string{"+I[1, a, 1, zz]", "-D[1, z, null, null]", "+I[1, z, 1, zz]"}},
	})
}

// TestResidualOverLeadingColumns: a residual condition that reads only
// the first column of each side (l.k < 2 AND r.k < 2) decides the pairs,
// whose other columns it does not decode (rows.only), and the joined rows
// still carry every column.
func TestResidualOverLeadingColumns(t *testing.T) {
	s := spec(Inner)
	lt2 := func(i int) expr.Expr {
		return &expr.Call{Fn: expr.Lt, T: types.TBoolean, Args: []expr.Expr{
			&expr.Col{Index: i, Name: "k", T: types.TBigInt}, &expr.Lit{V: types.IntValue(types.TBigInt, 2)}}}
	}
	s.Residual = &expr.Call{Fn: expr.And, T: types.TBoolean, Args: []expr.Expr{lt2(0), lt2(2)}}
	run(t, open(t, s, nil), []step{
		{exec.Right, []row{ins(1, "x"), ins(3, "y")}, nil},
		{exec.Left, []row{ins(1, "a"), ins(3, "b")}, []string{"+I[1, a, 1, x]"}},
	})
}

func TestSpecRefusesKeysThatDoNotCompare(t *testing.T) {
	s := spec(Inner)
	s.RightKeys = []int{1}
	if _, err := New(s); err == nil {
		t.Fatal("a BIGINT key joined to a STRING key")
	}
	s = spec(Inner)
	s.LeftKeys = nil
	if _, err := New(s); err == nil {
		t.Fatal("a join without keys")
	}
	inner, left := spec(Inner), spec(LeftOuter)
	if inner.Fingerprint() == left.Fingerprint() {
		t.Fatal("the kind is part of the fingerprint")
	}
}

func TestSemiJoinEmitsMatchedLeftRowsOnce(t *testing.T) {
	s := spec(Semi)
	s.Out = side
	run(t, open(t, s, nil), []step{
		{exec.Left, []row{ins(1, "a")}, nil},
		{exec.Right, []row{ins(1, "x")}, []string{"+I[1, a]"}},
		{exec.Right, []row{ins(1, "y")}, nil},
		{exec.Left, []row{ins(1, "b"), insNull("n")}, []string{"+I[1, b]"}},
		{exec.Right, []row{del(1, "x")}, nil},
		{exec.Right, []row{del(1, "y")}, []string{"-D[1, a]", "-D[1, b]"}},
		{exec.Left, []row{del(1, "a")}, nil},
		{exec.Right, []row{ins(1, "z")}, []string{"+I[1, b]"}},
		{exec.Left, []row{upB(1, "b"), upA(1, "c")}, []string{"-U[1, b]", "+U[1, c]"}},
	})
}
