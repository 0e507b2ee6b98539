package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commitQuery writes the crash tests' clicks as Nexmark's q10 writes its
// log: partitioned by day and ten seconds, each partition committed with a
// _SUCCESS file once the watermark has passed its time plus one second.
const commitQuery = crashClicks + `
CREATE TABLE out_t (user_id BIGINT, amount DOUBLE, ts TIMESTAMP(3), dt STRING, hms STRING) PARTITIONED BY (dt, hms) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 s',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hms'
);
INSERT INTO out_t SELECT user_id, amount, ts, DATE_FORMAT(ts, 'yyyy-MM-dd'), SUBSTRING(DATE_FORMAT(ts, 'HH:mm:ss') FROM 1 FOR 7) || '0' FROM clicks;
`

// TestCrashPartitionCommit: killed and restarted runs of a job whose sink
// commits partitions write exactly an uninterrupted run's rows, and in the
// end every partition holds its success file and no hidden file.
func TestCrashPartitionCommit(t *testing.T) {
	query := fmt.Sprintf(commitQuery, 12000, 8000)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := committedTree(t, filepath.Join(ref, "out"))
	if len(want) < 1000 {
		t.Fatalf("reference run wrote %d rows", len(want))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	landed := crashRun(t, dir, 2, 4, rand.New(rand.NewSource(13)))
	if landed == 0 {
		t.Errorf("no kill landed: the run is too short to test recovery")
	}
	diffRows(t, committedTree(t, filepath.Join(dir, "out")), want)
	parts, _ := filepath.Glob(filepath.Join(dir, "out", "dt=*", "hms=*"))
	if len(parts) < 4 {
		t.Fatalf("%d partitions", len(parts))
	}
	for _, p := range parts {
		if _, err := os.Stat(filepath.Join(p, "_SUCCESS")); err != nil {
			t.Errorf("partition %s: %v", p, err)
		}
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("hidden file %s left in %s", e.Name(), p)
			}
		}
	}
}
