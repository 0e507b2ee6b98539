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
// bytes, the process's Go heap, and the rows the join has read so far.
type ttlSample struct{ keys, bytes, heap, in int64 }

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
		samples = append(samples, ttlSample{keys: st.StateKeys.Load(), bytes: st.StateSpilled.Load() + st.StateMemtable.Load(), heap: int64(ms.HeapAlloc), in: join.RowsIn.Load()})
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
// keys keeps its state flat with table.exec.state.ttl, and without one
// the state grows all the time while the heap stays bounded (the join's
// state is in its store, Pebble, not on the Go heap). ~20 s here, 10
// minutes with STRAND_SOAK=1 (make soak).
//
// The TTL is processing time (the query drops the rowtime), so the state
// it keeps is the rows the join read in the last TTL and those expired
// since that the sweeper has yet to reach (state.Sweeper: at most about
// a round of the key groups, about as many again). How many rows that is
// follows the join's speed, which on a shared machine changes from one
// second to the next: the state is measured against the rows the join
// read, not against itself earlier in the run.
func TestJoinStateTTLFlat(t *testing.T) {
	run := 12 * time.Second
	if os.Getenv("STRAND_SOAK") != "" {
		run = 10 * time.Minute
	}
	t.Run("ttl", func(t *testing.T) {
		s := runTTLFlat(t, "1 s", run)
		t.Logf("with a 1 s TTL, each second (entries, store bytes, heap, rows read): %v", s)
		// Every entry is a row read (the keys are new); each lives a
		// second, and waits for the sweeper about a second more. So at
		// the end no row read 6 s before is still there (without the
		// TTL every row read is).
		back := min(6, len(s)/2)
		then, end := s[len(s)-1-back], s[len(s)-1]
		if end.keys > end.in-then.in {
			t.Errorf("%d entries at the end, more than the %d rows read in the last %d s: %v", end.keys, end.in-then.in, back, s)
		}
		if end.keys == 0 {
			t.Errorf("no entries counted: the test tests nothing")
		}
		// The heap too stays flat: its most in the first half bounds it.
		var warm int64
		for _, x := range s[:len(s)/2] {
			warm = max(warm, x.heap)
		}
		if end.heap > warm*3/2+32<<20 {
			t.Errorf("heap grew from %d in the first half to %d", warm, end.heap)
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
