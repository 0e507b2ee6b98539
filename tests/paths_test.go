package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIFileURI: file:// URIs name local paths, for sources and sinks
// alike (Flink's Nexmark q10 writes to one); nothing is written into a
// folder named "file:".
func TestCLIFileURI(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/in.csv"), "1,a\n2,b\n")
	sql := "CREATE TABLE src (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'file://" + filepath.Join(dir, "data/in.csv") + "', 'format' = 'csv');\n" +
		"CREATE TABLE dst (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'file://localhost" + filepath.Join(dir, "out") + "/', 'format' = 'csv');\n" +
		"INSERT INTO dst SELECT id, s FROM src;\n"
	writeFile(t, filepath.Join(dir, "q.sql"), sql)
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "file:")); err == nil {
		t.Errorf("a folder named file: was created")
	}
	files, err := filepath.Glob(filepath.Join(dir, "out", "part-*.csv"))
	if err != nil || len(files) != 1 {
		t.Fatalf("part files in out/: %v, %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "1,a\n2,b\n" {
		t.Errorf("out: %q", b)
	}
}

// TestCLIMissingPath: a source path that does not exist is refused when
// the query reading it is planned, before any job starts, pointing at the
// path in the CREATE TABLE, even when that is in another file.
func TestCLIMissingPath(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ddl.sql"), "-- tables\nCREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');\n")
	writeFile(t, filepath.Join(dir, "q.sql"), "SELECT a FROM t;\n")
	_, stderr, code := runStrand(t, dir, "run", "ddl.sql", "q.sql")
	if code == 0 {
		t.Fatalf("exit 0\n%s", stderr)
	}
	want := "ddl.sql:2:67: table t: path 'data/none.csv' does not exist (relative to the working directory "
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr does not contain %q:\n%s", want, stderr)
	}
	caret := "  CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');\n" + strings.Repeat(" ", 68) + "^"
	if !strings.Contains(stderr, caret) {
		t.Errorf("no caret under the path:\n%s", stderr)
	}
	if strings.Contains(stderr, "started") {
		t.Errorf("a job started:\n%s", stderr)
	}
}
