package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// hopBenchQuery counts clicks and sums amounts per user over windows
// made by a window TVF, from an unthrottled generator of rows, one per
// millisecond of event time, of some number of users, into a blackhole.
const hopBenchQuery = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '0', 'seed' = '7',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '1 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '%d',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE sink (ws TIMESTAMP(3), we TIMESTAMP(3), user_id BIGINT, n BIGINT, total DOUBLE) WITH ('connector' = 'blackhole');
INSERT INTO sink
SELECT window_start, window_end, user_id, COUNT(*), SUM(amount)
FROM TABLE(%s)
GROUP BY window_start, window_end, user_id;
`

// TestHopCostPerRow measures what a row costs in a HOP of 10 s sliding by
// 2 s against a TUMBLE of 10 s, over the same rows: the strand binary's
// CPU time (user + system), alternating the two, median of five runs
// each, with 50 and with 1000 users. Slicing makes a hopping row update
// one slice, so the target is a ratio of at most 1.5; but a HOP window
// emits every group of each of its windows, size/slide times a TUMBLE's
// output, and merges its slices' groups, so the ratio grows with the
// groups per slice. It is a benchmark: it runs with STRAND_BENCH set
// (docs/performance.md has the figures and the command).
func TestHopCostPerRow(t *testing.T) {
	if os.Getenv("STRAND_BENCH") == "" {
		t.Skip("a benchmark: set STRAND_BENCH=1")
	}
	const rows = 3_000_000
	dir := t.TempDir()
	windows := map[string]string{
		"tumble": "TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
		"hop":    "HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)",
	}
	for _, users := range []int{50, 1000} {
		cpu := map[string][]float64{}
		for i := 0; i < 5; i++ {
			for _, name := range []string{"tumble", "hop"} {
				file := filepath.Join(dir, name+".sql")
				writeFile(t, file, fmt.Sprintf(hopBenchQuery, rows, users, windows[name]))
				cmd := exec.Command(strandBinary(t), "run", file, "--parallelism", "1")
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", name, err, out)
				}
				st := cmd.ProcessState
				cpu[name] = append(cpu[name], (st.UserTime() + st.SystemTime()).Seconds())
			}
		}
		med := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
		tu, ho := med(cpu["tumble"]), med(cpu["hop"])
		t.Logf("%d users: TUMBLE 10 s: %.0f rows per CPU-second (median CPU %.2f s of %.2f)", users, rows/tu, tu, cpu["tumble"])
		t.Logf("%d users: HOP 10 s / 2 s: %.0f rows per CPU-second (median CPU %.2f s of %.2f)", users, rows/ho, ho, cpu["hop"])
		t.Logf("%d users: HOP / TUMBLE cost per row: %.2fx (target <= 1.5x)", users, ho/tu)
	}
}
