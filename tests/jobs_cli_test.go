package tests

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
)

// jobQuery is the crash tests' windowed aggregate over a generator that
// runs for about five seconds: long enough to be asked for savepoints and
// stopped before it ends.
var jobQuery = fmt.Sprintf(crashQuery, 20000, 4000)

// served is a `strand run --http` in the background.
type served struct {
	cmd      *exec.Cmd
	stderr   *syncBuffer
	done     chan error
	addr, id string
}

var (
	servingRE = regexp.MustCompile(`http serving on (\S+)`)
	startedRE = regexp.MustCompile(`job ([0-9a-f]{16}) started`)
)

// serve starts `strand run args... --http 127.0.0.1:0` in dir with the job
// registry under home, and waits until its job has completed checkpoint
// n.
func serve(t *testing.T, dir, home string, n int, args ...string) *served {
	t.Helper()
	s := &served{stderr: &syncBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(strandBinary(t), append(args, "--http", "127.0.0.1:0")...)
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "STRAND_HOME="+home)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
	})
	deadline := time.After(time.Minute)
	for !strings.Contains(s.stderr.String(), fmt.Sprintf("checkpoint %d completed", n)) {
		select {
		case err := <-s.done:
			t.Fatalf("run ended before checkpoint %d: %v\n%s", n, err, s.stderr.String())
		case <-deadline:
			t.Fatalf("no checkpoint completed:\n%s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	out := s.stderr.String()
	m, j := servingRE.FindStringSubmatch(out), startedRE.FindStringSubmatch(out)
	if m == nil || j == nil {
		t.Fatalf("no address or job id on stderr:\n%s", out)
	}
	s.addr, s.id = m[1], j[1]
	return s
}

// wait waits for the run to end and returns its exit code.
func (s *served) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute):
		t.Fatalf("run did not end:\n%s", s.stderr.String())
		return -1
	}
}

// running reports whether the run's process is still there.
func (s *served) running() bool {
	select {
	case err := <-s.done:
		s.done <- err
		return false
	default:
		return true
	}
}

// strandIn runs the binary in dir with the job registry under home.
func strandIn(t *testing.T, dir, home string, args ...string) (string, string, int) {
	t.Helper()
	return runStrandEnv(t, dir, []string{"STRAND_HOME=" + home}, args...)
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestJobControl runs a checkpointing job served over HTTP and drives it
// with the CLI as a user would: strand jobs lists it, strand savepoint
// writes a savepoint while it keeps running, strand stop ends it with one,
// and a run from that savepoint completes with the output of an
// uninterrupted run. On the way it checks the HTTP endpoints, and
// check-savepoint on the savepoint with the query unchanged and changed.
func TestJobControl(t *testing.T) {
	t.Parallel()
	want := referenceRun(t, jobQuery)
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), jobQuery)
	args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms"}
	s := serve(t, dir, home, 1, args...)

	if _, err := os.Stat(filepath.Join(home, "jobs", s.id+".json")); err != nil {
		t.Fatalf("the running job is not in the registry: %v", err)
	}
	out, errs, code := strandIn(t, dir, home, "jobs")
	row := regexp.MustCompile(s.id + `\s+q_1\s+RUNNING\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+[1-9]\d*\s+\d+\s+\d+ at \d\d:\d\d:\d\d\n`)
	if code != 0 || !strings.HasPrefix(out, "ID ") || !row.MatchString(out) {
		t.Fatalf("strand jobs: exit %d, want a row for %s with rows read and a last checkpoint:\n%s%s", code, s.id, out, errs)
	}

	out, errs, code = strandIn(t, dir, home, "savepoint", s.id[:6], "--dir", "sp")
	path := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(path, filepath.Join(dir, "sp")+"/savepoint-") {
		t.Fatalf("strand savepoint: exit %d, stdout %q, want a path under sp/\n%s", code, out, errs)
	}
	if _, err := checkpoint.LoadSavepoint(path); err != nil {
		t.Fatalf("the savepoint does not load: %v", err)
	}
	if !s.running() {
		t.Fatalf("the job ended after a savepoint:\n%s", s.stderr.String())
	}

	t.Run("http", func(t *testing.T) {
		api := "http://" + s.addr
		code, body := httpGet(t, api+"/jobs")
		var list struct {
			Jobs []struct{ ID, Status, Name string }
		}
		if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Jobs) != 1 || list.Jobs[0].ID != s.id || list.Jobs[0].Status != "RUNNING" {
			t.Errorf("GET /jobs: %d %v %s", code, err, body)
		}
		code, body = httpGet(t, api+"/jobs/"+s.id[:4])
		var d struct {
			ID, Statement string
			Metrics       map[string]int64
		}
		if err := json.Unmarshal([]byte(body), &d); code != 200 || err != nil || d.ID != s.id || !strings.Contains(d.Statement, "TUMBLE") ||
			d.Metrics["rows-read"] == 0 || d.Metrics["checkpoints-completed"] == 0 {
			t.Errorf("GET /jobs/<prefix>: %d %v %s", code, err, body)
		}
		for _, m := range []string{"rows-written", "late-rows", "bad-rows", "checkpoints-failed", "spills"} {
			if _, ok := d.Metrics[m]; !ok {
				t.Errorf("GET /jobs/<id> has no metric %s: %s", m, body)
			}
		}
		code, body = httpGet(t, api+"/jobs/0123456789abcdef")
		var e struct{ Errors []string }
		if err := json.Unmarshal([]byte(body), &e); code != 404 || err != nil || len(e.Errors) != 1 || !strings.Contains(e.Errors[0], "no job 0123456789abcdef") {
			t.Errorf("GET /jobs/<unknown>: %d %v %s", code, err, body)
		}
		code, body = httpGet(t, api+"/metrics")
		labels := `{job_id="` + s.id + `",job_name="q_1"}`
		for _, m := range []string{"rows_read", "rows_written", "late_rows", "bad_rows", "checkpoints_completed", "checkpoints_failed", "spills"} {
			if !regexp.MustCompile(`(?m)^strand_job_` + m + `_total` + regexp.QuoteMeta(labels) + ` \d`).MatchString(body) {
				t.Errorf("/metrics has no strand_job_%s_total%s:\n%s", m, labels, body)
			}
		}
		if code != 200 || !strings.Contains(body, "# TYPE strand_job_rows_read_total counter") {
			t.Errorf("/metrics: %d\n%s", code, body)
		}
	})

	out, errs, code = strandIn(t, dir, home, "stop", s.id, "--savepoint", "sp2")
	path = strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(path, filepath.Join(dir, "sp2")+"/savepoint-") {
		t.Fatalf("strand stop: exit %d, stdout %q\n%s", code, out, errs)
	}
	if code := s.wait(t); code != 0 || !strings.Contains(s.stderr.String(), "job "+s.id+" stopped with a savepoint") {
		t.Fatalf("the stopped run: exit %d\n%s", code, s.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, "jobs", s.id+".json")); !os.IsNotExist(err) {
		t.Errorf("the ended job is still in the registry: %v", err)
	}
	stopped := committed(t, filepath.Join(dir, "out"))
	if len(stopped) == 0 || len(stopped) >= len(want) {
		t.Fatalf("the stopped job committed %d rows of %d: it did not stop midway", len(stopped), len(want))
	}

	t.Run("check-savepoint", func(t *testing.T) {
		out, errs, code := strandIn(t, dir, home, "check-savepoint", path, "q.sql")
		if code != 0 || !strings.Contains(out, "all state maps") || !regexp.MustCompile(`maps\s+window-`).MatchString(out) ||
			!regexp.MustCompile(`maps\s+source-clicks`).MatchString(out) {
			t.Errorf("check-savepoint of the unchanged query: exit %d\n%s%s", code, out, errs)
		}
		old := uids(t, dir, "q.sql")
		writeFile(t, filepath.Join(dir, "q2.sql"), strings.Replace(jobQuery, "MAX(amount)", "MIN(amount)", 1))
		now := uids(t, dir, "q2.sql")
		out, errs, code = strandIn(t, dir, home, "check-savepoint", path, "q2.sql")
		if code == 0 || !regexp.MustCompile(`cannot map\s+`+old[0]+`\s+no operator of the job has this uid`).MatchString(out) ||
			!regexp.MustCompile(`new\s+`+now[0]+`\s+.*starts empty`).MatchString(out) {
			t.Errorf("check-savepoint of a changed query: exit %d, want 1 naming %s as unmapped and %s as new\n%s%s", code, old[0], now[0], out, errs)
		}
		if _, _, code := strandIn(t, dir, home, "check-savepoint", path, "q2.sql", "--allow-non-restored-state"); code != 0 {
			t.Errorf("check-savepoint --allow-non-restored-state: exit %d", code)
		}
		if _, errs, code := strandIn(t, dir, home, "check-savepoint", filepath.Join(dir, "sp"), "q.sql"); code == 0 || !strings.Contains(errs, "savepoint") {
			t.Errorf("check-savepoint of a directory that is no savepoint: exit %d\n%s", code, errs)
		}
	})

	_, errs, code = strandIn(t, dir, home, append(args, "--from-savepoint", path)...)
	if code != 0 || !strings.Contains(errs, "resuming from savepoint") {
		t.Fatalf("run from the savepoint: exit %d\n%s", code, errs)
	}
	diffRows(t, committed(t, filepath.Join(dir, "out")), want)
}

var summaryRE = regexp.MustCompile(`rows read (\d+), rows written (\d+), late rows dropped 0`)

// TestJobControlDrain stops a job with --drain: every window fires before
// the savepoint, so every row the job read is counted in its committed
// output, and each window it read completely equals the uninterrupted
// run's.
func TestJobControlDrain(t *testing.T) {
	t.Parallel()
	want := referenceRun(t, jobQuery)
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), jobQuery)
	s := serve(t, dir, home, 5, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms")
	out, errs, code := strandIn(t, dir, home, "stop", s.id[:8], "--drain", "--savepoint", "sp")
	if code != 0 {
		t.Fatalf("strand stop --drain: exit %d\n%s%s", code, out, errs)
	}
	sp, err := checkpoint.LoadSavepoint(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("the drained savepoint does not load: %v", err)
	}
	if code := s.wait(t); code != 0 || !strings.Contains(s.stderr.String(), "stopped with a savepoint") {
		t.Fatalf("the drained run: exit %d\n%s", code, s.stderr.String())
	}
	m := summaryRE.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no summary line:\n%s", s.stderr.String())
	}
	read, _ := strconv.Atoi(m[1])
	got := committed(t, filepath.Join(dir, "out"))
	counted := 0
	for _, r := range got {
		n, _ := strconv.Atoi(strings.Split(r, ",")[2])
		counted += n
	}
	if read == 0 || read >= 20000 || counted != read || m[2] != strconv.Itoa(len(got)) {
		t.Fatalf("drained: %d rows read, %d counted in %d committed rows (%s written): every row read should be in a fired window", read, counted, len(got), m[2])
	}
	// The windows that end by the savepoint's lowest split watermark were
	// read completely: a row of theirs still unread would be late, and the
	// generator's rows are at most 1 s out of order, within the watermark's
	// 2 s. Splits progress unevenly (three splits over two subtasks), so
	// the newest window read says nothing about the oldest incomplete one.
	wm := int64(math.MaxInt64)
	for _, src := range sp.Sources {
		for _, split := range src.Splits {
			wm = min(wm, split.Watermark)
		}
	}
	complete := func(rows []string) []string {
		var out []string
		for _, r := range rows {
			ws, err := time.Parse("2006-01-02 15:04:05.000", strings.Split(r, ",")[0])
			if err != nil {
				t.Fatal(err)
			}
			if ws.Add(time.Second).UnixMilli() <= wm {
				out = append(out, r)
			}
		}
		return out
	}
	if len(complete(got)) == 0 {
		t.Fatalf("the drained savepoint's watermark %d passed no window: %d rows", wm, len(got))
	}
	diffRows(t, complete(got), complete(want))
}

// TestHTTPRefusesRemote checks that --http on an address other machines
// can reach is refused without --http-allow-remote, before any job runs.
func TestHTTPRefusesRemote(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), jobQuery)
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		_, errs, code := strandIn(t, dir, t.TempDir(), "run", "q.sql", "--http", addr)
		if code == 0 || !strings.Contains(errs, "--http-allow-remote") || !strings.Contains(errs, "no authentication") || strings.Contains(errs, "started") {
			t.Errorf("--http %s: exit %d\n%s", addr, code, errs)
		}
	}
}
