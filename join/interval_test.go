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
	"github.com/strandsql/strand/types"
)

// Both sides of the interval tests are (ts TIMESTAMP(3), k BIGINT).
var timed = types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}}

// ivSpec bounds lt - rt to [-2000, 1000] ms.
func ivSpec(kind Kind) IntervalSpec {
	return IntervalSpec{UID: "interval-test", Kind: kind, Left: timed, Right: timed, LeftKeys: []int{1}, RightKeys: []int{1},
		LeftTime: 0, RightTime: 0, Lower: -2000, Upper: 1000, Out: append(append(types.Schema{}, timed...), timed...)}
}

// at makes a batch of rows (ts ms, k).
func at(rows ...int64) arrow.RecordBatch {
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, timed[0].Type.Arrow().(*arrow.TimestampType))
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	defer tb.Release()
	defer kb.Release()
	for i := 0; i < len(rows); i += 2 {
		tb.Append(arrow.Timestamp(rows[i]))
		kb.Append(rows[i+1])
	}
	t, k := tb.NewArray(), kb.NewArray()
	defer t.Release()
	defer k.Release()
	return array.NewRecordBatch(timed.Arrow(), []arrow.Array{t, k}, int64(len(rows)/2))
}

func openInterval(t *testing.T, s IntervalSpec) *IntervalJoin {
	t.Helper()
	j, err := NewInterval(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, BatchSize: 2, MaxParallelism: exec.DefaultMaxParallelism, Parallelism: 1,
		Now: func() int64 { return 0 }, Checkpoint: &exec.Checkpointing{FS: vfs.NewMem(), WorkDir: "w"}}
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// ivStep is an input batch (b non-nil) or a watermark of side, and what
// it must emit.
type ivStep struct {
	side exec.Side
	b    arrow.RecordBatch
	wm   int64
	want []string
}

func runInterval(t *testing.T, j *IntervalJoin, steps []ivStep) {
	t.Helper()
	out := &collect{}
	for i, s := range steps {
		var err error
		if s.b != nil {
			err = j.ProcessInput(s.side, s.b, out)
			s.b.Release()
		} else {
			err = j.OnInputWatermark(s.side, s.wm, out)
		}
		if err != nil {
			t.Fatal(err)
		}
		got := out.take()
		for k := range got {
			got[k] = strings.ReplaceAll(got[k], "1970-01-01T00:00:", "")
		}
		if !slices.Equal(got, s.want) {
			t.Fatalf("step %d (%s): emitted\n  %s\nwant\n  %s", i, s.side, strings.Join(got, "\n  "), strings.Join(s.want, "\n  "))
		}
	}
}

// TestIntervalJoinPairsAndPads: rows pair within the bounds, both ways
// round; a watermark frees the other side's rows no later row can pair
// with, padding an outer side's unmatched ones (each copy), and a row
// that arrives with nothing left to pair with is padded at once.
func TestIntervalJoinPairsAndPads(t *testing.T) {
	j := openInterval(t, ivSpec(FullOuter))
	runInterval(t, j, []ivStep{
		{side: exec.Left, b: at(5000, 1, 5000, 1, 9000, 2), want: nil},
		// 4000 - 5000 = -1000 and 6500: 5000 - 6500 = -1500 pair; 7500 does not.
		{side: exec.Right, b: at(4000, 1, 7500, 1, 6500, 1), want: []string{
			"+I[05, 1, 04, 1]", "+I[05, 1, 04, 1]", "+I[05, 1, 06.5, 1]", "+I[05, 1, 06.5, 1]"}},
		// The right watermark 7001 frees left rows with lt + 2000 < 7001: 5000 (matched).
		{side: exec.Right, wm: 7001, want: nil},
		// 9000 - 1000 = 8000 pairs with a right row at [8000, 11000]; the
		// left watermark 9001 frees right rows with rt + 1000 < 9001:
		// 4000 and 6500 (matched), and 7500, unmatched: padded.
		{side: exec.Left, wm: 9001, want: []string{"+I[null, null, 07.5, 1]"}},
		// A right row at 7000 pairs with left rows at [5000, 8000], all
		// freed or none to come (left watermark 9001): padded at once.
		{side: exec.Right, b: at(7000, 1), want: []string{"+I[null, null, 07, 1]"}},
		{side: exec.Right, wm: 20000, want: []string{"+I[09, 2, null, null]"}},
	})
	if got := j.Held(10000); got != 10000-2000-1 {
		t.Errorf("Held(10000) = %d, want the watermark less the larger bound and 1 ms", got)
	}
	if got := j.Held(types.MaxWatermark); got != types.MaxWatermark {
		t.Errorf("Held keeps the end of time: %d", got)
	}
}

// TestIntervalJoinInner: an inner join pads nothing and keeps no row it
// cannot pair.
func TestIntervalJoinInner(t *testing.T) {
	j := openInterval(t, ivSpec(Inner))
	runInterval(t, j, []ivStep{
		{side: exec.Right, b: at(1000, 7, 2000, 8), want: nil},
		{side: exec.Left, b: at(2000, 7, 0, 8), want: []string{"+I[02, 7, 01, 7]", "+I[00, 8, 02, 8]"}},
		{side: exec.Left, wm: 100000, want: nil},
		{side: exec.Right, wm: 100000, want: nil},
	})
}
