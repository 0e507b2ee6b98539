package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestManyFilesFewDescriptors reads a directory of more files than the
// process may open at once: a subtask opens its files one after another,
// so a job over 400 files runs with 64 file descriptors, and its
// windows are exact.
func TestManyFilesFewDescriptors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	const files = 400
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	want := map[int64]int{} // window start (seconds from start): rows
	for i := range files {
		var b strings.Builder
		for j := range 2 {
			s := int64(2*i + j)
			fmt.Fprintf(&b, "%s,%d\n", start.Add(time.Duration(s)*time.Second).Format("2006-01-02 15:04:05"), i)
			want[s/10*10]++
		}
		writeFile(t, filepath.Join(in, fmt.Sprintf("f%05d.csv", i)), b.String())
	}
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(`CREATE TABLE t (ts TIMESTAMP(3), v BIGINT, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');
CREATE TABLE result (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');
INSERT INTO result SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
`, in, filepath.Join(dir, "out")))
	for _, p := range []string{"1", "2"} {
		os.RemoveAll(filepath.Join(dir, "out"))
		os.RemoveAll(filepath.Join(dir, ".strand"))
		cmd := exec.Command("sh", "-c", `ulimit -n 64 && exec "$0" run q.sql --parallelism "$1"`, strandBinary(t), p)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("p%s: %v\n%s", p, err, out)
		}
		got := map[int64]int{}
		outs, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
		for _, f := range outs {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				ws, n, _ := strings.Cut(line, ",")
				ts, err := time.Parse("2006-01-02T15:04:05", ws)
				if err != nil {
					ts, err = time.Parse("2006-01-02 15:04:05", ws)
				}
				c, err2 := strconv.Atoi(n)
				if err != nil || err2 != nil {
					t.Fatalf("p%s: bad result line %q", p, line)
				}
				got[int64(ts.Sub(start)/time.Second)] += c
			}
		}
		if len(got) != len(want) {
			t.Fatalf("p%s: %d windows, want %d", p, len(got), len(want))
		}
		for ws, n := range want {
			if got[ws] != n {
				t.Fatalf("p%s: window at %ds has %d rows, want %d", p, ws, got[ws], n)
			}
		}
	}
}
