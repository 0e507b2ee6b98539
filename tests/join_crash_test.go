package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"
)

// joinCrashQuery joins two throttled generators of %d rows each at %d
// rows per second on a key of 3000 values: most matches meet a row that
// arrived checkpoints earlier, so the join's state must come back whole
// after a crash.
const joinCrashQuery = `
CREATE TABLE l (k BIGINT, amount DOUBLE) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '3', 'seed' = '7',
  'fields.k.min' = '1', 'fields.k.max' = '3000', 'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE r (k BIGINT, amount DOUBLE) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '2', 'seed' = '11',
  'fields.k.min' = '1', 'fields.k.max' = '3000', 'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
CREATE TABLE out_t (k BIGINT, la DOUBLE, ra DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t SELECT l.k, l.amount, r.amount FROM l JOIN r ON l.k = r.k AND l.amount < r.amount + 8;
`

// TestJoinCrashRecovery kills runs of a regular join at random moments
// (and resumes one at another parallelism): the committed output equals
// an uninterrupted run's, no row missing, none twice.
func TestJoinCrashRecovery(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(joinCrashQuery, 8000, 5000)
	want := referenceRun(t, query)
	if len(want) < 1000 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, c := range []struct{ p, final int }{{1, 1}, {3, 3}, {2, 3}} {
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
