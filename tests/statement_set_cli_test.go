package tests

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const setCLI = `CREATE TABLE clicks (ts TIMESTAMP(3), uid BIGINT, url STRING) WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE a (url STRING) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE b (uid BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'b');
EXECUTE STATEMENT SET
BEGIN
INSERT INTO a SELECT url FROM clicks;
INSERT INTO b SELECT uid FROM clicks;
END;
`

// TestStatementSetCLI: strand run and the REPL (its statements on stdin,
// a set over several lines) run a statement set as one job.
func TestStatementSetCLI(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clicks.csv"), "2024-01-01 00:00:01,1,/a\n2024-01-01 00:00:12,2,/b\n")
	writeFile(t, filepath.Join(dir, "q.sql"), setCLI)
	writeFile(t, filepath.Join(dir, "repl.sql"), setCLI+"SHOW JOBS;\n")
	started := regexp.MustCompile(`job [0-9a-f]{16} started`)
	type result struct {
		name           string
		stdout, stderr string
		code           int
	}
	run := result{name: "run"}
	run.stdout, run.stderr, run.code = runStrand(t, dir, "run", "q.sql")
	repl := result{name: "repl"}
	repl.stdout, repl.stderr, repl.code = runStrandStdin(t, dir, "repl.sql")
	for _, run := range []result{run, repl} {
		out := run.stdout + run.stderr
		if run.code != 0 {
			t.Fatalf("%s: exit %d\n%s", run.name, run.code, out)
		}
		for _, row := range []string{"a> +I[/a]", "a> +I[/b]", "b> +I[1]", "b> +I[2]"} {
			if !strings.Contains(out, row) {
				t.Errorf("%s: no %q in\n%s", run.name, row, out)
			}
		}
		if n := len(started.FindAllString(out, -1)); n != 1 {
			t.Errorf("%s: %d jobs started, want 1\n%s", run.name, n, out)
		}
		if run.name == "repl" && strings.Count(out, "| FINISHED |") != 1 {
			t.Errorf("SHOW JOBS does not list one finished job:\n%s", out)
		}
	}
}
