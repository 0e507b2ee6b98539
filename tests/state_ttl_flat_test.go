package tests

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
)

// ttlFlatDDL is two unbounded datagen streams whose keys are new all the
// time (random in 0..10^12) and whose event time runs 1 ms per row: a
// regular join over them keeps every row of both sides for a match that
// never comes, unless a state TTL drops them.
const ttlFlatDDL = `
CREATE TABLE a (k BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '20000', 'fields.k.min' = '0', 'fields.k.max' = '1000000000000',
      'fields.ts.step' = '1 ms', 'seed' = '1');
CREATE TABLE b (k BIGINT, w BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '20000', 'fields.k.min' = '0', 'fields.k.max' = '1000000000000',
      'fields.ts.step' = '1 ms', 'seed' = '2');
CREATE TABLE out (k BIGINT, v BIGINT, w BIGINT) WITH ('connector' = 'blackhole');
`

const ttlFlatQuery = `INSERT INTO out SELECT a.k, a.v, b.w FROM a JOIN b ON a.k = b.k;`

// ttlSample is the join's state each second: its entries, its store's
// bytes, and the process's Go heap.
type ttlSample struct{ keys, bytes, heap int64 }

// runTTLFlat runs the join for d with ttl (” for none) and samples it.
func runTTLFlat(t *testing.T, ttl string, d time.Duration) []ttlSample {
	t.Helper()
	t.Chdir(t.TempDir())
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = 1
	sess.Config[session.KeyMemory] = "16mb"
	if ttl != "" {
		sess.Config[session.KeyStateTTL] = ttl
	}
	if err := sess.ExecScript(context.Background(), ttlFlatDDL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- sess.ExecScript(ctx, ttlFlatQuery) }()
	var samples []ttlSample
	var join *exec.VertexMetrics
	for start := time.Now(); time.Since(start) < d; {
		select {
		case err := <-done:
			t.Fatalf("the job ended: %v", err)
		case <-time.After(time.Second):
		}
		if join == nil {
			for _, j := range sess.Jobs.List() {
				for _, v := range j.Vertices() {
					if strings.HasPrefix(v.Name, "Join") {
						join = v
					}
				}
			}
			if join == nil {
				continue
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		st := &join.Subtasks[0]
		samples = append(samples, ttlSample{keys: st.StateKeys.Load(), bytes: st.StateSpilled.Load() + st.StateMemtable.Load(), heap: int64(ms.HeapAlloc)})
	}
	for _, j := range sess.Jobs.List() {
		if err := j.Cancel(); err != nil {
			t.Log(err)
		}
	}
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("job: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the job did not stop")
	}
	if len(samples) < 6 {
		t.Fatalf("%d samples", len(samples))
	}
	return samples
}

// TestJoinStateTTLFlat: an unbounded regular join over streams of new
// keys keeps its state flat with table.exec.state.ttl (its entries at the
// end within 1.5x of the most during warm-up, the first half; the Go heap
// too), and without one the state grows all the time while the heap stays
// bounded (the join's state is in its store, Pebble, not on the Go heap). ~20 s here,
// 10 minutes with STRAND_SOAK=1 (make soak).
func TestJoinStateTTLFlat(t *testing.T) {
	run := 12 * time.Second
	if os.Getenv("STRAND_SOAK") != "" {
		run = 10 * time.Minute
	}
	t.Run("ttl", func(t *testing.T) {
		s := runTTLFlat(t, "5 s", run)
		t.Logf("with a 5 s TTL, each second (entries, store bytes, heap): %v", s)
		// Warm-up is the first half: its highest sample is the bound.
		var warm ttlSample
		for _, x := range s[:len(s)/2] {
			warm.keys, warm.heap = max(warm.keys, x.keys), max(warm.heap, x.heap)
		}
		end := s[len(s)-1]
		if end.keys > warm.keys*3/2 {
			t.Errorf("entries grew from %d after warm-up to %d: %v", warm.keys, end.keys, s)
		}
		if end.keys == 0 {
			t.Errorf("no entries counted: the test tests nothing")
		}
		if end.heap > warm.heap*3/2+32<<20 {
			t.Errorf("heap grew from %d after warm-up to %d", warm.heap, end.heap)
		}
	})
	if os.Getenv("STRAND_SOAK") != "" {
		run = time.Minute
	}
	t.Run("none", func(t *testing.T) {
		s := runTTLFlat(t, "", min(run, 10*time.Second))
		t.Logf("without a TTL, each second (entries, store bytes, heap): %v", s)
		// Growing by a fifth after warm-up is growth: under the race
		// detector the join slows as its store outgrows its cache (from
		// 25K to 2K entries a second in one run; 40K steady without it).
		warm, end := s[len(s)/3], s[len(s)-1]
		if end.keys < warm.keys*6/5 {
			t.Errorf("entries grew only from %d after warm-up to %d: %v", warm.keys, end.keys, s)
		}
		for _, x := range s {
			if x.heap > 512<<20 {
				t.Errorf("heap %d: the join's state is on the Go heap", x.heap)
				break
			}
		}
	})
}
