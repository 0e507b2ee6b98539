package tests

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// statusFile writes a CSV of 1000 rows for clicksDDL whose last line has
// no line break and was just written: the reader waits a second for the
// file to stay quiet before it takes that line as complete, so the job
// runs long enough for its status line to be drawn with the rest read.
func statusFile(t *testing.T, dir string) {
	var b strings.Builder
	for r := range 1000 {
		fmt.Fprintf(&b, "2024-01-01 00:%02d:%02d,%d,/p%d,1.5\n", r/60%60, r%60, r%7, r)
	}
	b.WriteString("2024-01-01 00:59:59,1,/last,1.5")
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), b.String())
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, "")+"SELECT user_id, url FROM clicks;\n")
}

// TestRunStatusLine: on a terminal, strand run redraws a status line on
// stderr (rows read, bytes read of the file's size with a percentage,
// rows/s, watermark, checkpoints) and clears it before anything else is
// written there; the rows on stdout are untouched. When stderr is not a
// terminal there is no status line.
func TestRunStatusLine(t *testing.T) {
	bin := strandBinary(t) // built before the file is written
	dir := t.TempDir()
	statusFile(t, dir)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := exec.Command(bin, "run", "q.sql", "--parallelism", "1", "--checkpoint-interval", "100ms")
	cmd.Dir = dir
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var term bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(&term, ptmx) // ends with EIO once the process has exited
		close(copied)
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%q", err, term.String())
	}
	<-copied
	out := term.String()
	line := regexp.MustCompile(`\r\x1b\[Krows read 1000, bytes read 3[0-9.]+ KiB of 3[0-9.]+ KiB \(99%\), \d+ rows/s, watermark 2024-01-01 00:16:\d\d\.000, checkpoints \d+`)
	if !line.MatchString(out) {
		t.Errorf("no status line with the rows, bytes, rate, watermark and checkpoints:\n%q", out)
	}
	// Each status line is cleared before the next one or a log line, and
	// the last is cleared before the job's summary.
	draws := strings.Split(out, "\r\x1b[K")
	last := draws[len(draws)-1]
	if strings.HasPrefix(last, "rows read") || !strings.Contains(last, " finished: rows read 1001") {
		t.Errorf("the terminal does not end with the job's summary after a cleared status line: %q", last)
	}
	for _, d := range draws[1:] {
		if strings.HasPrefix(d, "rows read") && strings.ContainsAny(d, "\r\n") {
			t.Errorf("a status line is not redrawn in place: %q", d)
		}
	}
	if n := strings.Count(stdout.String(), "\n"); n != 1002 || strings.Contains(stdout.String(), "\x1b") {
		t.Errorf("stdout has %d lines, or escapes:\n%.300q", n, stdout.String())
	}

	// Not a terminal: no status line.
	statusFile(t, dir)
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "1")
	if code != 0 || strings.Contains(stderr, "\x1b") || strings.Contains(stderr, "rows/s") {
		t.Errorf("stderr a pipe: exit %d, %q", code, stderr)
	}
}
