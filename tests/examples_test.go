package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// examplesDir copies the example queries and their data into a temporary
// directory laid out like the repository root, where they are meant to
// run, and returns it.
func examplesDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "queries"), os.DirFS("../queries")); err != nil {
		t.Fatal(err)
	}
	return dir
}

var (
	writtenRe     = regexp.MustCompile(`rows written (\d+)`)
	checkpointsRe = regexp.MustCompile(`checkpoints (\d+) \(failed 0\)`)
)

// TestExamples runs every example query under queries/ (the Nexmark ones
// have TestCLISeveralFiles and strand bench) with the real binary: each
// succeeds, and each shows what its comment says.
func TestExamples(t *testing.T) {
	t.Parallel()
	dir := examplesDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "queries", "*.sql"))
	if err != nil || len(files) < 4 {
		t.Fatalf("example queries: %v, %v", files, err)
	}
	out := map[string]string{}
	for _, f := range files {
		name := filepath.Base(f)
		stdout, stderr, code := runStrand(t, dir, "run", filepath.Join("queries", name))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		out[name] = stdout + stderr
	}
	// Top-N: three pages for each of the 11 windows, numbered 1 to 3, and
	// two spenders for each window.
	top := out["top_pages.sql"]
	for _, n := range []string{", 1]", ", 2]", ", 3]"} {
		if c := strings.Count(top, n); c < 11 {
			t.Errorf("top_pages.sql: %d rows ending %q, want at least 11 (3 per window)\n%s", c, n, top)
		}
	}
	if got := writtenRe.FindAllStringSubmatch(top, -1); len(got) != 2 || got[0][1] != "33" || got[1][1] != "22" {
		t.Errorf("top_pages.sql: rows written %v, want 33 and 22\n%s", got, top)
	}
	// HOP: windows 20 s long every 10 s; a join whose user 5 has no name.
	if hop := out["hop_per_user.sql"]; !strings.Contains(hop, "+I[2024-01-01 00:01:30.000, 2024-01-01 00:01:50.000, 5, 2]") {
		t.Errorf("hop_per_user.sql: no 20-second window of user 5\n%s", hop)
	}
	if j := out["join_users.sql"]; !strings.Contains(j, ", 5, null, ") || !strings.Contains(j, ", 3, cyd, ") {
		t.Errorf("join_users.sql: want names joined and user 5 NULL-padded\n%s", j)
	}
	// Exact sums: what adding doubles in the file's order gets wrong.
	if x := out["exact_sums.sql"]; !strings.Contains(x, ", 1, 4, 2.0, 0.5]") || !strings.Contains(x, ", 2, 10, 1.0, 0.1]") {
		t.Errorf("exact_sums.sql: want account 1's sum 2.0 and account 2's 1.0 and average 0.1\n%s", x)
	}
	// A temporal join: user 1's three levels, user 4's ended by a deletion.
	if l := out["user_levels.sql"]; !strings.Contains(l, ", 1, gold, ") || !strings.Contains(l, ", 1, silver, ") ||
		!strings.Contains(l, ", 4, bronze, ") || !strings.Contains(l, ", 4, null, ") || !strings.Contains(l, "rows written 200") {
		t.Errorf("user_levels.sql: want user 1 bronze, silver, gold, user 4's level deleted, 200 rows\n%s", l)
	}
	// Checkpoints: a periodic checkpoint or more besides the final one,
	// and the two windows' 8 rows committed once.
	ck := out["checkpointed.sql"]
	if m := checkpointsRe.FindStringSubmatch(ck); m == nil || atoi(t, m[1]) < 2 {
		t.Errorf("checkpointed.sql: want at least 2 checkpoints\n%s", ck)
	}
	if rows := committed(t, filepath.Join(dir, "out", "checkpointed")); len(rows) != 8 || !strings.Contains(ck, "rows written 8") {
		t.Errorf("checkpointed.sql: %d rows committed, want 8\n%s", len(rows), ck)
	}
	// Partitions: a directory per user, files without the user column,
	// each row naming its source file.
	parts, err := filepath.Glob(filepath.Join(dir, "out", "by_user", "user_id=*"))
	if err != nil || len(parts) != 5 {
		t.Errorf("partitioned.sql: partition directories %v, want 5 (users 1 to 5)", parts)
	}
	n := 0
	for _, p := range parts {
		for _, row := range committed(t, p) {
			if f := strings.Split(row, ","); len(f) != 3 || f[1] != "clicks.csv" {
				t.Errorf("partitioned.sql: row %q in %s, want ws,clicks.csv,count", row, p)
			}
			n++
		}
	}
	if got := writtenRe.FindStringSubmatch(out["partitioned.sql"]); got == nil || got[1] != strconv.Itoa(n) {
		t.Errorf("partitioned.sql: %d rows in the partitions, the summary says %v", n, got)
	}
	// Spilling: the window spills, and writes what it writes with enough
	// memory.
	sp := out["spill.sql"]
	if spills(sp) == 0 {
		t.Errorf("spill.sql spilled nothing:\n%s", sp)
	}
	query, err := os.ReadFile(filepath.Join(dir, "queries", "spill.sql"))
	if err != nil {
		t.Fatal(err)
	}
	roomy := strings.Replace(string(query), "SET 'memory.managed.size' = '16mb';", "", 1)
	writeFile(t, filepath.Join(dir, "roomy.sql"), roomy)
	_, stderr, code := runStrand(t, dir, "run", "roomy.sql")
	if code != 0 || spills(stderr) != 0 {
		t.Fatalf("spill.sql with the default memory: exit %d\n%s", code, stderr)
	}
	if a, b := writtenRe.FindString(sp), writtenRe.FindString(stderr); a == "" || a != b {
		t.Errorf("spill.sql: %q with 16 MB, %q with the default memory", a, b)
	}
}

// atoi is the integer s, which a regular expression matched as digits.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
