package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// spillCrashQuery is crashQuery with window state far larger than the
// managed memory the crash runs get: thousands of users per 3-second
// window, two or three windows open at a time, each group with a MAX and
// two DISTINCT aggregates (amount, nearly always new, and item, one of
// eight values, so that DISTINCT values repeat within a group and across
// spills). Most groups have one row, a third have several, spread over
// spills and checkpoints.
const spillCrashQuery = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE, item INT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d', 'splits' = '3', 'seed' = '7',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '1 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '%d',
  'fields.amount.min' = '0', 'fields.amount.max' = '10',
  'fields.item.min' = '1', 'fields.item.max' = '8'
);
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE, amounts BIGINT, items BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MAX(amount), COUNT(DISTINCT amount), COUNT(DISTINCT item)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, user_id;
`

var spilledRe = regexp.MustCompile(`, windows spilled (\d+)`)

// spills returns the "windows spilled" count of a run's summary line.
func spills(stderr string) int {
	m := spilledRe.FindStringSubmatch(stderr)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestSpillCrashRecovery is TestCrashRecoveryExactlyOnce with window state
// many times memory.managed.size, so that the aggregate spills to its
// state store all the time while being killed: spilled entries are in
// checkpoints, restores load window parts and spilled entries, windows
// fire by merging spills. The committed output must equal an
// uninterrupted run's with the default memory, which does not spill: no
// row lost or counted twice, and spilled results equal in-memory ones.
// The rescale case is killed at parallelism 3 and finishes at 2, so that
// spilled entries are routed to new subtasks by key group.
func TestSpillCrashRecovery(t *testing.T) {
	t.Parallel()
	kills, rows, rate := 4, 30000, 10000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 30, 300000, 10000
	}
	query := fmt.Sprintf(spillCrashQuery, rows, rate, 3000)

	want := referenceRun(t, query)
	if len(want) < 10000 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, c := range []struct {
		name     string
		p, final int
		seed     int64
	}{
		{"p1", 1, 1, 1},
		{"p3", 3, 3, 3},
		{"p3-to-p2", 3, 2, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(c.seed))
			landed, stderr := crashRunAt(t, dir, c.p, c.final, kills, rng, "--set", "memory.managed.size=128kb")
			got := committed(t, filepath.Join(dir, "out"))
			n := spills(stderr)
			t.Logf("parallelism %d then %d: %d kills, %d rows, the last run spilled %d windows", c.p, c.final, landed, len(got), n)
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			if n == 0 {
				t.Errorf("the last run spilled nothing: the test tests no spilling\n%s", stderr)
			}
			if c.final != c.p && !strings.Contains(stderr, "resuming from checkpoint") {
				t.Errorf("the last run did not resume from a checkpoint: no rescale tested\n%s", stderr)
			}
			diffRows(t, got, want)
		})
	}
}
