package session

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/types"
)

// TestClientStatements runs SHOW FUNCTIONS, SHOW CREATE TABLE and VIEW,
// SET without arguments, HELP and SOURCE, and checks what they print.
func TestClientStatements(t *testing.T) {
	dir := t.TempDir()
	var out, log bytes.Buffer
	s := New(&out, &log)
	s.Parallelism = 3
	run := func(sql string) string {
		t.Helper()
		out.Reset()
		if err := s.ExecScript(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out.String()
	}
	run(`CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '10'); CREATE VIEW v AS SELECT user_id FROM clicks;`)
	if got := run("SHOW FUNCTIONS;"); !strings.Contains(got, "| function name ") || !strings.Contains(got, "| COUNT ") ||
		!strings.Contains(got, "| UPPER ") || !strings.Contains(got, "| TUMBLE ") {
		t.Errorf("SHOW FUNCTIONS:\n%s", got)
	}
	want := "CREATE TABLE clicks (\n  ts TIMESTAMP(3),\n  user_id BIGINT,\n  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n) WITH (\n  'connector' = 'datagen',\n  'rows-per-second' = '10'\n)\n"
	if got := run("SHOW CREATE TABLE clicks;"); got != want {
		t.Errorf("SHOW CREATE TABLE printed\n%s\nwant\n%s", got, want)
	}
	if got := run("SHOW CREATE VIEW v;"); got != "CREATE VIEW v AS\nSELECT user_id FROM clicks\n" {
		t.Errorf("SHOW CREATE VIEW printed %q", got)
	}
	err := s.ExecScript(t.Context(), "SHOW CREATE TABLE v;")
	if !errors.Is(err, planner.ErrUnknownTable) || !strings.Contains(err.Error(), "1:19: 'v' is a view") {
		t.Errorf("SHOW CREATE TABLE of a view: %v", err)
	}
	run("SET 'sql-client.execution.result-mode' = 'changelog';")
	got := run("SET;")
	for _, row := range []string{
		"| sql-client.execution.result-mode                     | changelog | tableau ",
		"| sql-client.display.max-rows ",
		"| parallelism.default ",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("SET lists no %q:\n%s", row, got)
		}
	}
	if !strings.Contains(got, "| key ") || !strings.Contains(got, "| default ") || !strings.Contains(got, " 3 ") {
		t.Errorf("SET's table:\n%s", got)
	}
	if got := run("HELP;"); !strings.Contains(got, "SOURCE 'file.sql'") || !strings.Contains(got, "SHOW CREATE TABLE") {
		t.Errorf("HELP:\n%s", got)
	}

	file := filepath.Join(dir, "more.sql")
	if err := os.WriteFile(file, []byte("SHOW TABLES;\n\nSELECT nope FROM clicks;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = s.ExecScript(t.Context(), "SOURCE '"+file+"';")
	if !strings.Contains(out.String(), "| clicks ") {
		t.Errorf("SOURCE ran no SHOW TABLES: %q", out.String())
	}
	msg := planner.FormatError("", "SOURCE ...", err)
	if !errors.Is(err, planner.ErrUnknownColumn) || !strings.HasPrefix(msg, file+":3:8: unknown column 'nope'") ||
		!strings.Contains(msg, "SELECT nope FROM clicks;") {
		t.Errorf("an error in a sourced file: %s", msg)
	}
	if err := os.WriteFile(file, []byte("SOURCE '"+file+"';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.ExecScript(t.Context(), "SOURCE '"+file+"';"); err == nil || !strings.Contains(err.Error(), "sourced within each other") {
		t.Errorf("a file sourcing itself: %v", err)
	}
}

// panicking is a sink whose Open panics, standing for a bug in strand.
type panicking struct{}

func (panicking) Open(types.Schema, int, int) (exec.SinkWriter, error) { panic("boom") }

// TestPanicIsInternalError checks that a panic while a job starts fails
// the job with ErrInternal, and that the session runs the next statement.
func TestPanicIsInternalError(t *testing.T) {
	var out, log bytes.Buffer
	s := New(&out, &log)
	s.Parallelism = 1
	s.Results = func(Result) exec.Sink { return panicking{} }
	if err := s.ExecScript(t.Context(), "CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');"); err != nil {
		t.Fatal(err)
	}
	err := s.ExecScript(t.Context(), "SELECT n FROM g;")
	if !errors.Is(err, ErrInternal) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a panicking sink: %v", err)
	}
	if st, _, _ := s.Jobs.List()[0].Status(); st != exec.Failed {
		t.Errorf("the job's status is %s", st)
	}
	s.Results = nil
	if err := s.ExecScript(t.Context(), "SELECT n FROM g;"); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "+I[") != 3 {
		t.Errorf("the next SELECT printed %q", out.String())
	}
}

// closePanics is a sink whose writers panic when closed.
type closePanics struct{}

func (closePanics) Open(types.Schema, int, int) (exec.SinkWriter, error) {
	return closePanicsWriter{}, nil
}

type closePanicsWriter struct{}

func (closePanicsWriter) Write(arrow.RecordBatch) error { return nil }
func (closePanicsWriter) Close() error                  { panic("close boom") }
func (closePanicsWriter) Abort() error                  { return nil }

// TestPanicInJobGoroutine makes a sink panic on the goroutine that
// finishes the job: the job fails with an internal error, and the process
// and session go on.
func TestPanicInJobGoroutine(t *testing.T) {
	var out, log bytes.Buffer
	s := New(&out, &log)
	s.Parallelism = 1
	s.Results = func(Result) exec.Sink { return closePanics{} }
	if err := s.ExecScript(t.Context(), "CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');"); err != nil {
		t.Fatal(err)
	}
	err := s.ExecScript(t.Context(), "SELECT n FROM g;")
	if err == nil || !strings.Contains(err.Error(), "internal error: close boom") {
		t.Fatalf("a sink panicking in Close: %v", err)
	}
	if err := s.ExecScript(t.Context(), "SHOW TABLES;"); err != nil {
		t.Fatal(err)
	}
}
