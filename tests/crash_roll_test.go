package tests

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrashRolledFilesExactlyOnce is TestCrashRecoveryExactlyOnce with a
// rolling size of 1 kB, so that every checkpoint interval rolls files
// over, synced in the background: a kill between a rollover and the
// checkpoint that hands its file over, or while its sync runs, must
// neither lose nor duplicate a row.
func TestCrashRolledFilesExactlyOnce(t *testing.T) {
	t.Parallel()
	rolled := strings.Replace(crashQuery, "'format' = 'csv');", "'format' = 'csv', 'sink.rolling-policy.file-size' = '1kb');", 1)
	if rolled == crashQuery {
		t.Fatal("the crash query's sink has changed: no rolling size set")
	}
	query := fmt.Sprintf(rolled, 12000, 8000)
	want := referenceRun(t, query)
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	landed := crashRun(t, dir, 2, 4, rand.New(rand.NewSource(7)))
	got := committed(t, filepath.Join(dir, "out"))
	parts, err := filepath.Glob(filepath.Join(dir, "out", "part-*"))
	if err != nil {
		t.Fatal(err)
	}
	// The output is some 20 kB: it takes far more than a file per
	// checkpoint only if files rolled over on size.
	if len(parts) < 10 {
		t.Errorf("%d part files: no rollover on size to test", len(parts))
	}
	t.Logf("%d kills, %d rows in %d files", landed, len(got), len(parts))
	if landed == 0 {
		t.Errorf("no kill landed: the run is too short to test recovery")
	}
	diffRows(t, got, want)
}
