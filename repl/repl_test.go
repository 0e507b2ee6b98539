package repl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
)

const gen = "CREATE TABLE g (n BIGINT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '2', 'fields.s.length' = '3');\n"

// TestScriptTableau runs a script and checks the tableau table of its
// SELECT: column names, widths from the types, numbers aligned right,
// the row count.
func TestScriptTableau(t *testing.T) {
	var out, errb bytes.Buffer
	sess := session.New(&out, &errb)
	sess.Parallelism = 1
	r := New(context.Background(), sess, &out, &errb)
	if err := r.Script("t.sql", strings.NewReader(gen+"SELECT n, s, n > 0 AS p FROM g;\n")); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 8 {
		t.Fatalf("output:\n%s", out.String())
	}
	border := "+----------------------+--------------------------------+-------+"
	if lines[0] != border || lines[1] != "|                    n | s                              | p     |" ||
		lines[2] != border || lines[5] != border || !strings.HasPrefix(lines[6], "2 rows in set (") {
		t.Errorf("output:\n%s", out.String())
	}
	for _, l := range lines[3:5] {
		if len(l) != len(border) || !strings.HasPrefix(l, "| ") || !strings.Contains(l, " | true  |") && !strings.Contains(l, " | false |") {
			t.Errorf("row %q", l)
		}
	}
}

// TestTableauShowsKinds: an updating result's table has Flink's op
// column with each row's kind.
func TestTableauShowsKinds(t *testing.T) {
	var out, errb bytes.Buffer
	sess := session.New(&out, &errb)
	sess.Parallelism = 1
	r := New(context.Background(), sess, &out, &errb)
	// The right side has no rows, so the change log is fixed: padded rows.
	script := gen + "CREATE TABLE e (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '0');\n" +
		"SELECT g.n, e.n AS m FROM g LEFT JOIN e ON g.n = e.n;\n"
	if err := r.Script("t.sql", strings.NewReader(script)); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 8 || lines[1] != "| op |                    n |                    m |" ||
		!strings.HasPrefix(lines[3], "| +I |") || !strings.HasSuffix(lines[3], " null |") {
		t.Errorf("output:\n%s", out.String())
	}
}

// TestScriptStops checks that a script stops at its first failing
// statement, with the error's line and column in the script, and that a
// refused result mode is pointed at.
func TestScriptStops(t *testing.T) {
	var out, errb bytes.Buffer
	r := New(context.Background(), session.New(&out, &errb), &out, &errb)
	err := r.Script("t.sql", strings.NewReader("SET 'sql-client.execution.result-mode' = 'tableau';\nSET 'sql-client.execution.result-mode'\n  = 'tabloid'; SHOW TABLES;\n"))
	if err == nil {
		t.Fatal("no error")
	}
	want := "[ERROR] t.sql:3:5: 'sql-client.execution.result-mode' must be 'tableau', 'table' or 'changelog', got 'tabloid'\n    = 'tabloid';\n      ^\n"
	if errb.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, want %q; stdout %q", errb.String(), want, out.String())
	}
}

// TestPanicSurvives makes planning a SELECT panic: the REPL reports an
// internal error, and the session still executes the next statement.
func TestPanicSurvives(t *testing.T) {
	var out, errb bytes.Buffer
	sess := session.New(&out, &errb)
	r := New(context.Background(), sess, &out, &errb)
	sess.Results = func(session.Result) exec.Sink { panic("boom") }
	if err := r.exec("", gen); err != nil {
		t.Fatal(err)
	}
	if err := r.exec("", "SELECT n FROM g;"); err == nil || !strings.Contains(errb.String(), "[ERROR] internal error (a bug in strand): boom") {
		t.Fatalf("%v; stderr %q", err, errb.String())
	}
	if err := r.exec("", "SHOW TABLES;"); err != nil || !strings.Contains(out.String(), "| g ") {
		t.Fatalf("after the panic: %v; stdout %q", err, out.String())
	}
}

// TestSourceSelects sources a file of two SELECTs: each table ends with
// its own row count.
func TestSourceSelects(t *testing.T) {
	file := filepath.Join(t.TempDir(), "two.sql")
	if err := os.WriteFile(file, []byte(gen+"SELECT n FROM g;\nSELECT s FROM g WHERE n > 0 OR n <= 0;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	sess := session.New(&out, &errb)
	sess.Parallelism = 1
	r := New(context.Background(), sess, &out, &errb)
	if err := r.exec("", "SOURCE '"+file+"';"); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if got := out.String(); strings.Count(got, "2 rows in set") != 2 || !strings.Contains(got, "| s ") {
		t.Errorf("output:\n%s", got)
	}
}
