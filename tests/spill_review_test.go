package tests

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// failIngestFS fails the creation of the SST a checkpoint ingests while
// fail is set: a full disk at the moment of a checkpoint.
type failIngestFS struct {
	vfs.FS
	fail atomic.Bool
}

func (f *failIngestFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if f.fail.Load() && strings.HasPrefix(f.PathBase(name), "ingest-") {
		return nil, errors.New("injected: no space left on device")
	}
	return f.FS.Create(name, cat)
}

var tkSchema = types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}}

// tkBatch makes a batch of rows (ts, k) with keys lo..hi-1 at time ts.
func tkBatch(ts int64, lo, hi int64) arrow.RecordBatch {
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	for k := lo; k < hi; k++ {
		tb.Append(arrow.Timestamp(ts))
		kb.Append(k)
	}
	cols := []arrow.Array{tb.NewArray(), kb.NewArray()}
	return array.NewRecordBatch(tkSchema.Arrow(), cols, hi-lo)
}

type lines []string

func (l *lines) Emit(b arrow.RecordBatch) error {
	defer b.Release()
	for r := 0; r < int(b.NumRows()); r++ {
		var f []string
		for _, c := range b.Columns() {
			f = append(f, c.ValueStr(r))
		}
		*l = append(*l, strings.Join(f, ","))
	}
	return nil
}

// TestFailedCheckpointThenSpill: a checkpoint whose ingest fails (the
// checkpoint is declined, the job goes on), then a spill, which deletes
// the window's checkpointed parts ("p") and moves its groups to spilled
// entries ("s"), then the window fires. The next checkpoint must not bring
// back the parts the failed one meant to write: restored, they would fire
// the window again.
func TestFailedCheckpointThenSpill(t *testing.T) {
	fs := &failIngestFS{FS: vfs.NewMem()}
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	aggs := []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt.WithNotNull(true)}}
	open := func(cp *exec.Checkpointing, budget int64) (*exec.WindowAgg, *exec.Metrics, *memseg.Manager) {
		op, err := exec.NewWindowAgg("w", window.Spec{Window: window.TumbleOf(1000, 0), In: tkSchema, TimeCol: 0, Keys: []int{1}, Aggs: aggs})
		if err != nil {
			t.Fatal(err)
		}
		m, err := memseg.NewManager(budget, 1<<10)
		if err != nil {
			t.Fatal(err)
		}
		metrics := &exec.Metrics{}
		ctx := &exec.TaskContext{Alloc: memory.DefaultAllocator, Metrics: metrics, BatchSize: 256, Parallelism: 1,
			MaxParallelism: exec.DefaultMaxParallelism, Checkpoint: cp, Memory: m}
		w := op.(*exec.WindowAgg)
		if err := w.Open(ctx); err != nil {
			t.Fatal(err)
		}
		return w, metrics, m
	}
	process := func(w *exec.WindowAgg, b arrow.RecordBatch) {
		defer b.Release()
		if err := w.Process(b, nil); err != nil {
			t.Fatal(err)
		}
	}

	w, metrics, m := open(&exec.Checkpointing{FS: fs, WorkDir: "work", Storage: storage}, 64<<10)
	var out lines
	process(w, tkBatch(100, 0, 200)) // window [0, 1000): fits in memory
	if metrics.Spills.Load() != 0 {
		t.Fatalf("%d spills before the failed checkpoint", metrics.Spills.Load())
	}
	fs.fail.Store(true)
	if _, err := w.Snapshot(1); err == nil {
		t.Fatal("snapshot succeeded with the ingest failing")
	}
	fs.fail.Store(false)
	process(w, tkBatch(200, 1000, 6000)) // the same window, too large: spills
	if metrics.Spills.Load() == 0 {
		t.Fatal("no spill")
	}
	if err := w.OnWatermark(999, &out); err != nil { // fires [0, 1000)
		t.Fatal(err)
	}
	if len(out) != 5200 {
		t.Fatalf("window fired %d rows, want 5200", len(out))
	}
	process(w, tkBatch(1500, 0, 10)) // window [1000, 2000)
	sn, err := w.Snapshot(2)
	if err != nil {
		t.Fatal(err)
	}
	h, err := sn.State.Upload(storage)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if m.Used() != 0 {
		t.Errorf("%d bytes of managed memory used after Close", m.Used())
	}

	restore := &checkpoint.Metadata{ID: 2, Operators: []checkpoint.OperatorState{{
		UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
		Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
	}}}
	w, _, _ = open(&exec.Checkpointing{FS: fs, WorkDir: "work", Storage: storage, Restore: restore}, 64<<10)
	defer w.Close()
	var again lines
	if err := w.OnWatermark(types.MaxWatermark, &again); err != nil {
		t.Fatal(err)
	}
	// Only window [1000, 2000) was open at checkpoint 2.
	n := 0
	for _, l := range again {
		if strings.Split(l, ",")[1] == "1970-01-01T00:00:00" {
			n++
		}
	}
	if n > 0 || len(again) != 10 {
		t.Errorf("the restored aggregate fired %d rows, %d of them of the window fired before the checkpoint; want 10, none:\n%q", len(again), n, again[:min(3, len(again))])
	}
}
