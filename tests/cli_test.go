package tests

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binary strandBinary built, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// strandBinary builds cmd/strand once per test process.
func strandBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "strand-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "strand")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/strand").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building strand: %v", buildErr)
	}
	return binPath
}

// runStrand runs the binary in dir and returns stdout, stderr and the exit
// code.
func runStrand(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runStrandEnv(t, dir, nil, args...)
}

// runStrandEnv is runStrand with env added to the environment.
func runStrandEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(strandBinary(t), args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const clicksDDL = `CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv'%s);
`

// TestCLIErrors checks what a user sees for each kind of mistake: the file,
// line and column, a caret, a non-zero exit, and never a Go stack trace.
func TestCLIErrors(t *testing.T) {
	cases := []struct {
		name, sql, data, want string
	}{
		{"syntax", "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nSELECT a\nFORM t;\n", "", "bad.sql:3:1: syntax error"},
		{"unknown table", "\n\nSELECT a, b FROM nowhere;\n", "", "bad.sql:3:18: unknown table or view 'nowhere'"},
		{"unknown column", fmt2(clicksDDL, "") + "SELECT user_id, amout FROM clicks;\n", "", "bad.sql:5:17: unknown column 'amout'"},
		{"unknown function", fmt2(clicksDDL, "") + "SELECT frobnicate(url) FROM clicks;\n", "", "bad.sql:5:8: unknown function FROBNICATE"},
		{"type mismatch", fmt2(clicksDDL, "") + "SELECT url + 1 FROM clicks;\n", "", "bad.sql:5:12: cannot apply + to STRING and INT"},
		{"unknown option", fmt2(clicksDDL, ", 'pth' = 'x'"), "", "bad.sql:4:83: unknown option 'pth' for connector 'filesystem'"},
		{"bad row", fmt2(clicksDDL, "") + "SELECT * FROM clicks;\n", "2024-01-01 00:00:01,1,/a,1.5\n2024-01-01 00:00:02,1,/a,2\n2024-01-01 00:00:03,2,/b,x1\n",
			`data/clicks.csv:3: column 'amount': cannot parse "x1" as DOUBLE`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "bad.sql"), c.sql)
			writeFile(t, filepath.Join(dir, "data/clicks.csv"), c.data)
			_, stderr, code := runStrand(t, dir, "run", "bad.sql", "--parallelism", "2")
			if code == 0 {
				t.Fatalf("exit status 0; stderr:\n%s", stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr does not contain %q:\n%s", c.want, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace shown to the user:\n%s", stderr)
			}
			if strings.Contains(c.want, "bad.sql:") && !strings.Contains(stderr, "^") {
				t.Errorf("no caret under the error:\n%s", stderr)
			}
		})
	}
}

// TestCLIIgnoreParseErrors: with ignore-parse-errors the bad row is
// skipped, counted in the summary, and the job succeeds.
func TestCLIIgnoreParseErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, ", 'csv.ignore-parse-errors' = 'true'")+"SELECT user_id, amount FROM clicks;\n")
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), "2024-01-01 00:00:01,1,/a,1.5\n2024-01-01 00:00:03,2,/b,x1\n")
	stdout, stderr, code := runStrand(t, dir, "run", "q.sql")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if stdout != "op[user_id, amount]\n+I[1, 1.5]\n" {
		t.Errorf("stdout = %q", stdout)
	}
	for _, want := range []string{"job ", " started", "rows read 1", "bad rows skipped 1"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestCLIExplainAndVersion covers the other subcommands.
func TestCLIExplainAndVersion(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, "")+`CREATE TABLE out_t (ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_t SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
`)
	stdout, stderr, code := runStrand(t, dir, "explain", "q.sql", "--parallelism", "3")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"== Optimized Logical Plan ==", "WindowAggregate", "== Physical Plan ==", "via hash[]", "[parallelism 3]",
		"Sink(table=[out_t]", "\n+- Project(", "size=[INTERVAL '10' SECOND]", "watermark=[($0:ts - INTERVAL '5' SECOND)]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "-- q.sql") {
		t.Errorf("one plan has a separator:\n%s", stdout)
	}
	// Several statements' plans are told apart by their statement.
	writeFile(t, filepath.Join(dir, "two.sql"), "SELECT url FROM clicks;\nSELECT user_id\nFROM clicks;\n")
	stdout, stderr, code = runStrand(t, dir, "explain", "q.sql", "two.sql")
	for _, want := range []string{"-- q.sql:6:1: INSERT INTO out_t SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE click ...\n== Abstract Syntax Tree ==\n",
		"\n\n-- two.sql:1:1: SELECT url FROM clicks\n== Abstract", "\n\n-- two.sql:2:1: SELECT user_id FROM clicks\n== Abstract"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, explain of several lacks %q:\n%s%s", code, want, stdout, stderr)
		}
	}
	stdout, _, code = runStrand(t, dir, "version")
	if code != 0 || !strings.HasPrefix(stdout, "strand ") {
		t.Errorf("version: %d %q", code, stdout)
	}
}

func fmt2(format, arg string) string { return strings.Replace(format, "%s", arg, 1) }

// TestCLIInterrupt: SIGINT stops an unbounded job cleanly: a clear message,
// the job reported stopped (not failed), exit status 130, and no hidden
// in-progress files left in the sink.
func TestCLIInterrupt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id FROM g;
`)
	cmd := exec.Command(strandBinary(t), "run", "q.sql")
	cmd.Dir = dir
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the job has started, so that the signal lands while
	// it runs (and after strand listens for it) however slow the machine.
	var errb bytes.Buffer
	started := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		once := false
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), " started") && !once {
				close(started)
				once = true
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the job did not start within a minute")
	}
	time.Sleep(200 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	<-copied
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "strand: stopped") || strings.Contains(errb.String(), "goroutine ") {
		t.Errorf("stderr:\n%s", errb.String())
	}
	if !regexp.MustCompile(`job [0-9a-f]+ stopped: rows read`).MatchString(errb.String()) || strings.Contains(errb.String(), "failed") {
		t.Errorf("the job is not reported as stopped:\n%s", errb.String())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("hidden file %s left behind", e.Name())
		}
	}
}

// TestCLIRestartStrategy: a checkpointing job that fails is restarted as
// the fixed-delay strategy says, then fails for good, reporting each
// restart; restart-strategy 'none' does not restart.
func TestCLIRestartStrategy(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, "")+"SELECT * FROM clicks;\n")
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), "2024-01-01 00:00:01,1,/a,1.5\n2024-01-01 00:00:03,2,/b,x1\n")
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--checkpoint-interval", "1s",
		"--set", "restart-strategy.fixed-delay.attempts=2", "--set", "restart-strategy.fixed-delay.delay=10ms")
	if code != 1 || strings.Count(stderr, "restarting in 10ms") != 2 || !strings.Contains(stderr, `cannot parse "x1" as DOUBLE`) {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	_, stderr, code = runStrand(t, dir, "run", "q.sql", "--checkpoint-interval", "1s", "--set", "restart-strategy=none")
	if code != 1 || strings.Contains(stderr, "restarting") {
		t.Errorf("restart-strategy none: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestCLISeveralFiles: files run in order in one session, so the Nexmark
// DDL file declares the tables its query files read.
func TestCLISeveralFiles(t *testing.T) {
	dir := t.TempDir()
	ddl, err := os.ReadFile("../queries/nexmark/ddl.sql")
	if err != nil {
		t.Fatal(err)
	}
	small := strings.Replace(string(ddl), "'events.num' = '10000000'", "'events.num' = '20000'", -1)
	if small == string(ddl) {
		t.Fatal("ddl.sql no longer sets events.num = 10000000; update this test")
	}
	writeFile(t, filepath.Join(dir, "ddl.sql"), small)
	for _, q := range []string{"q0", "q7w"} {
		query, err := os.ReadFile("../queries/nexmark/" + q + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, q+".sql"), string(query))
		_, stderr, code := runStrand(t, dir, "run", "ddl.sql", q+".sql", "--parallelism", "2")
		if code != 0 || !strings.Contains(stderr, "rows read") {
			t.Errorf("%s: exit %d\n%s", q, code, stderr)
		}
	}
	_, stderr, code := runStrand(t, dir, "run", "q0.sql")
	if code == 0 || !strings.Contains(stderr, "q0.sql:") || !strings.Contains(stderr, "unknown table or view 'bid'") {
		t.Errorf("a query file alone: exit %d\n%s", code, stderr)
	}
}
