package tests

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISetOptions: --set takes the keys SET takes, with the same checks;
// its errors name the flag, and a Flink key strand ignores is warned of on
// stderr; table.exec.state.ttl, SET in the file, is strand's and is not.
func TestCLISetOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt2(clicksDDL, "")+"SET 'table.exec.state.ttl' = '1h';\nSELECT user_id FROM clicks;\n")
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), "2024-01-01 00:00:01,1,/a,1.5\n")
	for _, c := range []struct{ set, want string }{
		{"paralelism.default=2", "strand: --set paralelism.default=2: unknown option 'paralelism.default'; did you mean 'parallelism.default'?\n"},
		{"parallelism.default=zero", "strand: --set parallelism.default=zero: 'parallelism.default' must be a positive integer, got 'zero'\n"},
		{"memory.managed.size=lots", "strand: --set memory.managed.size=lots: 'memory.managed.size' must be a memory size of at least 32kb such as '256mb', got 'lots'\n"},
	} {
		stdout, stderr, code := runStrand(t, dir, "run", "q.sql", "--set", c.set)
		if code != 2 || stderr != c.want || stdout != "" {
			t.Errorf("--set %s: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", c.set, code, stdout, stderr, c.want)
		}
	}
	stdout, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "1", "--set", "table.exec.resource.sort.memory=64mb",
		"--set", "restart-strategy.type=none")
	for _, w := range []string{
		"warning: 'table.exec.resource.sort.memory' is a Flink option that strand does not implement; it has no effect\n",
		"warning: 'restart-strategy.type' is a Flink option that strand does not implement; it has no effect (strand reads 'restart-strategy')\n",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("no %q; stderr:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, "table.exec.state.ttl") {
		t.Errorf("a warning about table.exec.state.ttl, which strand implements:\n%s", stderr)
	}
	if code != 0 || stdout != "op[user_id]\n+I[1]\n" {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
}
