package tests

import (
	"fmt"
	"math/rand"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
)

// crashClicks is the source of the crash tests: a throttled generator of
// %d rows at %d rows per second, 50 users, disordered within the
// watermark delay.
const crashClicks = `
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '%d', 'splits' = '3', 'seed' = '7',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '50',
  'fields.amount.min' = '0', 'fields.amount.max' = '10'
);
`

// crashQuery is a windowed aggregate over a throttled generator, so that a
// run lasts long enough to be killed at random moments, into an
// exactly-once filesystem sink.
const crashQuery = crashClicks + `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// committed returns the sorted rows of the visible files of dir.
func committed(t *testing.T, dir string) []string {
	t.Helper()
	var rows []string
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				rows = append(rows, l)
			}
		}
	}
	sort.Strings(rows)
	return rows
}

// crashRun runs the query in dir with kills: each kill waits a random
// moment, sends SIGKILL, and starts the binary again; the last run goes to
// completion. It returns how many kills landed.
func crashRun(t *testing.T, dir string, p, kills int, rng *rand.Rand, extra ...string) int {
	t.Helper()
	landed, _ := crashRunAt(t, dir, p, p, kills, rng, extra...)
	return landed
}

// crashRunAt is crashRun whose killed runs have parallelism p and whose
// last run, the one that completes, has parallelism final (a rescale when
// they differ). It also returns the last run's stderr.
func crashRunAt(t *testing.T, dir string, p, final, kills int, rng *rand.Rand, extra ...string) (int, string) {
	t.Helper()
	return crashRunWait(t, dir, p, final, kills, 1500*time.Millisecond, rng, extra...)
}

// crashRunWait is crashRunAt whose kills wait up to maxWait after a start,
// for a query whose run is shorter than crashQuery's.
func crashRunWait(t *testing.T, dir string, p, final, kills int, maxWait time.Duration, rng *rand.Rand, extra ...string) (int, string) {
	t.Helper()
	args := func(p int) []string {
		return append([]string{"run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "150ms"}, extra...)
	}
	landed, last := 0, ""
	var logs []string
	// On failure, every run's stderr and the checkpoints left: a crash
	// bug shows in the run before the one that went wrong.
	t.Cleanup(func() {
		if t.Failed() {
			for i, l := range logs {
				t.Logf("run %d stderr:\n%s", i, l)
			}
			t.Logf("checkpoints:\n%s", listCheckpoints(dir))
		}
	})
	for i := 0; ; i++ {
		// A kill that lands after the run has ended (its process was
		// exiting) finds the job done: another run would be a new run of
		// it, which starts afresh by design. A kill after the final
		// checkpoint but before the end is a crash like any other: the
		// next run only finishes the commit.
		if i > 0 && endedIn(t, checkpointsOf(dir, extra)) {
			return landed, last
		}
		par := p
		if i >= kills {
			par = final
		}
		cmd, errb, done := background(t, dir, args(par)...)
		logs = append(logs, "")
		note := func(how string) { logs[i] = fmt.Sprintf("(%s)\n%s", how, errb.String()) }
		if i < kills {
			// Some kills land during recovery (right after start), the
			// rest anywhere in the run, checkpoints included.
			wait := time.Duration(rng.Int63n(int64(maxWait)))
			if i%3 == 2 {
				wait = time.Duration(rng.Intn(80)) * time.Millisecond
			}
			if i == kills-1 {
				// The last kill comes after a checkpoint completed in its
				// run, so that the final run resumes from one (a rescale
				// is tested) however slow checkpoints are on a loaded
				// machine.
				untilCheckpoint(errb, done)
				wait = time.Duration(rng.Intn(100)) * time.Millisecond
			}
			select {
			case err := <-done:
				note("ended before the kill")
				if err != nil {
					t.Fatalf("run %d failed before the kill: %v\n%s", i, err, errb.String())
				}
				return landed, errb.String() // finished before the kill
			case <-time.After(wait):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-done
				note(fmt.Sprintf("killed after %s", wait))
				landed++
				last = errb.String()
				continue
			}
		}
		select {
		case err := <-done:
			note("final run")
			if err != nil {
				t.Fatalf("final run failed: %v\n%s", err, errb.String())
			}
			if landed > 0 && !strings.Contains(errb.String(), "resuming from checkpoint") && !strings.Contains(errb.String(), "finished at checkpoint") {
				t.Logf("final run did not resume (no checkpoint had completed):\n%s", errb.String())
			}
			return landed, errb.String()
		case <-time.After(2 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("run did not finish:\n%s", errb.String())
		}
	}
}

// background is startStrand for a run watched while it goes: it returns
// the process, its standard error as it is written, and a channel that
// receives Wait's result once the process ends.
func background(t *testing.T, dir string, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	errb := &syncBuffer{}
	cmd := startStrand(t, dir, errb, args...)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, errb, done
}

// untilCheckpoint waits until the run writing errb logs a completed
// checkpoint, or ends (done, which it leaves for the caller to read), or
// two minutes pass.
func untilCheckpoint(errb *syncBuffer, done chan error) {
	for start := time.Now(); time.Since(start) < 2*time.Minute; {
		if strings.Contains(errb.String(), " completed in ") {
			return
		}
		select {
		case err := <-done:
			done <- err
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// listCheckpoints lists the files under dir's state directory with their
// sizes, for a failure's log.
func listCheckpoints(dir string) string {
	var b strings.Builder
	root := filepath.Join(dir, ".strand")
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			fmt.Fprintf(&b, "  %s %d\n", rel, fi.Size())
		}
		return nil
	})
	out, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range out {
		fmt.Fprintf(&b, "  out/%s\n", e.Name())
	}
	return b.String()
}

// ended reports whether the crash query's job in dir has a run that ended
// after its final checkpoint, as the engine records it.
func ended(t *testing.T, dir string) bool {
	t.Helper()
	return endedIn(t, filepath.Join(dir, ".strand", "checkpoints", "q_1"))
}

// checkpointsOf is where the crash query's job in dir keeps its
// checkpoints: its state directory's, or a file:// state.checkpoints.dir
// given with --set among the run's extra arguments.
func checkpointsOf(dir string, extra []string) string {
	for i := 0; i+1 < len(extra); i++ {
		if v, ok := strings.CutPrefix(extra[i+1], "state.checkpoints.dir="); ok && extra[i] == "--set" {
			if u, err := url.Parse(v); err == nil && u.Scheme == "file" {
				return filepath.Join(filepath.FromSlash(u.Path), "checkpoints", "q_1")
			}
		}
	}
	return filepath.Join(dir, ".strand", "checkpoints", "q_1")
}

// endedIn is ended for the job whose checkpoints are in cpDir.
func endedIn(t *testing.T, cpDir string) bool {
	t.Helper()
	st, err := checkpoint.OpenStorage(vfs.Default, cpDir)
	if err != nil {
		t.Fatal(err)
	}
	lineage, err := st.Lineage()
	if err != nil {
		t.Fatal(err)
	}
	name, err := st.Ended()
	if err != nil {
		t.Fatal(err)
	}
	return name != "" && name == lineage
}

// TestCrashRecoveryExactlyOnce kills the real binary with SIGKILL at random
// moments, restarts it each time, and checks that the committed output
// equals an uninterrupted run's: no row missing, none twice.
func TestCrashRecoveryExactlyOnce(t *testing.T) {
	t.Parallel()
	kills := 4
	rows, rate := 12000, 8000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, rows, rate = 40, 400000, 10000
	}
	query := fmt.Sprintf(crashQuery, rows, rate)

	want := referenceRun(t, query)
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), query)
			rng := rand.New(rand.NewSource(int64(p)))
			landed := crashRun(t, dir, p, kills, rng)
			got := committed(t, filepath.Join(dir, "out"))
			t.Logf("parallelism %d: %d kills, %d rows", p, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// references holds the output of each query referenceRun ran: many tests
// and cases share a query.
var references struct {
	sync.Mutex
	out map[string][]string
}

// referenceRun runs query once without checkpoints or kills, its
// generators unthrottled, and returns its committed output. A generator's
// rows do not depend on its rate, nor does the output of the queries these
// tests run: the killed runs, slowed down and restarted, must produce it
// too.
func referenceRun(t *testing.T, query string) []string {
	t.Helper()
	query = rateRe.ReplaceAllString(query, "'rows-per-second' = '0'")
	references.Lock()
	out, ok := references.out[query]
	references.Unlock()
	if ok {
		return slices.Clone(out)
	}
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), query)
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	out = committed(t, filepath.Join(ref, "out"))
	references.Lock()
	if references.out == nil {
		references.out = map[string][]string{}
	}
	references.out[query] = out
	references.Unlock()
	return slices.Clone(out)
}

// diffRows reports missing and duplicated rows.
func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	count := map[string]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	var missing, extra []string
	for r, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, r)
		}
		for ; n < 0; n++ {
			extra = append(extra, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("%d rows missing, %d extra (of %d)\nmissing: %q\nextra: %q", len(missing), len(extra), len(want), missing[:min(5, len(missing))], extra[:min(5, len(extra))])
	}
}

// TestAtLeastOnceNeverLoses runs the crash loop in AT_LEAST_ONCE mode:
// without barrier alignment a restore may count rows twice, but every
// window and key of the uninterrupted run is there, with at least its
// count.
func TestAtLeastOnceNeverLoses(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 8000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	landed := crashRun(t, dir, 3, 4, rand.New(rand.NewSource(9)), "--set", "execution.checkpointing.mode=AT_LEAST_ONCE")
	if landed == 0 {
		t.Fatal("no kill landed")
	}
	// Rows are ws,user_id,clicks,max: key on the first two fields.
	counts := func(rows []string) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			f := strings.Split(r, ",")
			var n int
			fmt.Sscan(f[2], &n)
			m[f[0]+","+f[1]] += n
		}
		return m
	}
	got := counts(committed(t, filepath.Join(dir, "out")))
	for k, n := range counts(want) {
		if got[k] < n {
			t.Errorf("window,key %s: %d clicks, want at least %d", k, got[k], n)
		}
	}
	if len(got) != len(counts(want)) {
		t.Errorf("%d window/key groups, want %d", len(got), len(counts(want)))
	}
}

// TestCorruptCheckpointFallsBack damages the newest checkpoint of a killed
// run: recovery reports it, falls back to the one before, and the output is
// still exact; --from-checkpoint on the damaged one fails naming the file.
func TestCorruptCheckpointFallsBack(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 12000, 6000)
	want := referenceRun(t, query)

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	// Run until at least two checkpoints are complete, then kill.
	cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var chks []string
	for time.Now().Before(deadline) {
		chks, _ = filepath.Glob(filepath.Join(root, "chk-*", "_metadata"))
		if len(chks) >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	chks, _ = filepath.Glob(filepath.Join(root, "chk-*", "_metadata"))
	if len(chks) < 2 {
		t.Fatalf("only %d checkpoints completed before the kill", len(chks))
	}
	sort.Slice(chks, func(i, j int) bool { return chkNum(chks[i]) < chkNum(chks[j]) })
	newest := chks[len(chks)-1]
	b, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(newest, b, 0o644); err != nil {
		t.Fatal(err)
	}

	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms", "--from-checkpoint", filepath.Dir(newest))
	if code == 0 || !strings.Contains(stderr, "_metadata") {
		t.Errorf("--from-checkpoint on a corrupt checkpoint: exit %d, stderr:\n%s", code, stderr)
	}

	_, stderr, code = runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	if code != 0 {
		t.Fatalf("recovery failed:\n%s", stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("skipping checkpoint %d", chkNum(newest))) || !strings.Contains(stderr, "resuming from checkpoint") {
		t.Errorf("recovery did not report the corrupt checkpoint and fall back:\n%s", stderr)
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)
}

func chkNum(metadata string) int {
	var n int
	fmt.Sscanf(filepath.Base(filepath.Dir(metadata)), "chk-%d", &n)
	return n
}

// TestRescaleAfterCrash kills a run at parallelism 3 once a checkpoint is
// complete and finishes it at parallelism 2: key-group state written by
// three subtasks is read back by two, DISTINCT values included.
func TestRescaleAfterCrash(t *testing.T) {
	t.Parallel()
	query := strings.Replace(fmt.Sprintf(crashQuery, 12000, 6000), "COUNT(*), MAX(amount)", "COUNT(DISTINCT amount), MAX(amount)", 1)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "3", "--checkpoint-interval", "100ms")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if chks, _ := filepath.Glob(filepath.Join(root, "chk-*", "_metadata")); len(chks) >= 2 {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	if code != 0 || !strings.Contains(stderr, "resuming from checkpoint") {
		t.Fatalf("rescaled restore: exit %d\n%s", code, stderr)
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)
}

// runPath resolves a path the run in dir wrote, such as a sink's pending
// file in a checkpoint, relative to dir when it is not absolute.
func runPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// TestKillAfterFinalCheckpoint is a kill between the job's final
// checkpoint and the end of its run, before the checkpoint's commit: the
// state the kill leaves is made from a finished run by taking back the
// record of its end and its last commit. The next run finishes the commit
// and runs nothing again; only a run after one that ended starts the job
// afresh.
func TestKillAfterFinalCheckpoint(t *testing.T) {
	t.Parallel()
	query := fmt.Sprintf(crashQuery, 3000, 20000)
	want := referenceRun(t, query)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), query)
	args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms"}
	if _, stderr, code := runStrand(t, dir, args...); code != 0 || !ended(t, dir) {
		t.Fatalf("first run: exit %d, ended %v\n%s", code, ended(t, dir), stderr)
	}
	root := filepath.Join(dir, ".strand", "checkpoints", "q_1")
	st, err := checkpoint.OpenStorage(vfs.Default, root)
	if err != nil {
		t.Fatal(err)
	}
	md, err := st.Newest()
	if err != nil || md == nil || !md.Finished {
		t.Fatalf("newest checkpoint %+v, %v: want the final one", md, err)
	}
	uncommitted := 0
	for _, sk := range md.Sinks {
		for _, p := range sk.Pending {
			if err := os.Rename(runPath(dir, p.Final), runPath(dir, p.Tmp)); err != nil {
				t.Fatal(err)
			}
			uncommitted++
		}
	}
	if uncommitted == 0 {
		t.Fatal("the final checkpoint has no pending file to commit")
	}
	if err := os.Remove(filepath.Join(root, "ended")); err != nil {
		t.Fatal(err)
	}

	_, stderr, code := runStrand(t, dir, args...)
	if code != 0 || !strings.Contains(stderr, "running nothing again") || !ended(t, dir) {
		t.Fatalf("run after the kill: exit %d, ended %v\n%s", code, ended(t, dir), stderr)
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)

	// The job ended: running it again is a new run, which appends.
	if _, stderr, code := runStrand(t, dir, args...); code != 0 || !strings.Contains(stderr, "starting it afresh") {
		t.Fatalf("run after the end: exit %d\n%s", code, stderr)
	}
	if got := committed(t, filepath.Join(dir, "out")); len(got) != 2*len(want) {
		t.Errorf("a new run after the end: %d rows, want twice %d", len(got), len(want))
	}
}
