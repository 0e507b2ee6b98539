package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// partitionedQuery writes the crash query's windows into a table
// partitioned by a bucket of the user: four directories, written at once.
const partitionedQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, bucket BIGINT) PARTITIONED BY (bucket)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MOD(user_id, 4)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// committedTree returns the sorted rows of the visible files below dir,
// each prefixed by its directory.
func committedTree(t *testing.T, dir string) []string {
	t.Helper()
	var rows []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				rows = append(rows, rel+" "+l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rows)
	return rows
}

// TestCrashPartitionedExactlyOnce: killed and restarted runs of a job that
// writes a partitioned table commit exactly an uninterrupted run's rows,
// each in its partition directory.
func TestCrashPartitionedExactlyOnce(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(partitionedQuery, 12000, 8000)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := committedTree(t, filepath.Join(ref, "out"))
	if len(want) < 100 || !strings.HasPrefix(want[0], "bucket=0 ") || !strings.HasPrefix(want[len(want)-1], "bucket=3 ") {
		t.Fatalf("reference run wrote %d rows, from %q to %q", len(want), want[0], want[len(want)-1])
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	landed := crashRun(t, dir, 2, 4, rand.New(rand.NewSource(11)))
	if landed == 0 {
		t.Errorf("no kill landed: the run is too short to test recovery")
	}
	diffRows(t, committedTree(t, filepath.Join(dir, "out")), want)
}
