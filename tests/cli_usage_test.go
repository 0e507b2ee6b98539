package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIHelp: strand --help and every subcommand's --help exit 0 and show
// that command's flags, not another's.
func TestCLIHelp(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--help"}, []string{"Usage: strand <command>", "run ", "check-savepoint", "bench", "version"}, []string{"--checkpoint-interval", "--drain"}},
		{[]string{"help"}, []string{"Usage: strand <command>"}, nil},
		{[]string{"repl", "--help"}, []string{"Usage: strand repl", "--init", "--history-file", "--parallelism"}, []string{"--checkpoint-interval", "--http="}},
		{[]string{"run", "--help"}, []string{"Usage: strand run <file> ...", "--checkpoint-interval", "--from-savepoint", "--http=", "--cpuprofile", "--memprofile", "(default: .strand)"}, []string{"--drain", "--baseline", "--history-file"}},
		{[]string{"explain", "--help"}, []string{"Usage: strand explain <file> ...", "--parallelism", "--set"}, []string{"--checkpoint-interval", "--http="}},
		{[]string{"jobs", "--help"}, []string{"Usage: strand jobs", "--http="}, []string{"--drain", "--parallelism"}},
		{[]string{"savepoint", "--help"}, []string{"Usage: strand savepoint <jobid>", "--dir=", "--http="}, []string{"--drain"}},
		{[]string{"stop", "--help"}, []string{"Usage: strand stop <jobid>", "--savepoint=", "--drain"}, []string{"--dir=", "--parallelism"}},
		{[]string{"check-savepoint", "--help"}, []string{"Usage: strand check-savepoint <savepoint> <file> ...", "--allow-non-restored-state", "--set"}, []string{"--http=", "--parallelism"}},
		{[]string{"bench", "--help"}, []string{"Usage: strand bench <command>", "nexmark"}, []string{"--baseline"}},
		{[]string{"bench", "nexmark", "--help"}, []string{"Usage: strand bench nexmark", "--baseline", "--format", "--cpuprofile"}, []string{"--http=", "--from-savepoint"}},
		{[]string{"version", "--help"}, []string{"Usage: strand version"}, []string{"--parallelism"}},
	}
	for _, c := range cases {
		stdout, stderr, code := runStrand(t, dir, c.args...)
		if code != 0 || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%v: help lacks %q:\n%s", c.args, w, stdout)
			}
		}
		for _, n := range c.not {
			if strings.Contains(stdout, n) {
				t.Errorf("%v: help shows another command's %q:\n%s", c.args, n, stdout)
			}
		}
	}
}

// TestCLIUsageErrors: a mistyped command or flag exits 2 naming the
// closest one, and a duration without a unit is refused instead of meaning
// milliseconds.
func TestCLIUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rn", "q.sql"}, `unknown command "rn", did you mean "run"?`},
		{[]string{"explian", "q.sql"}, `did you mean "explain"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "q.sql", "--paralelism", "2"}, `unknown flag --paralelism, did you mean "--parallelism"?`},
		{[]string{"stop", "abcd", "--dran"}, `did you mean "--drain"?`},
		{[]string{"run", "q.sql", "--checkpoint-interval", "2"}, `--checkpoint-interval: "2" has no unit`},
		{[]string{"run", "q.sql", "--checkpoint-interval", "soon"}, `"soon" is not a positive duration`},
		{[]string{"bench", "nexmark", "--checkpoint-interval", "10"}, `"10" has no unit`},
		{[]string{"run"}, `expected "<file> ..."`},
	}
	for _, c := range cases {
		stdout, stderr, code := runStrand(t, dir, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr lacks %q:\n%s", c.args, code, stdout, c.want, stderr)
		}
	}
	// A duration with a unit is taken, Flink's spelling too.
	for _, iv := range []string{"2s", "1 min", "500ms"} {
		if _, stderr, code := runStrand(t, dir, "run", "q.sql", "--checkpoint-interval", iv); code != 0 {
			t.Errorf("--checkpoint-interval %q: exit %d\n%s", iv, code, stderr)
		}
	}
}

// TestCLIDefaultCommand: strand with no command is the REPL, its flags
// included; from a pipe it runs the statements.
func TestCLIDefaultCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"--parallelism", "2"}} {
		cmd := exec.Command(strandBinary(t), args...)
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader("CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nSHOW TABLES;\n")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "t") {
			t.Errorf("strand %v: %v\n%s", args, err, out)
		}
	}
}

// TestCLIVersion: strand version names the build; -ldflags -X main.version
// overrides the module's version.
func TestCLIVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, _, code := runStrand(t, dir, "version")
	if code != 0 || !strings.HasPrefix(stdout, "strand ") || !strings.Contains(stdout, "module github.com/strandsql/strand, go") {
		t.Errorf("version: exit %d\n%s", code, stdout)
	}
	if alias, _, _ := runStrand(t, dir, "--version"); alias != stdout {
		t.Errorf("--version prints %q, version %q", alias, stdout)
	}
	bin := filepath.Join(dir, "strand")
	if out, err := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", bin, "../cmd/strand").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "strand v9.8.7\n") {
		t.Errorf("with -ldflags: %v %q", err, out)
	}
}
