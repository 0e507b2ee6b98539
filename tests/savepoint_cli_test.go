package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLIShowJobsAndBadSavepoint runs SHOW JOBS from a file after its
// INSERT, and a restore from a damaged savepoint, through the binary: the
// job is listed as finished, and the damaged savepoint is refused naming
// the file, with a non-zero exit and no job started.
func TestCLIShowJobsAndBadSavepoint(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data/clicks.csv"), "2024-01-01 00:00:01,1,/a,1.5\n2024-01-01 00:00:02,2,/b,2.5\n")
	q := strings.Replace(clicksDDL, "%s", "", 1) + `
CREATE TABLE out_t (user_id BIGINT, c BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_t SELECT user_id, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, user_id;
SHOW JOBS;
`
	writeFile(t, filepath.Join(dir, "q.sql"), q)
	out, errs, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "1")
	if code != 0 || !regexp.MustCompile(`\| [0-9a-f]{16} \| q_1 +\| FINISHED \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| 2 +\| 2 +\|`).MatchString(out) {
		t.Fatalf("SHOW JOBS after the INSERT: exit %d\n%s%s", code, out, errs)
	}

	sp := filepath.Join(dir, "sp")
	if err := os.CopyFS(sp, os.DirFS("testdata/savepoints/v1/savepoint")); err != nil {
		t.Fatal(err)
	}
	var state string
	entries, _ := os.ReadDir(sp)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".state") {
			state = e.Name()
		}
	}
	if err := flipByte(filepath.Join(sp, state)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "v1.sql"), v1Query)
	_, errs, code = runStrand(t, dir, "run", "v1.sql", "--checkpoint-interval", "1s", "--from-savepoint", sp)
	if code == 0 || !strings.Contains(errs, "invalid savepoint") || !strings.Contains(errs, state) || strings.Contains(errs, "started") ||
		strings.Contains(errs, "goroutine") {
		t.Fatalf("restore from a damaged savepoint: exit %d, want a refusal naming %s\n%s", code, state, errs)
	}
}
