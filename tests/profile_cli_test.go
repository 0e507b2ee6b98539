package tests

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRunProfiles: strand run --cpuprofile and --memprofile write pprof
// profiles (gzipped protocol buffers with samples) when the run ends.
func TestRunProfiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), `CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100000', 'rows-per-second' = '10000000');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id * 2 FROM g WHERE id % 3 = 0;
`)
	_, stderr, code := runStrand(t, dir, "run", "q.sql", "--cpuprofile", "cpu.out", "--memprofile", "mem.out")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"cpu.out", "mem.out"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s is not a pprof profile: %v", f, err)
		}
		raw, err := io.ReadAll(z)
		if err != nil || len(raw) < 100 {
			t.Errorf("%s: %d bytes, %v", f, len(raw), err)
		}
	}
	// A profile that cannot be written is refused before anything runs.
	_, stderr, code = runStrand(t, dir, "run", "q.sql", "--cpuprofile", filepath.Join(dir, "no", "such", "cpu.out"))
	if code == 0 {
		t.Errorf("unwritable profile: exit 0\n%s", stderr)
	}
}
