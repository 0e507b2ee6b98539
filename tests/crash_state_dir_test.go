package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
)

// stateDirQuery is a group aggregate over many keys, into a blackhole:
// its state stores flush and read SSTs all the time, so a removed state
// directory shows at once, in a read (Pebble's DataCorruption) or a flush
// (a background error).
const stateDirQuery = `CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE) WITH (
  'connector' = 'datagen', 'number-of-rows' = '800000', 'rows-per-second' = '150000', 'splits' = '2', 'seed' = '7',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '500000', 'fields.amount.min' = '0', 'fields.amount.max' = '10');
CREATE TABLE out_t (user_id BIGINT, clicks BIGINT, mx DOUBLE, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'blackhole');
INSERT INTO out_t SELECT user_id, COUNT(*), MAX(amount) FROM clicks GROUP BY user_id;
`

// TestCrashStateDirRemoved removes the state stores' directory
// (<state-dir>/work) under a running job of the real binary, after its
// first checkpoint. The user sees a clear message naming the directory,
// never a stack trace: either the job fails and restarts from its latest
// checkpoint, or the process exits with one line naming the store's
// directory. The checkpoints taken before stay intact: the latest still
// verifies, and a new run resumes from it and finishes.
func TestCrashStateDirRemoved(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), stateDirQuery)
	args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "1s"}
	cmd, errb, done := background(t, dir, args...)
	untilCheckpoint(errb, done)
	if !strings.Contains(errb.String(), " completed in ") {
		_ = cmd.Process.Kill()
		t.Fatalf("no checkpoint completed:\n%s", errb.String())
	}
	work := filepath.Join(dir, ".strand", "work")
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the run hangs after its state directory was removed:\n%s", tail(errb.String()))
	}
	stderr := errb.String()
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "stack trace") || strings.Contains(stderr, "Wraps:") {
		t.Fatalf("a stack trace after the state directory was removed:\n%s", tail(stderr))
	}
	if err != nil {
		exit := regexp.MustCompile(`(?m)^strand: state store (\S+): .*; exiting .*\n\z`).FindStringSubmatch(stderr)
		if exit == nil || !strings.HasPrefix(exit[1], work+string(filepath.Separator)) {
			t.Fatalf("run failed (%v) without one last line naming a store under %s:\n%s", err, work, tail(stderr))
		}
	} else if !strings.Contains(stderr, "restarting in") || !strings.Contains(stderr, work) {
		t.Fatalf("the run finished without a failure naming a store under %s:\n%s", work, tail(stderr))
	}

	st, serr := checkpoint.OpenStorage(vfs.Default, filepath.Join(dir, ".strand", "checkpoints", "q_1"))
	if serr != nil {
		t.Fatal(serr)
	}
	md, serr := st.Latest(func(n int64, err error) { t.Logf("checkpoint %d skipped: %v", n, err) })
	if serr != nil || md == nil {
		t.Fatalf("no checkpoint verifies after the removal: %v\n%s", serr, tail(stderr))
	}
	if err == nil {
		t.Logf("the job failed, restarted from checkpoint %d and finished", md.ID)
		return
	}
	t.Logf("the process exited; the next run resumes from checkpoint %d", md.ID)
	_, stderr2, code := runStrand(t, dir, args...)
	if code != 0 || !strings.Contains(stderr2, fmt.Sprintf("resuming from checkpoint %d\n", md.ID)) {
		t.Fatalf("the next run: exit %d, want 0 after resuming from checkpoint %d:\n%s", code, md.ID, tail(stderr2))
	}
}

// tail is the end of a long log, for a failure's message.
func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}
