package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// term is the REPL running in the real binary on a pseudo-terminal.
type term struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // output before seen has been matched by expect
	done chan struct{}
	// draining drops what has been read, counting its lines, so that a
	// long run's output does not pile up in the test.
	draining bool
	lines    int64
}

// startREPL starts `strand repl` with args in dir on a terminal, without
// colours (NO_COLOR).
func startREPL(t *testing.T, dir string, args ...string) *term {
	t.Helper()
	return startREPLEnv(t, dir, []string{"NO_COLOR=1"}, args...)
}

// startREPLEnv starts `strand repl` with args in dir on a terminal, with
// env added to the environment.
func startREPLEnv(t *testing.T, dir string, env []string, args ...string) *term {
	t.Helper()
	cmd := exec.Command(strandBinary(t), append([]string{"repl"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "TERM=dumb", "HOME="+dir), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() {
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			tm.mu.Lock()
			if tm.draining {
				tm.lines += int64(bytes.Count(buf[:n], []byte("\n")))
			} else {
				tm.out.Write(buf[:n])
			}
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
	})
	tm.expect(Prompt)
	return tm
}

// freshPrompt matches a prompt on a line after the one typed: the next
// prompt, not the prompt that the line editor redraws with each key of the
// statement typed before it (those redraws all precede the line's end).
// The line may hold escape sequences (readline erases it before it prints
// the prompt, colours) but none that moves the cursor up: a Ctrl-R search
// and a list of completions are drawn below the line being typed, after a
// line break, and readline moves back up to redraw the prompt and the line
// (TestREPLFreshPrompt). Output written at the prompt, such as a
// background job's checkpoint lines, still ends in a line break before
// readline redraws the prompt and the line typed so far: where jobs run,
// prompt() can match that before the statement ran, so a key that the
// terminal would act on in cooked mode must not follow it there.
var freshPrompt = regexp.MustCompile(`\n(?:[^\n\x1b]|\x1b\[[0-9;?]*[@B-~])*` + regexp.QuoteMeta(Prompt))

// prompt waits for the REPL to be back at its prompt after a statement, so
// that keys the line editor treats specially (Ctrl-R, Tab, Ctrl-C) reach it
// in raw mode rather than the terminal's own line discipline, which would
// act on them itself while a statement runs.
func (tm *term) prompt() {
	tm.t.Helper()
	tm.expectRe(freshPrompt)
}

// Prompt is the REPL's prompt, as the terminal shows it.
const Prompt = "strand> "

// send types s.
func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.tty.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// expect waits until the output after what was matched last holds want,
// and returns the output up to and including it.
func (tm *term) expect(want string) string {
	tm.t.Helper()
	return tm.expectRe(regexp.MustCompile(regexp.QuoteMeta(want)))
}

func (tm *term) expectRe(re *regexp.Regexp) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tm.mu.Lock()
		rest := tm.out.String()[tm.seen:]
		if loc := re.FindStringIndex(rest); loc != nil {
			tm.seen += loc[1]
			tm.mu.Unlock()
			return rest[:loc[1]]
		}
		tm.mu.Unlock()
		select {
		case <-tm.done:
			tm.t.Fatalf("the REPL ended before %q; its output:\n%s", re, rest)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("no %q in the REPL's output:\n%s", re, rest)
		}
	}
}

// exit leaves the REPL with Ctrl-D and checks that it exits with status 0.
func (tm *term) exit() {
	tm.t.Helper()
	tm.send("\x04")
	select {
	case <-tm.done:
	case <-time.After(10 * time.Second):
		tm.t.Fatal("the REPL did not exit on Ctrl-D")
	}
	if err := tm.cmd.Wait(); err != nil {
		tm.t.Fatalf("the REPL's exit: %v", err)
	}
}

const replClicks = "1970-01-01 00:00:01,1,/a,1.5\n1970-01-01 00:00:02,2,/b,2.5\n1970-01-01 00:00:03,1,/c,3\n"

// TestREPLTerminal types a multi-line CREATE TABLE, a statement cleared
// with Ctrl-C, a SELECT over a
// bounded file table (its rows in a tableau table), a syntax error (the
// caret under the right column), a SELECT over an unbounded datagen table
// stopped with Ctrl-C, and a second query after it.
func TestREPLTerminal(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), replClicks)
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("CREATE TABLE clicks (\r")
	tm.expect("     -> ")
	tm.send("  ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE\r")
	tm.expect("     -> ")
	tm.send(") WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');\r")
	tm.prompt()
	// Ctrl-C clears a statement being typed: what follows starts afresh.
	tm.send("SELECT nonsense\r")
	tm.expect("     -> ")
	tm.send("FROM\x03")
	tm.prompt()
	tm.send("SELECT user_id, url, amount FROM clicks WHERE amount > 2;\r")
	got := tm.expect("rows in set")
	want := `+----------------------+--------------------------------+--------------+
|              user_id | url                            |       amount |
+----------------------+--------------------------------+--------------+
|                    2 | /b                             |          2.5 |
|                    1 | /c                             |          3.0 |
+----------------------+--------------------------------+--------------+
2 rows in set`
	if !strings.Contains(strings.ReplaceAll(got, "\r\n", "\n"), want) {
		t.Errorf("SELECT printed\n%s\nwant\n%s", got, want)
	}
	tm.prompt()
	tm.send("SELECT url FORM clicks;\r")
	got = tm.expect("^")
	if !strings.Contains(got, "1:12: syntax error") || !strings.Contains(got, "SELECT url FORM clicks;\r\n             ^") {
		t.Errorf("syntax error shown as\n%s", got)
	}
	tm.prompt()
	tm.send("CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');\r")
	tm.prompt()
	tm.send("SELECT n FROM g;\r")
	tm.expectRe(regexp.MustCompile(`\|\s+-?\d+ \|`)) // a row arrived
	tm.send("\x03")
	tm.expect("Query stopped after")
	tm.prompt()
	tm.send("SELECT url FROM clicks WHERE user_id = 2;\r")
	got = tm.expect("1 row in set")
	if !strings.Contains(got, "| /b ") {
		t.Errorf("the query after Ctrl-C printed\n%s", got)
	}
	tm.prompt()
	tm.exit()
}

// runStrandStdin runs the binary in dir with stdin from a file and
// returns stdout, stderr and the exit code.
func runStrandStdin(t *testing.T, dir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(strandBinary(t), args...)
	cmd.Dir = dir
	f, err := os.Open(filepath.Join(dir, stdin))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f, &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestREPLPiped runs a script piped into `strand` and checks that it does
// what `strand run` does with the file: the same output, and for a script
// with an error, a non-zero exit and the error at the same line and column,
// after the statements before it ran.
func TestREPLPiped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), replClicks)
	script := fmt2(clicksDDL, "") + `CREATE TABLE out (user_id BIGINT, url STRING) WITH ('connector' = 'print');
INSERT INTO out SELECT user_id, url FROM clicks; INSERT INTO out
  SELECT user_id + 10, url FROM clicks WHERE amount > 2;
`
	writeFile(t, filepath.Join(dir, "ok.sql"), script)
	want, _, code := runStrand(t, dir, "run", "ok.sql", "--parallelism", "1")
	if code != 0 || strings.Count(want, "+I[") != 5 {
		t.Fatalf("strand run: exit %d, output\n%s", code, want)
	}
	for _, args := range [][]string{nil, {"repl"}, {"--parallelism", "1"}} {
		got, stderr, code := runStrandStdin(t, dir, "ok.sql", args...)
		if code != 0 || got != want {
			t.Errorf("strand %v < ok.sql: exit %d, output\n%s\nwant\n%s\nstderr:\n%s", args, code, got, want, stderr)
		}
	}
	got, _, code := runStrand(t, dir, "repl", "-f", "ok.sql", "--parallelism", "1")
	if code != 0 || got != want {
		t.Errorf("strand repl -f ok.sql: exit %d, output\n%s\nwant\n%s", code, got, want)
	}

	writeFile(t, filepath.Join(dir, "bad.sql"), script+"SELECT url,\n  amout FROM clicks;\nINSERT INTO out SELECT user_id, url FROM clicks;\n")
	wantOut, wantErr, wantCode := runStrand(t, dir, "run", "bad.sql", "--parallelism", "1")
	gotOut, gotErr, gotCode := runStrandStdin(t, dir, "bad.sql", "--parallelism", "1")
	const msg = ":9:3: unknown column 'amout'"
	if wantCode != 1 || !strings.Contains(wantErr, "bad.sql"+msg) {
		t.Fatalf("strand run bad.sql: exit %d, stderr\n%s", wantCode, wantErr)
	}
	if gotCode != 1 || !strings.Contains(gotErr, "<stdin>"+msg) || gotOut != wantOut {
		t.Errorf("strand < bad.sql: exit %d, output\n%s\nstderr\n%s", gotCode, gotOut, gotErr)
	}
}

// TestREPLHistory runs a statement of two lines in one session and recalls
// it, as one entry, with the up arrow in the next; the history file is
// the one --history-file names.
func TestREPLHistory(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "hist")
	tm := startREPL(t, dir, "--history-file", hist)
	tm.send("CREATE TABLE t (a INT)\r")
	tm.expect("     -> ")
	tm.send("  WITH ('connector' = 'blackhole');\r")
	tm.prompt()
	tm.send("SHOW TABLES;\r")
	tm.expect("1 row in set")
	tm.prompt()
	tm.exit()
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if want := "CREATE TABLE t (a INT)   WITH ('connector' = 'blackhole');\nSHOW TABLES;\n"; string(b) != want {
		t.Fatalf("history file holds %q, want %q", b, want)
	}

	tm = startREPL(t, dir, "--history-file", hist)
	tm.send("\x1b[A\x1b[A\r") // two entries back: the CREATE TABLE
	tm.expect("CREATE TABLE t (a INT)   WITH ('connector' = 'blackhole');")
	tm.prompt()
	tm.send("SHOW TABLES;\r")
	got := tm.expect("row in set")
	if !strings.Contains(got, "| t ") {
		t.Errorf("the recalled CREATE TABLE did not run:\n%s", got)
	}
	tm.prompt()
	tm.exit()
}

// TestREPLJobs submits an INSERT, which runs in the background while the
// prompt takes SHOW JOBS and then STOP JOB ... WITH SAVEPOINT; the next
// INSERT restores the savepoint; leaving the REPL with jobs running asks
// first.
func TestREPLJobs(t *testing.T) {
	dir := t.TempDir()
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("SET 'execution.checkpointing.interval' = '100ms';\r")
	tm.prompt()
	tm.send("CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');\r")
	tm.prompt()
	tm.send("CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');\r")
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	m := regexp.MustCompile(`\[INFO\] Job ([0-9a-f]{16}) submitted\.`).FindStringSubmatch(tm.expectRe(regexp.MustCompile(`\[INFO\] Job [0-9a-f]{16} submitted\.`)))
	id := m[1]
	tm.prompt()
	tm.send("SHOW JOBS;\r")
	got := tm.expect("1 row in set")
	if !regexp.MustCompile(`\| ` + id + ` \| repl_\d{8}_\d{6}_1 +\| RUNNING `).MatchString(got) {
		t.Fatalf("SHOW JOBS:\n%s", got)
	}
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	tm.expect("submitted.")
	tm.prompt()
	tm.send("STOP JOB '" + id + "' WITH SAVEPOINT;\r")
	got = tm.expectRe(regexp.MustCompile(`\| (/\S+savepoint-\S+) +\|`))
	path := regexp.MustCompile(`\| (/\S+savepoint-\S+) +\|`).FindStringSubmatch(got)[1]
	if _, err := os.Stat(filepath.Join(path, "_metadata")); err != nil {
		entries, _ := os.ReadDir(path)
		t.Errorf("savepoint %s: %v (holds %v)", path, err, entries)
	}
	tm.prompt()
	tm.send("SHOW JOBS;\r")
	got = tm.expect("2 rows in set")
	if !strings.Contains(got, "| "+id+" | ") || !regexp.MustCompile(id+` \| repl_\w+ +\| STOPPED `).MatchString(got) {
		t.Errorf("SHOW JOBS after the stop:\n%s", got)
	}
	tm.prompt()
	// The next INSERT restores the savepoint.
	tm.send("SET 'execution.savepoint.path' = '" + path + "';\r")
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	tm.expect("resuming from savepoint " + path)
	tm.expect("submitted.")
	tm.prompt()
	tm.send("\x04")
	tm.expect("2 job(s) still running; cancel them and quit? [y/N] ")
	tm.send("n\r")
	tm.prompt()
	tm.send("QUIT;\r")
	tm.expect("cancel them and quit? [y/N] ")
	tm.send("y\r")
	select {
	case <-tm.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the REPL did not exit")
	}
	if err := tm.cmd.Wait(); err != nil {
		t.Fatalf("the REPL's exit: %v", err)
	}
}

// TestREPLFreshPrompt checks prompt()'s pattern against what readline
// (chzyer/readline 1.5) writes: the prompt it prints when a statement is
// done matches; a redraw of the line being typed after a Ctrl-R search
// line, which readline writes below the line typed before it moves back
// up (TestREPLHistorySearch's Enter after Ctrl-R), does not.
func TestREPLFreshPrompt(t *testing.T) {
	for _, c := range []struct {
		out   string
		fresh bool
	}{
		{"\n\x1b[J\x1b[2K\rstrand> ", true},
		{"[INFO] Execute statement succeed.\r\n\x1b[J\x1b[2K\rstrand> ", true},
		{"\x1b[31m[ERROR] 1:10: syntax error\x1b[0m\r\n\x1b[J\x1b[2K\rstrand> ", true},
		{"\x1b[J\x1b[2K\rstrand> CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\n\x1b[Jbck-i-search: bla\x1b[4m \x1b[0m\r\x1b[1A\x1b[52C\x1b[J\x1b[2K\rstrand> CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');", false},
	} {
		if got := freshPrompt.MatchString(c.out); got != c.fresh {
			t.Errorf("prompt() matches %q: %v, want %v", c.out, got, c.fresh)
		}
	}
}
