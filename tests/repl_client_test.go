package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestREPLComplete completes a table name, a column name after "t." and a
// connector option key inside WITH ( with Tab.
func TestREPLComplete(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), replClicks)
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');\r")
	tm.prompt()
	tm.send("SELECT url FROM cli\t")
	tm.expect("SELECT url FROM clicks")
	tm.send(" WHERE clicks.us\t")
	tm.expect("WHERE clicks.user_id")
	tm.send(" = 2;\r")
	got := tm.expect("1 row in set")
	if !strings.Contains(got, "| /b ") {
		t.Errorf("the completed SELECT printed\n%s", got)
	}
	tm.prompt()
	tm.send("CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per\t")
	tm.expect("'rows-per-second'")
	tm.send(" = '5');\r")
	tm.prompt()
	tm.send("SHOW CREATE TABLE g;\r")
	tm.expect("'rows-per-second' = '5'")
	tm.prompt()
	tm.exit()
}

// TestREPLHistorySearch finds an earlier statement with Ctrl-R and runs it.
func TestREPLHistorySearch(t *testing.T) {
	dir := t.TempDir()
	tm := startREPL(t, dir, "--history-file", filepath.Join(dir, "hist"))
	tm.send("CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\r")
	tm.prompt()
	tm.send("SHOW TABLES;\r")
	tm.expect("1 row in set")
	tm.prompt()
	tm.send("DROP TABLE t;\r")
	tm.prompt()
	// Ctrl-R, then part of the CREATE TABLE: Enter runs the entry found.
	tm.send("\x12")
	tm.send("blackh")
	tm.expect("CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');")
	tm.send("\r")
	tm.prompt()
	tm.send("SHOW TABLES;\r")
	got := tm.expect("row in set")
	if !strings.Contains(got, "| t ") {
		t.Errorf("the CREATE TABLE found with Ctrl-R did not run:\n%s", got)
	}
	tm.prompt()
	tm.exit()
}

// TestREPLStatements runs HELP, SHOW FUNCTIONS, SHOW CREATE TABLE, SET
// without arguments and SOURCE at the prompt.
func TestREPLStatements(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "init.sql"), "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'blackhole');\nSHOW TABLES;\n")
	tm := startREPL(t, dir)
	tm.send("HELP;\r")
	tm.expect("SOURCE 'file.sql'")
	tm.expect("Ctrl-R")
	tm.prompt()
	tm.send("SHOW FUNCTIONS;\r")
	got := tm.expect("rows in set")
	for _, f := range []string{"| COUNT ", "| TUMBLE ", "| UPPER "} {
		if !strings.Contains(got, f) {
			t.Errorf("SHOW FUNCTIONS lists no %q:\n%s", f, got)
		}
	}
	tm.prompt()
	tm.send("SOURCE 'init.sql';\r")
	tm.expect("| t ")
	tm.prompt()
	tm.send("SHOW CREATE TABLE t;\r")
	got = tm.expect("'connector' = 'blackhole'\r\n)")
	if !strings.Contains(got, "CREATE TABLE t (\r\n  a INT,\r\n  b STRING\r\n) WITH (") {
		t.Errorf("SHOW CREATE TABLE:\n%s", got)
	}
	tm.prompt()
	tm.send("SET 'sql-client.display.max-rows' = '7';\r")
	tm.prompt()
	tm.send("SET;\r")
	got = tm.expect("rows in set")
	if !regexp.MustCompile(`\| sql-client\.display\.max-rows +\| 7 +\| 1000 +\|`).MatchString(got) ||
		!regexp.MustCompile(`\| sql-client\.execution\.result-mode +\| +\| tableau +\|`).MatchString(got) {
		t.Errorf("SET:\n%s", got)
	}
	tm.prompt()
	tm.send("SOURCE 'missing.sql';\r")
	tm.expect("1:8: SOURCE: open missing.sql: no such file or directory")
	tm.prompt()
	tm.exit()
}

// TestREPLResultModes shows the same bounded SELECT in changelog mode (an
// op column of +I) and in table mode (the rows, redrawn, then the count),
// and, with max-rows 2, the table view keeping the newest two rows only.
func TestREPLResultModes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), replClicks)
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');\r")
	tm.prompt()
	tm.send("SET 'sql-client.execution.result-mode' = 'changelog';\r")
	tm.prompt()
	tm.send("SELECT user_id, url FROM clicks;\r")
	got := strings.ReplaceAll(tm.expect("3 rows in set"), "\r\n", "\n")
	want := `+----+----------------------+--------------------------------+
| op |              user_id | url                            |
+----+----------------------+--------------------------------+
| +I |                    1 | /a                             |
| +I |                    2 | /b                             |
| +I |                    1 | /c                             |
+----+----------------------+--------------------------------+
3 rows in set`
	if !strings.Contains(got, want) {
		t.Errorf("changelog mode printed\n%s\nwant\n%s", got, want)
	}
	tm.prompt()
	tm.send("SET 'sql-client.execution.result-mode' = 'table';\r")
	tm.prompt()
	tm.send("SET 'sql-client.display.max-rows' = '2';\r")
	tm.prompt()
	tm.send("SELECT url FROM clicks;\r")
	got = strings.ReplaceAll(tm.expect("3 rows in set"), "\r\n", "\n")
	want = `| url                            |
+--------------------------------+
| /b                             |
| /c                             |
+--------------------------------+
3 rows in set`
	if !strings.Contains(got, want) || strings.Contains(got, "/a") {
		t.Errorf("table mode printed\n%s\nwant\n%s", got, want)
	}
	tm.prompt()
	tm.exit()
}

// TestREPLColour checks that an error is red and [INFO] green on a
// terminal without NO_COLOR.
func TestREPLColour(t *testing.T) {
	dir := t.TempDir()
	tm := startREPLEnv(t, dir, nil, "--parallelism", "1")
	tm.send("SELECT 1 FORM x;\r")
	tm.expect("\x1b[31m[ERROR] 1:10: syntax error")
	tm.prompt()
	tm.send("CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');\r")
	tm.prompt()
	tm.send("CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');\r")
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	tm.expect("\x1b[32m[INFO]\x1b[0m Job ")
	tm.prompt()
	tm.send("QUIT;\r")
	tm.expect("[y/N] ")
	tm.send("y\r")
	<-tm.done
}

// TestREPLSavepointResume stops an INSERT over a bounded sequence WITH
// SAVEPOINT half-way, resumes it from the savepoint, and checks that the
// file sink then holds every number exactly once.
func TestREPLSavepointResume(t *testing.T) {
	dir := t.TempDir()
	const n = 1500
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("SET 'execution.checkpointing.interval' = '200ms';\r")
	tm.prompt()
	tm.send("CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '" + strconv.Itoa(n) + "');\r")
	tm.prompt()
	tm.send("CREATE TABLE o (n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');\r")
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	id := regexp.MustCompile(`Job ([0-9a-f]{16}) submitted`).FindStringSubmatch(tm.expectRe(regexp.MustCompile(`Job [0-9a-f]{16} submitted`)))[1]
	tm.prompt()
	time.Sleep(500 * time.Millisecond)
	tm.send("STOP JOB '" + id + "' WITH SAVEPOINT;\r")
	sp := regexp.MustCompile(`\| (/\S+savepoint-\S+) +\|`)
	path := sp.FindStringSubmatch(tm.expectRe(sp))[1]
	tm.prompt()
	read := func() []int {
		var got []int
		files, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
		for _, f := range files {
			if strings.HasPrefix(filepath.Base(f), ".") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Fields(string(b)) {
				v, err := strconv.Atoi(l)
				if err != nil {
					t.Fatalf("%s: %q", f, l)
				}
				got = append(got, v)
			}
		}
		slices.Sort(got)
		return got
	}
	if k := len(read()); k == 0 || k >= n {
		t.Fatalf("the stopped job had written %d rows of %d", k, n)
	}
	tm.send("SET 'execution.savepoint.path' = '" + path + "';\r")
	tm.prompt()
	tm.send("INSERT INTO o SELECT n FROM g;\r")
	tm.expect("resuming from savepoint " + path)
	tm.prompt()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tm.send("SHOW JOBS;\r")
		got := tm.expect("rows in set")
		tm.prompt()
		if strings.Count(got, "FINISHED") == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resumed job did not finish:\n%s", got)
		}
		time.Sleep(200 * time.Millisecond)
	}
	got := read()
	if len(got) != n {
		t.Fatalf("after the resume the sink holds %d rows, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("row %d is %d: rows lost or written twice", i, v)
		}
	}
	tm.exit()
}

// TestREPLScriptStopsJobs runs an init file whose INSERT reads an
// unbounded source, which must not keep the script after it from running,
// and checks that the job is stopped with a savepoint when the REPL ends
// (state.savepoints.dir set), or canceled and said so when it is not.
func TestREPLScriptStopsJobs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "init.sql"), `SET 'execution.checkpointing.interval' = '100ms';
CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100');
CREATE TABLE o (n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT n FROM g;
`)
	writeFile(t, filepath.Join(dir, "sp.sql"), "SET 'state.savepoints.dir' = 'sps';\nSHOW TABLES;\n")
	strandBinary(t)
	start := time.Now()
	out, stderr, code := runStrand(t, dir, "repl", "-i", "init.sql", "-f", "sp.sql", "--parallelism", "1")
	if code != 0 || !strings.Contains(out, "| g ") {
		t.Fatalf("exit %d, stdout\n%s\nstderr\n%s", code, out, stderr)
	}
	m := regexp.MustCompile(`\[INFO\] Savepoint written to (\S+); job [0-9a-f]{16} stopped\.`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no savepoint said on stderr:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(m[1], "_metadata")); err != nil || !strings.HasPrefix(m[1], filepath.Join(dir, "sps")) {
		t.Errorf("savepoint %s: %v", m[1], err)
	}
	writeFile(t, filepath.Join(dir, "plain.sql"), "SHOW TABLES;\n")
	_, stderr, code = runStrand(t, dir, "repl", "-i", "init.sql", "-f", "plain.sql", "--parallelism", "1")
	if code != 0 || !regexp.MustCompile(`\[INFO\] Job [0-9a-f]{16} canceled \(no savepoint`).MatchString(stderr) {
		t.Errorf("exit %d, stderr\n%s", code, stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the two runs took %s", d)
	}

	// A piped script blocked on an unbounded INSERT: SIGTERM stops the
	// job with a savepoint, and the REPL exits.
	writeFile(t, filepath.Join(dir, "pipe.sql"), "SET 'state.savepoints.dir' = 'sps2';\n"+
		readFile(t, filepath.Join(dir, "init.sql"))+"SHOW TABLES;\n")
	cmd := exec.Command(strandBinary(t), "--parallelism", "1")
	cmd.Dir = dir
	f, err := os.Open(filepath.Join(dir, "pipe.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var outb, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = f, &outb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if !regexp.MustCompile(`\[INFO\] Savepoint written to \S+sps2/\S+; job [0-9a-f]{16} stopped\.`).MatchString(errb.String()) ||
		strings.Contains(outb.String(), "table name") {
		t.Errorf("after SIGTERM: stdout\n%s\nstderr\n%s", outb.String(), errb.String())
	}
}
