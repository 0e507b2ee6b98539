package tests

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashQuery is a windowed aggregate over a throttled generator, so that a
// run lasts long enough to be killed at random moments, into an
// exactly-once filesystem sink.
const crashQuery = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d', 'splits' = '3', 'seed' = '7',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '50',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// committed returns the sorted rows of the visible files of dir.
func committed(t *testing.T, dir string) []string {
	t.Helper()
	var rows []string
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				rows = append(rows, l)
			}
		}
	}
	sort.Strings(rows)
	return rows
}

// crashRun runs the query in dir with kills: each kill waits a random
// moment, sends SIGKILL, and starts the binary again; the last run goes to
// completion. It returns how many kills landed.
func crashRun(t *testing.T, dir string, p, kills int, rng *rand.Rand, extra ...string) int {
	t.Helper()
	args := append([]string{"run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "150ms"}, extra...)
	landed := 0
	for i := 0; ; i++ {
		cmd := exec.Command(strandBinary(t), args...)
		cmd.Dir = dir
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if i < kills {
			// Some kills land during recovery (right after start), the
			// rest anywhere in the run, checkpoints included.
			wait := time.Duration(rng.Intn(1500)) * time.Millisecond
			if i%3 == 2 {
				wait = time.Duration(rng.Intn(80)) * time.Millisecond
			}
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("run %d failed before the kill: %v\n%s", i, err, errb.String())
				}
				return landed // finished before the kill
			case <-time.After(wait):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				landed++
				continue
			}
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("final run failed: %v\n%s", err, errb.String())
			}
			if landed > 0 && !strings.Contains(errb.String(), "resuming from checkpoint") && !strings.Contains(errb.String(), "finished at checkpoint") {
				t.Logf("final run did not resume (no checkpoint had completed):\n%s", errb.String())
			}
			return landed
		case <-time.After(2 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("run did not finish:\n%s", errb.String())
		}
	}
}

// TestCrashRecoveryExactlyOnce kills the real binary with SIGKILL at random
// moments, restarts it each time, and checks that the committed output
// equals an uninterrupted run's: no row missing, none twice.
func TestCrashRecoveryExactlyOnce(t *testing.T) {
	kills := 4
	rows, rate := 12000, 8000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 40, 60000, 10000
	}
	query := fmt.Sprintf(crashQuery, rows, rate)

	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := committed(t, filepath.Join(ref, "out"))
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(int64(p)))
			landed := crashRun(t, dir, p, kills, rng)
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("parallelism %d: %d kills, %d rows", p, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// diffRows reports missing and duplicated rows.
func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	var missing, extra []string
	for r, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, r)
		}
		for ; n < 0; n++ {
			extra = append(extra, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("%d rows missing, %d extra (of %d)\nmissing: %.5q\nextra: %.5q", len(missing), len(extra), len(want), missing, extra)
	}
}
