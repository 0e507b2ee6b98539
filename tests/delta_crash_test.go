package tests

import (
	"fmt"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/state"
)

// TestCrashRestoresDeltas kills the binary while the window aggregate's
// latest checkpoint is a delta snapshot (a base and the SSTs ingested
// since, package state's delta.go), resumes it at another parallelism
// (each new subtask reads its key groups from the old handles, deltas
// applied), and checks the output against the uninterrupted run: exactly
// once, with no row lost to a delta left out or applied out of order.
func TestCrashRestoresDeltas(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 8000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	args := func(p int) []string {
		return []string{"run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "150ms"}
	}
	killed := false
	for attempt := 0; attempt < 5 && !killed; attempt++ {
		killed = killWithDelta(t, dir, args(2))
	}
	if !killed {
		t.Fatal("no kill landed while the latest checkpoint listed a delta")
	}
	if _, stderr, code := runStrand(t, dir, args(3)...); code != 0 {
		t.Fatalf("resumed run: %s", stderr)
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)
}

// killWithDelta runs strand in dir with args, kills it once the newest
// complete checkpoint lists a delta, and reports whether the newest one
// still does after the kill (one may have completed in between).
func killWithDelta(t *testing.T, dir string, args []string) bool {
	t.Helper()
	cpDir := checkpointsOf(dir, nil)
	cmd, errb, done := background(t, dir, args...)
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the run ended before its checkpoint listed a delta: %v\n%s\n%s", err, errb.String(), listCheckpoints(dir))
		case <-time.After(20 * time.Millisecond):
		}
		if latestDeltas(t, cpDir) > 0 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			done <- <-done
			return latestDeltas(t, cpDir) > 0
		}
	}
	return false
}

// latestDeltas counts the deltas the handles of the newest complete
// checkpoint in cpDir list (0 if there is none yet).
func latestDeltas(t *testing.T, cpDir string) int {
	t.Helper()
	st, err := checkpoint.OpenStorage(vfs.Default, cpDir)
	if err != nil {
		return 0
	}
	// Newest, not Latest: Latest also verifies the sink's pending files,
	// whose paths are relative to the run's directory, not the test's.
	md, err := st.Newest()
	if err != nil || md == nil {
		return 0
	}
	n := 0
	for _, op := range md.Operators {
		for _, sub := range op.Subtasks {
			n += len(slices.DeleteFunc(slices.Clone(sub.Handle.Files), func(f state.FileRef) bool { return !f.IsDelta() }))
		}
	}
	return n
}
