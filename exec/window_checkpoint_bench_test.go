package exec

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// BenchmarkWindowCheckpoint measures what a checkpoint of a window
// aggregate costs when it holds 1M groups: the first checkpoint, which
// writes all of them (a full-state checkpoint; the median of three, each
// of fresh state), against later ones after 1% of the groups changed.
// Each checkpoint's CPU is the process's (user + system, every goroutine)
// over the snapshot, the upload into checkpoint storage on local disk, and
// 50 ms after it, so that Pebble's background work (flushes, compactions)
// the checkpoint set off is counted; the figure for 1% is the mean of
// checkpoints 201 to 600, which hold four of the window's rewrites of its
// whole state (one per 100 or so checkpoints at 1%, when its entries hold
// twice its groups: window's compactAt), and 1%-all the mean of all 600.
//
//	go test -run '^$' -bench WindowCheckpoint -benchtime 1x ./exec
func BenchmarkWindowCheckpoint(b *testing.B) {
	const keys, rounds, warm = 1_000_000, 600, 200
	for b.Loop() {
		// The full figure is the median of three full checkpoints, each of
		// fresh state: a single one, about 150 ms, ran from 141 to 208 ms
		// on a busy machine. The 1% rounds go on from the last of them.
		var fulls []time.Duration
		var fullBytes int64
		var w *WindowAgg
		var checkpointCPU func(kind string) (time.Duration, state.Handle)
		var src state.Source
		for range 3 {
			if w != nil {
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			w, checkpointCPU, src = windowState(b, keys)
			full, h := checkpointCPU("full")
			fulls, fullBytes = append(fulls, full), h.BytesUploaded
		}
		slices.Sort(fulls)
		full := fulls[1]
		rng := rand.New(rand.NewPCG(1, 2))
		var incs []time.Duration
		var lastFull, lastDelta state.Handle
		var incBytes []int64
		for round := range rounds {
			changed := make([]int64, keys/100)
			for i := range changed {
				changed[i] = rng.Int64N(keys)
			}
			feedKeys(b, w, changed)
			kind := "changed"
			if round >= warm {
				kind = "steady"
			}
			c, h := checkpointCPU(kind)
			incs, incBytes = append(incs, c), append(incBytes, h.BytesUploaded)
			if deltas(h) == 0 {
				lastFull = h
			}
			lastDelta = h
		}
		// What the process spends over the 50 ms each checkpoint's figure
		// counts after its upload when no checkpoint is taken (the
		// runtime's and an idle store's work): part of every figure
		// above, not of the checkpoint.
		var idle time.Duration
		for range 20 {
			c0 := processCPU()
			time.Sleep(50 * time.Millisecond)
			idle += processCPU() - c0
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		// What a restore of the last checkpoint costs, with its deltas,
		// against one of the last full snapshot (the same groups): each
		// the second of two, so that neither pays for the first open.
		restoreCPU(b, src, lastFull)
		restoreCPU(b, src, lastDelta)
		b.ReportMetric(float64(restoreCPU(b, src, lastDelta).Microseconds())/1000, "restore-ms")
		b.ReportMetric(float64(restoreCPU(b, src, lastFull).Microseconds())/1000, "restore-full-ms")
		b.ReportMetric(float64(deltas(lastDelta)), "restore-deltas")
		// The mean, not the median, of the checkpoints after warm: the
		// window rewrites its state once its entries hold compactAt
		// versions of each group (every 100 or so checkpoints at 1%), and
		// those checkpoints' share counts.
		var inc time.Duration
		var incB int64
		steady := incs[warm:]
		for i := range steady {
			inc, incB = inc+steady[i], incB+incBytes[warm+i]
		}
		inc, incB = inc/time.Duration(len(steady)), incB/int64(len(steady))
		b.ReportMetric(float64(full.Microseconds())/1000, "full-cpu-ms")
		b.ReportMetric(float64(inc.Microseconds())/1000, "1%-cpu-ms")
		var all time.Duration
		for _, c := range incs {
			all += c
		}
		b.ReportMetric(float64((all/time.Duration(len(incs))).Microseconds())/1000, "1%-all-cpu-ms")
		b.ReportMetric(float64(full)/float64(inc), "full/1%")
		b.ReportMetric(float64(fullBytes)/(1<<20), "full-MiB")
		b.ReportMetric(float64(incB)/(1<<20), "1%-MiB")
		b.ReportMetric(float64((idle/20).Microseconds())/1000, "idle-cpu-ms")
	}
}

// windowState returns a window aggregate holding keys groups, with
// checkpoint storage in a fresh directory, and the function that takes
// its next checkpoint (kind labels its profile samples) and returns the
// checkpoint's process CPU and the bytes it uploaded.
func windowState(b *testing.B, keys int) (*WindowAgg, func(kind string) (time.Duration, state.Handle), state.Source) {
	dir := b.TempDir()
	st, err := checkpoint.OpenStorage(vfs.Default, filepath.Join(dir, "cp"))
	if err != nil {
		b.Fatal(err)
	}
	m, err := memseg.NewManager(1<<30, memseg.DefaultSegmentSize)
	if err != nil {
		b.Fatal(err)
	}
	schema := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "k", Type: types.TBigInt}}
	spec := window.Spec{Window: window.TumbleOf(3_600_000, 0), In: schema, TimeCol: 0, Keys: []int{1},
		Aggs: []agg.Call{{Kind: agg.CountStar, Arg: -1, Filter: -1, Out: types.TBigInt}, {Kind: agg.Sum, Arg: 1, Filter: -1, Out: types.TBigInt}}}
	w := &WindowAgg{Spec: spec, UID: "w"}
	cp := &Checkpointing{Storage: st, FS: vfs.Default, WorkDir: filepath.Join(dir, "work")}
	if err := w.Open(&TaskContext{Alloc: memory.DefaultAllocator, Metrics: &Metrics{}, BatchSize: 4096, MaxParallelism: DefaultMaxParallelism,
		Parallelism: 1, Memory: m, Checkpoint: cp}); err != nil {
		b.Fatal(err)
	}
	all := make([]int64, keys)
	for i := range all {
		all[i] = int64(i)
	}
	feedKeys(b, w, all)
	id := int64(0)
	// Profile samples are labeled checkpoint=full|changed|steady (pprof
	// -tagfocus), Pebble's background work included.
	return w, func(kind string) (cpu time.Duration, h state.Handle) {
		id++
		c0 := processCPU()
		pprof.Do(context.Background(), pprof.Labels("checkpoint", kind), func(context.Context) {
			sn, err := w.Snapshot(id)
			if err != nil {
				b.Fatal(err)
			}
			if h, err = sn.State.Upload(st); err != nil {
				b.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		})
		return processCPU() - c0, h
	}, st
}

// deltas counts the deltas h lists.
func deltas(h state.Handle) int {
	n := 0
	for _, f := range h.Files {
		if f.IsDelta() {
			n++
		}
	}
	return n
}

// restoreCPU is the process CPU of restoring h from src into a local
// directory and reading every entry, as a restore does.
func restoreCPU(b *testing.B, src state.Source, h state.Handle) time.Duration {
	c0 := processCPU()
	r, err := state.OpenHandle(vfs.Default, src, h, filepath.Join(b.TempDir(), "restore"))
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	if err := r.Scan("w", 0, ^uint16(0), "", func(uint16, string, []byte, []byte) error { n++; return nil }); err != nil {
		b.Fatal(err)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	if n == 0 {
		b.Fatal("restored nothing")
	}
	return processCPU() - c0
}

// feedKeys folds one row per key into w, at time 0.
func feedKeys(b *testing.B, w *WindowAgg, keys []int64) {
	for lo := 0; lo < len(keys); lo += 4096 {
		chunk := keys[lo:min(lo+4096, len(keys))]
		ts := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Millisecond})
		ks := array.NewInt64Builder(memory.DefaultAllocator)
		for _, k := range chunk {
			ts.Append(0)
			ks.Append(k)
		}
		cols := []arrow.Array{ts.NewArray(), ks.NewArray()}
		rec := array.NewRecordBatch(w.Spec.In.Arrow(), cols, int64(len(chunk)))
		if err := w.Process(rec, nil); err != nil {
			b.Fatal(err)
		}
		rec.Release()
		for _, c := range cols {
			c.Release()
		}
		ts.Release()
		ks.Release()
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
