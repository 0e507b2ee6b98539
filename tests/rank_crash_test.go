package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
)

// dedupCrashQuery keeps the first row of each of 3000 keys by processing
// time, an append-only deduplication whose state is a flag per key, over
// one throttled generator split: the rows of a key arrive in one order in
// every run, so the first of them is the same after any crash.
const dedupCrashQuery = `
CREATE TABLE l (k BIGINT, amount DOUBLE, pt AS PROCTIME()) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '1', 'seed' = '7',
  'fields.k.min' = '1', 'fields.k.max' = '3000', 'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE out_t (k BIGINT, amount DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t SELECT k, amount FROM (
  SELECT k, amount, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt) AS rn FROM l
) WHERE rn = 1;
`

// TestDedupCrashRecovery kills runs of a deduplication at random moments
// (and resumes one at another parallelism): the committed output equals an
// uninterrupted run's, each key's first row once.
func TestDedupCrashRecovery(t *testing.T) {
	query := fmt.Sprintf(dedupCrashQuery, 8000, 5000)
	want := referenceRun(t, query)
	if len(want) < 2000 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, c := range []struct{ p, final int }{{2, 3}} {
		t.Run(fmt.Sprintf("p%d-to-p%d", c.p, c.final), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			landed, _ := crashRunAt(t, dir, c.p, c.final, 3, rand.New(rand.NewSource(int64(10*c.p+c.final))))
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("parallelism %d then %d: %d kills, %d rows", c.p, c.final, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}
