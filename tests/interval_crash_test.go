package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// intervalCrashQuery is a LEFT interval join of two throttled generators
// (%d rows each at %d rows per second, event time 10 and 15 ms apart a
// row): its state is freed by watermarks as it goes, and its outer rows
// are padded when the right side's watermark passes them, so both the
// rows kept and the watermarks must come back exactly after a crash.
const intervalCrashQuery = `
CREATE TABLE l (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '3', 'seed' = '7',
  'fields.k.min' = '1', 'fields.k.max' = '300', 'fields.ts.step' = '10 ms'
);
CREATE TABLE r (k BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%[1]d', 'rows-per-second' = '%[2]d', 'splits' = '2', 'seed' = '11',
  'fields.k.min' = '1', 'fields.k.max' = '300', 'fields.ts.step' = '15 ms'
);
CREATE TABLE out_t (k BIGINT, lts TIMESTAMP(3), rts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t SELECT l.k, l.ts, r.ts FROM l LEFT JOIN r
ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '1' SECOND;
`

// TestIntervalJoinCrashRecovery kills runs of an interval join at random
// moments (and resumes one at another parallelism): the committed output
// equals an uninterrupted run's, no pair or padded row missing, none twice.
func TestIntervalJoinCrashRecovery(t *testing.T) {
	query := fmt.Sprintf(intervalCrashQuery, 6000, 5000)
	want := referenceRun(t, query)
	padded := 0
	for _, r := range want {
		if strings.HasSuffix(r, ",") {
			padded++
		}
	}
	if len(want) < 1000 || padded == 0 || padded == len(want) {
		t.Fatalf("reference run wrote %d rows, %d padded", len(want), padded)
	}
	for _, c := range []struct{ p, final int }{{1, 1}, {2, 3}} {
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
