package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCLISelectHeader: a SELECT in strand run prints a line of its column
// names, in the rows' format, once, before its rows, at any parallelism,
// and also when there are no rows; an INSERT into a print table does not.
func TestCLISelectHeader(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), "2024-01-01 00:00:01,1,/a,1.5\n2024-01-01 00:00:02,2,/b,2.5\n2024-01-01 00:00:03,3,/c,3.5\n")
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, "")+"SELECT user_id, amount * 2 AS twice, UPPER(url) FROM clicks;\n")
	writeFile(t, filepath.Join(dir, "none.sql"), fmt2(clicksDDL, "")+"SELECT url FROM clicks WHERE user_id > 9;\n")
	writeFile(t, filepath.Join(dir, "print.sql"), fmt2(clicksDDL, "")+"CREATE TABLE p (u BIGINT) WITH ('connector' = 'print');\nINSERT INTO p SELECT user_id FROM clicks;\n")
	for _, p := range []string{"1", "4"} {
		stdout, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", p)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if code != 0 || len(lines) != 4 || lines[0] != "op[user_id, twice, EXPR$2]" {
			t.Fatalf("parallelism %s: exit %d, stdout:\n%s\nstderr:\n%s", p, code, stdout, stderr)
		}
		rows := lines[1:]
		slices.Sort(rows)
		if strings.Join(rows, "\n") != "+I[1, 3.0, /A]\n+I[2, 5.0, /B]\n+I[3, 7.0, /C]" {
			t.Errorf("parallelism %s: rows\n%s", p, rows)
		}
	}
	if stdout, stderr, code := runStrand(t, dir, "run", "none.sql"); code != 0 || stdout != "op[url]\n" {
		t.Errorf("no rows: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if stdout, stderr, code := runStrand(t, dir, "run", "print.sql", "--parallelism", "1"); code != 0 || stdout != "+I[1]\n+I[2]\n+I[3]\n" {
		t.Errorf("print table: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
}

// TestCLISelectInterrupt: Ctrl-C on a SELECT over an unbounded source
// stops it: its header and rows are on stdout, the job is reported
// stopped, not failed, and strand exits 130 as a shell reports SIGINT.
func TestCLISelectInterrupt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), "CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');\nSELECT id FROM g;\n")
	cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "1")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var out []string
	deadline := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for len(out) < 3 && sc.Scan() { // the header and two rows: the job runs
		out = append(out, sc.Text())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\nstdout %q\nstderr:\n%s", err, out, errb.String())
	}
	if len(out) < 3 || out[0] != "op[id]" || !strings.HasPrefix(out[1], "+I[") {
		t.Errorf("stdout %q", out)
	}
	stderr := errb.String()
	if !regexp.MustCompile(`job [0-9a-f]+ stopped: rows read`).MatchString(stderr) || !strings.Contains(stderr, "strand: stopped") || strings.Contains(stderr, "failed") {
		t.Errorf("stderr:\n%s", stderr)
	}
}
