package rank

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// topnEvent is one input of a Top-N: rows, a watermark, or a barrier.
type topnEvent struct {
	rows    []topnRow
	wm      int64
	barrier bool
}

// randEvents makes a stream in which several windows are pending at
// once, watermarks fire some of them, and barriers fall anywhere. No row
// is late: a restored Top-N starts without a watermark, and sources drop
// late rows before they reach it.
func randEvents(rng *rand.Rand, n int) []topnEvent {
	var ev []topnEvent
	wm := int64(0)
	for i := 0; i < n; i++ {
		switch rng.Intn(6) {
		case 0:
			// Fires the windows that end at wm at most.
			wm += int64(rng.Intn(3)) * 10
			ev = append(ev, topnEvent{wm: wm - 1})
		case 1:
			ev = append(ev, topnEvent{barrier: true})
		default:
			base := wm + 10
			var ends []int64
			for k := 0; k < 1+rng.Intn(3); k++ {
				ends = append(ends, base+int64(k)*10)
			}
			ev = append(ev, topnEvent{rows: randRows(rng, 1+rng.Intn(200), ends)})
		}
	}
	return append(ev, topnEvent{wm: types.MaxWatermark})
}

// TestTopNCheckpointsRandom checkpoints a Top-N at every barrier of
// random streams, restores it from each checkpoint and replays the rest:
// what was emitted before the checkpoint and what the restored operator
// emits is what an uninterrupted run emits.
func TestTopNCheckpointsRandom(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		budget := []int64{0, 64 << 10}[seed%2]
		t.Run(fmt.Sprint(seed), func(t *testing.T) { testCheckpointsRandom(t, seed, budget) })
	}
}

func testCheckpointsRandom(t *testing.T, seed, budget int64) {
	var m *memseg.Manager
	if budget > 0 {
		var err error
		if m, err = memseg.NewManager(budget, 4<<10); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	events := randEvents(rng, 40)
	fs := vfs.NewMem()
	storage, err := checkpoint.OpenStorage(fs, "cp")
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec(t.TempDir())
	spec.Limit = int64(rng.Intn(30))
	if seed%3 == 0 {
		spec.Partition = []int{1}
	}
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
	// run feeds the events from index from on, taking a checkpoint at every barrier;
	// it returns the output and, per barrier, the checkpoint and the
	// number of rows emitted before it.
	type taken struct {
		event int
		meta  *checkpoint.Metadata
		rows  int
	}
	run := func(op *WindowTopN, from int, id int64) ([]string, []taken) {
		out := &topnOut{}
		var cps []taken
		for i := from; i < len(events); i++ {
			e := events[i]
			switch {
			case e.barrier:
				id++
				sn, err := op.Snapshot(id)
				if err != nil {
					t.Fatal(err)
				}
				h, err := sn.State.Upload(storage)
				if err != nil {
					t.Fatal(err)
				}
				cps = append(cps, taken{event: i, rows: len(out.rows), meta: &checkpoint.Metadata{ID: id, Operators: []checkpoint.OperatorState{{
					UID: sn.UID, Fingerprint: sn.Fingerprint, MaxParallelism: exec.DefaultMaxParallelism,
					Subtasks: []checkpoint.SubtaskState{{KeyGroupLo: sn.KeyGroupLo, KeyGroupHi: sn.KeyGroupHi, Handle: h}},
				}}}})
			case e.rows != nil:
				feed(t, op, e.rows, 37)
			default:
				if err := op.OnWatermark(e.wm, out); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := op.Close(); err != nil {
			t.Fatal(err)
		}
		return out.rows, cps
	}
	want, cps := run(open(&exec.Checkpointing{FS: fs, WorkDir: "ref", Storage: storage}), 0, 0)
	if len(want) == 0 {
		t.Fatal("no output")
	}
	if spec.Partition == nil {
		var rows []topnRow
		for _, e := range events {
			rows = append(rows, e.rows...)
		}
		if ref := reference(rows, int(spec.Limit)); strings.Join(want, "\n") != strings.Join(ref, "\n") {
			t.Fatalf("%d rows differ from the reference's %d", len(want), len(ref))
		}
	}
	for k, c := range cps {
		got, _ := run(open(&exec.Checkpointing{FS: fs, WorkDir: fmt.Sprintf("r%d", k), Storage: storage, Restore: c.meta}), c.event+1, c.meta.ID+1000)
		got = append(want[:c.rows:c.rows], got...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("restored from checkpoint %d (event %d): %d rows, want %d", c.meta.ID, c.event, len(got), len(want))
		}
	}
	if m != nil && m.Used() != 0 {
		t.Errorf("Used = %d after Close", m.Used())
	}
	t.Logf("%d rows, %d checkpoints", len(want), len(cps))
}
