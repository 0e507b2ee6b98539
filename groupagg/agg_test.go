package groupagg

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// in is the test input: (k BIGINT, v BIGINT).
var in = types.Schema{{Name: "k", Type: types.TBigInt}, {Name: "v", Type: types.TBigInt}}

// rows makes a batch of (kind, k, v) triples, v < 0 meaning NULL.
func rows(t ...int) arrow.RecordBatch {
	kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	defer kb.Release()
	defer vb.Release()
	var kinds []exec.RowKind
	for i := 0; i < len(t); i += 3 {
		kinds = append(kinds, exec.RowKind(t[i]))
		kb.Append(int64(t[i+1]))
		if t[i+2] < 0 {
			vb.AppendNull()
		} else {
			vb.Append(int64(t[i+2]))
		}
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	return exec.WithKinds(array.NewRecordBatch(in.Arrow(), []arrow.Array{k, v}, int64(len(kinds))), kinds)
}

type lines []string

func (l *lines) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := range int(b.NumRows()) {
		var vals []string
		for _, c := range b.Columns() {
			vals = append(vals, c.ValueStr(r))
		}
		*l = append(*l, exec.KindOf(b, r).String()+"["+strings.Join(vals, ", ")+"]")
	}
	return nil
}

func open(t *testing.T, spec Spec, mem *memseg.Manager) *Agg {
	t.Helper()
	a, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if err := a.Open(&exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 64, MaxParallelism: exec.DefaultMaxParallelism,
		Parallelism: 1, Memory: mem, Scratch: &exec.Scratch{Parent: t.TempDir()}, Now: func() int64 { return 0 }}); err != nil {
		t.Fatal(err)
	}
	return a
}

func spec(retract bool) Spec {
	big := types.TBigInt.WithNotNull(true)
	return Spec{UID: "g", In: in, Keys: []int{0}, Retract: retract, Aggs: []agg.Call{
		{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: big},
		{Kind: agg.Max, Arg: 1, Filter: -1, Out: types.TBigInt},
	}}
}

const (
	ins = int(exec.Insert)
	ub  = int(exec.UpdateBefore)
	ua  = int(exec.UpdateAfter)
	del = int(exec.Delete)
)

// Each row's change, in order, as Flink's GroupAggFunction: +I for a new
// group, -U/+U for a change, -D when the last row goes, and nothing for a
// retraction of a group that has no rows.
func TestChanges(t *testing.T) {
	a := open(t, spec(true), nil)
	var out lines
	for _, b := range []arrow.RecordBatch{
		rows(ins, 1, 5, ins, 2, 7, ins, 1, 9, del, 3, 1),
		rows(ub, 1, 9, ua, 1, 4, del, 2, 7, del, 1, 5, del, 1, 4),
	} {
		if err := a.Process(b, &out); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	want := lines{"+I[1, 1, 5]", "+I[2, 1, 7]", "-U[1, 1, 5]", "+U[1, 2, 9]",
		"-U[1, 2, 9]", "+U[1, 1, 5]", "-U[1, 1, 5]", "+U[1, 2, 5]", "-D[2, 1, 7]", "-U[1, 2, 5]", "+U[1, 1, 4]", "-D[1, 1, 4]"}
	if !slices.Equal(out, want) {
		t.Fatalf("changes\n  %s\nwant\n  %s", strings.Join(out, "\n  "), strings.Join(want, "\n  "))
	}
}

// A row that leaves the result as it was emits no -U/+U pair.
func TestUnchangedResultEmitsNothing(t *testing.T) {
	s := spec(false)
	s.Aggs = s.Aggs[1:] // MAX(v) alone
	a := open(t, s, nil)
	var out lines
	b := rows(ins, 1, 5, ins, 1, 3, ins, 1, -1, ins, 1, 8)
	defer b.Release()
	if err := a.Process(b, &out); err != nil {
		t.Fatal(err)
	}
	if want := (lines{"+I[1, 5]", "-U[1, 5]", "+U[1, 8]"}); !slices.Equal(out, want) {
		t.Fatalf("changes %q, want %q", out, want)
	}
}

// With a budget that holds a few groups, the cache (groups and DISTINCT
// values) goes back to the store after every batch, and the results are
// those of a roomy one; a batch
// whose own groups cannot fit fails with ErrMemory.
func TestCacheEviction(t *testing.T) {
	s := spec(false)
	s.Aggs = append(s.Aggs, agg.Call{Kind: agg.Count, Arg: 1, Filter: -1, Distinct: true, Out: types.TBigInt.WithNotNull(true)})
	run := func(mem *memseg.Manager, batches int) (lines, error) {
		a := open(t, s, mem)
		var out lines
		for i := range batches {
			var ts []int
			for k := range 40 {
				ts = append(ts, ins, (k*7+i)%97, (i*40+k)%13)
			}
			b := rows(ts...)
			err := a.Process(b, &out)
			b.Release()
			if err != nil {
				return nil, err
			}
		}
		slices.Sort(out)
		return out, nil
	}
	want, err := run(nil, 30)
	if err != nil {
		t.Fatal(err)
	}
	small, err := memseg.NewManager(16<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := run(small, 30)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) || len(want) < 1000 {
		t.Fatalf("with 16 KiB: %d changes, with the default budget %d", len(got), len(want))
	}
	tiny, err := memseg.NewManager(1<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(tiny, 1); !errors.Is(err, ErrMemory) {
		t.Fatalf("40 groups in 1 KiB: %v, want ErrMemory", err)
	}
}

// TestGrowWithinBudget: a budget with room for a batch's few groups but
// not for the 64 slots the cache takes ahead still runs the batch: grow
// falls back to the slots it needs.
func TestGrowWithinBudget(t *testing.T) {
	s := spec(false)
	s.Aggs = append(s.Aggs, agg.Call{Kind: agg.Sum, Arg: 1, Filter: -1, Out: types.TBigInt})
	mem, err := memseg.NewManager(4<<10, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	run := func(mem *memseg.Manager) lines {
		a := open(t, s, mem)
		if ahead := 64 * a.slotBytes; mem != nil && int64(ahead) <= mem.Budget() {
			t.Fatalf("64 slots take %d bytes, within the budget of %d: the test needs a smaller budget", ahead, mem.Budget())
		}
		var out lines
		b := rows(ins, 1, 10, ins, 2, 20, ins, 1, 5)
		defer b.Release()
		if err := a.Process(b, &out); err != nil {
			t.Fatalf("two groups: %v", err)
		}
		return out
	}
	if got, want := run(mem), run(nil); !slices.Equal(got, want) {
		t.Fatalf("in 4 KiB: %v, want %v", got, want)
	}
}

// TestGrowChargesWhatItTakes: the columns never take more room than the
// budget was charged for. They double when they grow (agg.Grow), so a
// fallback that charges for the slots a batch needs, fewer than double,
// leaves the rest of what they took uncharged.
func TestGrowChargesWhatItTakes(t *testing.T) {
	s := spec(false)
	s.Aggs = append(s.Aggs, agg.Call{Kind: agg.Sum, Arg: 1, Filter: -1, Out: types.TBigInt})
	const groups = 100
	var ts []int
	for k := range groups {
		ts = append(ts, ins, k, k)
	}
	b := rows(ts...)
	defer b.Release()
	// The bytes the batch's table takes, beside the columns.
	roomy, err := memseg.NewManager(1<<20, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, s, roomy)
	var out lines
	if err := a.Process(b, &out); err != nil {
		t.Fatal(err)
	}
	table := int(roomy.Used()) - a.charged
	// A budget with room for the batch's slots, exactly: not for 128.
	mem, err := memseg.NewManager(int64(table+groups*a.slotBytes), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	a = open(t, s, mem)
	if err := a.Process(b, &out); err != nil && !errors.Is(err, ErrMemory) {
		t.Fatal(err)
	}
	if took := cap(a.cnt) * a.slotBytes; took > a.charged {
		t.Fatalf("the columns take %d slots, %d bytes; %d charged (%d slots)", cap(a.cnt), took, a.charged, a.charged/a.slotBytes)
	}
}
