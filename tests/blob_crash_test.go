package tests

import (
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBlobCheckpointCrash is the crash test with checkpoints in object
// storage: state.checkpoints.dir is a file:// URL (the gocloud.dev driver
// that s3:// and gs:// share the code path with), outside the run's
// directory. kill -9 at random moments, restart, and the committed output
// is an uninterrupted run's.
func TestBlobCheckpointCrash(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 8000)
	want := referenceRun(t, query)
	dir, store := t.TempDir(), t.TempDir()
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(store)}
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	// Given on the command line, where the harness finds it to tell
	// whether a killed run had ended.
	landed, last := crashRunAt(t, dir, 2, 2, 4, rand.New(rand.NewSource(7)), "--set", "state.checkpoints.dir="+u.String())
	got := committed(t, filepath.Join(dir, "out"))
	t.Logf("%d kills, %d rows", landed, len(got))
	if landed == 0 {
		t.Errorf("no kill landed: the run is too short to test recovery")
	}
	if landed > 0 && !strings.Contains(last, "resuming from checkpoint") && !strings.Contains(last, "finished at checkpoint") {
		t.Errorf("the last run did not resume from the object store:\n%s", last)
	}
	if _, err := os.Stat(filepath.Join(store, "checkpoints", "q_1", "lineage")); err != nil {
		t.Errorf("no checkpoints in the object store: %v", err)
	}
	if local, _ := filepath.Glob(filepath.Join(dir, ".strand", "checkpoints", "q_1", "chk-*")); len(local) > 0 {
		t.Errorf("checkpoints written to the local state directory too: %v", local)
	}
	diffRows(t, got, want)
}
