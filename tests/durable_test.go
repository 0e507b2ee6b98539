package tests

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests of this file run the binary against one state directory in
// the ways that used to lose, duplicate or leave behind data: two runs at
// once, every checkpoint corrupt, a stop or a failure in the middle of a
// checkpoint, a kill while a window spills.

// startStrand starts the binary in dir, its standard error to stderr
// unless nil; Wait on the result returns its error.
func startStrand(t *testing.T, dir string, stderr io.Writer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(strandBinary(t), args...)
	cmd.Dir = dir
	if stderr != nil {
		cmd.Stderr = stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd
}

// waitFor polls until ok holds, or fails the test after 30 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func globs(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// hidden returns the hidden (in-progress) files of dir.
func hidden(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".inprogress") {
			names = append(names, e.Name())
		}
	}
	return names
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestTwoRunsOneStateDir starts the same checkpointing job twice at once
// on one state directory: the second is refused at once, naming the first
// one's pid and the lock, and the first's output is exact. A second job
// writing the same sink directory is refused the same way.
func TestTwoRunsOneStateDir(t *testing.T) {
	t.Parallel()
	// Three seconds long: the other runs start while it runs.
	query := fmt.Sprintf(crashQuery, 12000, 4000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	writeFile(t, filepath.Join(dir, "other.sql"), query)
	args := []string{"run", "q.sql", "--parallelism", "2", "--state-dir", "S", "--checkpoint-interval", "200ms"}
	var errA strings.Builder
	first := startStrand(t, dir, &errA, args...)
	lock := filepath.Join(dir, "S", "checkpoints", "q_1.lock")
	waitFor(t, "the first run to lock its state", func() bool {
		b, err := os.ReadFile(lock)
		return err == nil && strings.TrimSpace(string(b)) == fmt.Sprint(first.Process.Pid)
	})

	start := time.Now()
	_, stderr, code := runStrand(t, dir, args...)
	holder := fmt.Sprintf("%s is held by process %d", lock, first.Process.Pid)
	if code == 0 || !strings.Contains(stderr, holder) || strings.Contains(stderr, "goroutine ") {
		t.Errorf("second run on the state directory: exit %d, want a refusal saying %q:\n%s", code, holder, stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %s", d)
	}

	// Another job (other state) into the same sink directory.
	_, stderr, code = runStrand(t, dir, "run", "other.sql", "--state-dir", "S", "--checkpoint-interval", "200ms")
	sink := fmt.Sprintf("%s is held by process %d", filepath.Join(dir, "out", ".strand.lock"), first.Process.Pid)
	if code == 0 || !strings.Contains(stderr, sink) {
		t.Errorf("second job on the sink directory: exit %d, want a refusal saying %q:\n%s", code, sink, stderr)
	}

	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, errA.String())
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the lock file outlived its run: %v", err)
	}
}

// killAfterCheckpoints runs the crash query in dir until n checkpoints are
// complete, then kills it, and returns the complete checkpoints' numbers,
// newest last.
func killAfterCheckpoints(t *testing.T, dir string, n int) []int {
	t.Helper()
	cmd := startStrand(t, dir, nil, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	// Retention keeps two: wait for two, the newest at least n.
	waitFor(t, fmt.Sprintf("checkpoint %d", n), func() bool {
		m := globs(filepath.Join(root, "chk-*", "_metadata"))
		newest := 0
		for _, p := range m {
			newest = max(newest, chkNum(p))
		}
		return len(m) >= 2 && newest >= n
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	var ids []int
	for _, m := range globs(filepath.Join(root, "chk-*", "_metadata")) {
		ids = append(ids, chkNum(m))
	}
	sort.Ints(ids)
	return ids
}

// TestAllCheckpointsCorrupt damages every retained checkpoint of a killed
// job, one in its _metadata and the other in a sink file it committed: the
// restart is refused, listing each checkpoint and why it failed, and
// writes nothing; --fresh starts over and removes what the abandoned
// lineage committed, so the output is exact.
func TestAllCheckpointsCorrupt(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 6000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	out := filepath.Join(dir, "out")
	var ids []int
	// Retention keeps two; the older must have committed a file.
	for tries := 0; ; tries++ {
		ids = killAfterCheckpoints(t, dir, 3)
		if len(ids) == 2 && len(globs(filepath.Join(out, fmt.Sprintf("part-*-ck%d.csv", ids[0])))) > 0 {
			break
		}
		if tries == 5 {
			t.Fatalf("no run left two checkpoints with output: %v", ids)
		}
		if err := os.RemoveAll(filepath.Join(dir, ".strand")); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(out)
	}
	meta := filepath.Join(root, fmt.Sprintf("chk-%d", ids[1]), "_metadata")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	writeFile(t, meta, string(b))
	part := globs(filepath.Join(out, fmt.Sprintf("part-*-ck%d.csv", ids[0])))[0]
	st, err := os.Stat(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(part, st.Size()-1); err != nil {
		t.Fatal(err)
	}
	before := committed(t, out)

	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	for _, w := range []string{
		"no checkpoint verifies",
		fmt.Sprintf("\n  checkpoint %d in %s: corrupt checkpoint: chk-%d/_metadata: checksum mismatch", ids[1], root, ids[1]),
		fmt.Sprintf("\n  checkpoint %d in %s: corrupt checkpoint: out/%s: truncated", ids[0], root, filepath.Base(part)),
		"--fresh",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("refusal lacks %q", w)
		}
	}
	if code == 0 || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "started") {
		t.Errorf("exit %d", code)
	}
	if t.Failed() {
		t.Fatalf("stderr:\n%s", stderr)
	}
	if got := committed(t, out); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Errorf("the refused run changed the output: %d rows, had %d", len(got), len(before))
	}

	_, stderr, code = runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms", "--fresh")
	if code != 0 || strings.Contains(stderr, "resuming") {
		t.Fatalf("--fresh: exit %d\n%s", code, stderr)
	}
	diffRows(t, committed(t, out), want)
	if h := hidden(t, out); len(h) > 0 {
		t.Errorf("hidden files left: %v", h)
	}

	// --fresh after a run that finished keeps that run's output: it is
	// not abandoned.
	if _, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms", "--fresh"); code != 0 {
		t.Fatalf("--fresh after a finished run: exit %d\n%s", code, stderr)
	}
	diffRows(t, committed(t, out), append(slices.Clone(want), want...))
}

// TestCorruptPendingFileFallsBack truncates a file that the newest
// checkpoint committed: the restore reports it, naming the file, falls
// back to the checkpoint before, and the output is exact.
func TestCorruptPendingFileFallsBack(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 6000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	out := filepath.Join(dir, "out")
	var ids []int
	var parts []string
	for tries := 0; ; tries++ {
		ids = killAfterCheckpoints(t, dir, 3)
		if len(ids) == 2 {
			if parts = globs(filepath.Join(out, fmt.Sprintf("part-*-ck%d.csv", ids[1]))); len(parts) > 0 {
				break
			}
		}
		if tries == 5 {
			t.Fatalf("no run left a newest checkpoint with output: %v", ids)
		}
		os.RemoveAll(filepath.Join(dir, ".strand"))
		os.RemoveAll(out)
	}
	st, err := os.Stat(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(parts[0], st.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, w := range []string{fmt.Sprintf("skipping checkpoint %d", ids[1]), filepath.Base(parts[0]) + ": truncated", fmt.Sprintf("resuming from checkpoint %d", ids[0])} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	diffRows(t, committed(t, out), want)
}

// TestStopLeavesNoHiddenFiles: SIGTERM stops a checkpointing job with exit
// status 143 and leaves no hidden file in its sink, also when it lands in
// the middle of a checkpoint, after the sink pre-committed its files and
// before the checkpoint completed; the resumed run, which reports an
// in-progress checkpoint as incomplete, not corrupt, gives exact output.
func TestStopLeavesNoHiddenFiles(t *testing.T) {
	t.Parallel()
	// Thousands of groups: a checkpoint's upload takes a while after the
	// sink has pre-committed.
	query := fmt.Sprintf(spillCrashQuery, 40000, 8000, 3000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	out := filepath.Join(dir, "out")
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	newest := func() int {
		n := 0
		for _, m := range globs(filepath.Join(root, "chk-*", "_metadata")) {
			n = max(n, chkNum(m))
		}
		return n
	}
	rng := rand.New(rand.NewSource(3))
	for i := range 4 {
		var errb strings.Builder
		before := newest()
		cmd := startStrand(t, dir, &errb, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "20ms")
		waitFor(t, "a checkpoint", func() bool { return newest() > before })
		time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		code := exitCode(cmd.Wait())
		if h := hidden(t, out); len(h) > 0 {
			t.Fatalf("hidden files left after SIGTERM %d: %v", i, h)
		}
		if code != 143 || !strings.Contains(errb.String(), "strand: stopped") {
			t.Fatalf("SIGTERM %d: exit %d, want 143\n%s", i, code, errb.String())
		}
	}
	// A checkpoint being written when a run died.
	if err := os.MkdirAll(filepath.Join(root, "chk-9999"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	if code != 0 || !strings.Contains(stderr, "resuming from checkpoint") {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "incomplete checkpoint 9999, skipped") || strings.Contains(stderr, "corrupt") {
		t.Errorf("an incomplete checkpoint is not reported as such:\n%s", stderr)
	}
	diffRows(t, committed(t, out), want)

	_, stderr, code = runStrand(t, dir, "run", "q.sql", "--checkpoint-interval", "100ms", "--from-checkpoint", filepath.Join(root, "chk-99"))
	if code == 0 || !strings.Contains(stderr, "chk-99 does not exist") || strings.Contains(stderr, "corrupt") {
		t.Errorf("--from-checkpoint of a missing checkpoint: exit %d\n%s", code, stderr)
	}
}

// TestFailedJobLeavesNoHiddenFiles: a checkpointing job that fails for
// good because its checkpoints fail, after its sink pre-committed files to
// the failing one, leaves no hidden file in its sink.
func TestFailedJobLeavesNoHiddenFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(crashQuery, 12000, 6000))
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	var errb strings.Builder
	cmd := startStrand(t, dir, &errb, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms", "--set", "restart-strategy=none")
	waitFor(t, "a checkpoint that committed output", func() bool { return len(globs(filepath.Join(dir, "out", "part-*"))) > 0 })
	// No more state can be uploaded: the next checkpoint fails, and with
	// it the job.
	if err := os.RemoveAll(filepath.Join(root, "shared")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "shared"), "not a directory")
	if code := exitCode(cmd.Wait()); code != 1 || !strings.Contains(errb.String(), "checkpoint") {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if len(committed(t, filepath.Join(dir, "out"))) == 0 {
		t.Errorf("no checkpoint committed output before the failure: the test tests nothing\n%s", errb.String())
	}
	if h := hidden(t, filepath.Join(dir, "out")); len(h) > 0 {
		t.Errorf("hidden files left after the failure: %v\n%s", h, errb.String())
	}
}

// TestFreshStartRemovesLeftovers: a run killed before its first checkpoint
// leaves hidden files; the next run, which starts afresh, removes them.
func TestFreshStartRemovesLeftovers(t *testing.T) {
	t.Parallel()
	query := strings.Replace(fmt.Sprintf(crashQuery, 6000, 3000), "'format' = 'csv')", "'format' = 'csv', 'sink.rolling-policy.file-size' = '1kb')", 1)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	out := filepath.Join(dir, "out")
	// The small rolling size makes finished hidden files at once, and
	// with no checkpoint they wait.
	args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "1h"}
	cmd := startStrand(t, dir, nil, args...)
	waitFor(t, "hidden files", func() bool { return len(hidden(t, out)) > 0 })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if len(hidden(t, out)) == 0 {
		t.Fatal("the killed run left no hidden file: the test tests nothing")
	}
	_, stderr, code := runStrand(t, dir, args...)
	if code != 0 || strings.Contains(stderr, "resuming") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if h := hidden(t, out); len(h) > 0 {
		t.Errorf("the killed run's hidden files are left: %v", h)
	}
	diffRows(t, committed(t, out), want)
}

// TestSpillNotInTempDir kills a job without checkpoints while its window
// spills: the spill store is under the job's work directory, not in
// $TMPDIR, and the next run of the job removes it.
func TestSpillNotInTempDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmp := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(spillCrashQuery, 30000, 10000, 3000))
	args := []string{"run", "q.sql", "--parallelism", "2", "--set", "memory.managed.size=128kb"}
	cmd := exec.Command(strandBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, ".strand", "work", "q_1")
	waitFor(t, "a spill store under "+work, func() bool {
		return len(globs(filepath.Join(work, "run-*", "spill-*"))) > 0 || len(globs(filepath.Join(tmp, "strand-spill-*"))) > 0
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if left := globs(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v", left)
	}
	if len(globs(filepath.Join(work, "run-*"))) == 0 {
		t.Fatalf("no run directory under %s", work)
	}
	cmd = exec.Command(strandBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil || spills(string(b)) == 0 {
		t.Fatalf("second run: %v (it must spill)\n%s", err, b)
	}
	if left := globs(filepath.Join(work, "*")); len(left) > 0 {
		t.Errorf("left in the work directory: %v", left)
	}
	if left := globs(filepath.Join(tmp, "*")); len(left) > 0 {
		t.Errorf("left in $TMPDIR: %v", left)
	}
}

// TestKilledRunWithoutCheckpoints: a run without checkpoints killed with
// kill -9 leaves hidden files, which the next run writing the directory
// removes; the output is that run's alone.
func TestKilledRunWithoutCheckpoints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), `
CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3000', 'rows-per-second' = '1500',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3000');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv', 'sink.rolling-policy.file-size' = '1kb');
INSERT INTO o SELECT id FROM g;
`)
	out := filepath.Join(dir, "out")
	cmd := startStrand(t, dir, nil, "run", "q.sql", "--parallelism", "2")
	waitFor(t, "hidden files", func() bool { return len(hidden(t, out)) > 0 })
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if len(hidden(t, out)) == 0 {
		t.Fatal("the killed run left no hidden file: the test tests nothing")
	}
	if _, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if h := hidden(t, out); len(h) > 0 {
		t.Errorf("hidden files left: %v", h)
	}
	if got := committed(t, out); len(got) != 3000 {
		t.Errorf("%d rows, want 3000", len(got))
	}
}

// TestRunAgainFailsBeforeCheckpoint runs a finished job again with input
// that fails it before its first checkpoint. The restart finds the first
// run's final checkpoint the newest: it belongs to that run, not to this
// one, which must run again rather than count as finished (exit 0 with no
// row read and the failure swallowed).
func TestRunAgainFailsBeforeCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "in.csv"), "1,a\n2,b\n")
	writeFile(t, filepath.Join(dir, "q.sql"), `
CREATE TABLE src (n BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (n BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT n, s FROM src;
`)
	args := []string{"run", "q.sql", "--parallelism", "1", "--checkpoint-interval", "1h",
		"--set", "restart-strategy.fixed-delay.attempts=1", "--set", "restart-strategy.fixed-delay.delay=10ms"}
	if _, stderr, code := runStrand(t, dir, args...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	writeFile(t, filepath.Join(dir, "in.csv"), "1,a\nx,b\n")
	_, stderr, code := runStrand(t, dir, args...)
	if code == 0 || !strings.Contains(stderr, `cannot parse "x"`) || strings.Count(stderr, "restarting in") != 1 {
		t.Errorf("second run, its input bad: exit %d\n%s", code, stderr)
	}
}
