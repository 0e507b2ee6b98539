package connector

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

var partSchema = types.Schema{{Name: "x", Type: types.TBigInt}, {Name: "dt", Type: types.TString}}

func partSink(t *testing.T, dir string) exec.Sink {
	tab := fsTable(dir, "csv")
	tab.Schema, tab.Partitions = partSchema, []string{"dt"}
	return must(NewSink(tab, Env{JobID: "run", Job: "job_1"}))
}

// files lists the files below dir as dir-relative paths, hidden ones
// included.
func files(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestPartitionedTwoPhaseCommit: a partitioned sink pre-commits the files
// of every partition directory at a barrier and commits them into their
// directories; a restore from checkpoint 1 removes what came after it in
// every partition directory, so the output is exactly checkpoint 1's.
func TestPartitionedTwoPhaseCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	sink := partSink(t, dir)
	w := must(sink.Open(partSchema, 0, 1))
	pc := w.(exec.PreCommitter)
	cm := sink.(exec.Committer)

	b1 := makeBatch(t, partSchema, [][]any{{1, "a"}, {2, "b"}, {3, "a"}})
	defer b1.Release()
	if err := w.Write(b1); err != nil {
		t.Fatal(err)
	}
	ck1 := must(pc.PreCommit(1))
	if len(ck1) != 2 {
		t.Fatalf("checkpoint 1 pre-committed %v, want one file per partition", ck1)
	}
	if err := cm.Commit(ck1); err != nil {
		t.Fatal(err)
	}
	want := []string{"dt=a/part-job_1-run-0-0-ck1.csv", "dt=b/part-job_1-run-0-0-ck1.csv"}
	if got := files(t, dir); !slices.Equal(got, want) {
		t.Fatalf("after checkpoint 1: %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, want[0])); string(b) != "1\n3\n" {
		t.Errorf("dt=a holds %q", b)
	}

	b2 := makeBatch(t, partSchema, [][]any{{4, "b"}, {5, "c"}})
	defer b2.Release()
	if err := w.Write(b2); err != nil {
		t.Fatal(err)
	}
	ck2 := must(pc.PreCommit(2))
	if len(ck2) != 2 {
		t.Fatalf("checkpoint 2 pre-committed %v", ck2)
	}
	if err := cm.Commit(ck2[:1]); err != nil { // a crash halfway through committing 2
		t.Fatal(err)
	}
	b3 := makeBatch(t, partSchema, [][]any{{6, "d"}})
	defer b3.Release()
	if err := w.Write(b3); err != nil {
		t.Fatal(err)
	}
	must(pc.PreCommit(3)) // checkpoint 3 never completes
	if got := files(t, dir); len(got) != 5 || !strings.HasPrefix(got[len(got)-1], "dt=d/.part-") {
		t.Fatalf("before the restore: %v", got)
	}

	again := partSink(t, dir)
	if err := again.(exec.Committer).Recover(1, ck1); err != nil {
		t.Fatal(err)
	}
	got := files(t, dir)
	if !slices.Equal(got, want) {
		t.Fatalf("after restoring checkpoint 1: %v, want %v", got, want)
	}
}

// TestPartitionNames: keys and values are escaped as Flink escapes path
// names and read back unescaped; timestamps are named as Java's
// LocalDateTime and Instant print them.
func TestPartitionNames(t *testing.T) {
	esc := string(escapePart(nil, []byte("a/b:c=d%e\x01 é{x}^?#*'\"\\[]\x7f")))
	if want := `a%2Fb%3Ac%3Dd%25e%01 é%7Bx}%5E%3F%23%2A%27%22%5C%5B%5D%7F`; esc != want {
		t.Errorf("escaped %q, want %q", esc, want)
	}
	if back := unescapePart(esc); back != "a/b:c=d%e\x01 é{x}^?#*'\"\\[]\x7f" {
		t.Errorf("unescaped %q", back)
	}
	if got := unescapePart("100%_%4"); got != "100%_%4" {
		t.Errorf("a lone %% changed: %q", got)
	}
	s := types.Schema{{Name: "ts", Type: types.TTimestamp}, {Name: "tz", Type: types.TTimestampLTZ}}
	b := makeBatch(t, s, [][]any{
		{"2024-01-01 10:00:00", "2024-01-01 10:00:00"},
		{"2024-01-01 10:00:05", "2024-01-01 10:00:05"},
		{"2024-01-01 10:00:00.120", "2024-01-01 10:00:00.120"},
	})
	defer b.Release()
	want := [][2]string{
		{"2024-01-01T10:00", "2024-01-01T10:00:00Z"},
		{"2024-01-01T10:00:05", "2024-01-01T10:00:05Z"},
		{"2024-01-01T10:00:00.120", "2024-01-01T10:00:00.120Z"},
	}
	for i, w := range want {
		if got := string(partText(nil, b.Column(0), i)); got != w[0] {
			t.Errorf("TIMESTAMP %d: %s, want %s", i, got, w[0])
		}
		if got := string(partText(nil, b.Column(1), i)); got != w[1] {
			t.Errorf("TIMESTAMP_LTZ %d: %s, want %s", i, got, w[1])
		}
	}
}
