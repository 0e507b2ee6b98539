package connector

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
)

// TestAbandonedCheckpointKeepsFiles: files pre-committed to a checkpoint
// that never completes are handed over again at the next barrier and
// committed with it; once committed they are not handed over again.
func TestAbandonedCheckpointKeepsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	schema := types.Schema{{Name: "x", Type: types.TBigInt}}
	sink := must(NewSink(fsTable(dir, "csv"), Env{JobID: "run", Job: "job_1"}))
	w := must(sink.Open(schema, 0, 1))
	pc := w.(exec.PreCommitter)
	cm := sink.(exec.Committer)

	b1 := makeBatch(t, schema, [][]any{{1}})
	defer b1.Release()
	if err := w.Write(b1); err != nil {
		t.Fatal(err)
	}
	first := must(pc.PreCommit(1)) // checkpoint 1 is then abandoned
	if len(first) != 1 {
		t.Fatalf("checkpoint 1 pre-committed %d files", len(first))
	}
	b2 := makeBatch(t, schema, [][]any{{2}})
	defer b2.Release()
	if err := w.Write(b2); err != nil {
		t.Fatal(err)
	}
	second := must(pc.PreCommit(2))
	if len(second) != 2 || second[0] != first[0] {
		t.Fatalf("checkpoint 2 pre-committed %v, want checkpoint 1's file and a new one", second)
	}
	if err := cm.Commit(second); err != nil {
		t.Fatal(err)
	}
	if third := must(pc.PreCommit(3)); len(third) != 0 {
		t.Errorf("committed files handed over again: %v", third)
	}
	if n := len(sink.(*fileSink).committed); n != 0 {
		t.Errorf("the sink still remembers %d committed files its writer has dropped", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, name := range listDir(t, dir) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("hidden file %s left", name)
		}
		rows = append(rows, name)
	}
	if len(rows) != 2 {
		t.Errorf("visible files %v, want 2", rows)
	}
}

// TestPreCommitRecordsContent: a pending file carries the size and CRC32C
// of what is on disk at the barrier.
func TestPreCommitRecordsContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	schema := types.Schema{{Name: "x", Type: types.TBigInt}}
	sink := must(NewSink(fsTable(dir, "csv"), Env{JobID: "run", Job: "job_1"}))
	w := must(sink.Open(schema, 0, 1))
	b := makeBatch(t, schema, [][]any{{1}, {22}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	p := must(w.(exec.PreCommitter).PreCommit(1))
	body := must(os.ReadFile(p[0].Tmp))
	if string(body) != "1\n22\n" || p[0].Size != 5 || p[0].CRC32C != crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)) {
		t.Errorf("pending %+v for %q", p[0], body)
	}
	_ = w.Abort()
}

// TestCleanLineage: Clean removes one lineage's hidden files, and with
// committed its visible ones, and leaves other lineages' and other jobs'
// files alone.
func TestCleanLineage(t *testing.T) {
	dir := t.TempDir()
	sink := must(NewSink(fsTable(dir, "csv"), Env{JobID: "run", Job: "q_1_aaaa"}))
	files := []string{
		".part-q_1_aaaa-r1-0-0.csv.inprogress", "part-q_1_aaaa-r1-0-1-ck3.csv",
		".part-q_1_bbbb-r2-0-0.csv.inprogress", "part-q_1_bbbb-r2-0-1-ck4.csv", "part-r3-0-0.csv", "notes.txt",
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cm := sink.(exec.Committer)
	if err := cm.Clean("q_1_aaaa", false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, dir), " "); got != ".part-q_1_bbbb-r2-0-0.csv.inprogress notes.txt part-q_1_aaaa-r1-0-1-ck3.csv part-q_1_bbbb-r2-0-1-ck4.csv part-r3-0-0.csv" {
		t.Errorf("after Clean(hidden): %s", got)
	}
	if err := cm.Clean("q_1_bbbb", true); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(listDir(t, dir), " "); got != "notes.txt part-q_1_aaaa-r1-0-1-ck3.csv part-r3-0-0.csv" {
		t.Errorf("after Clean(committed): %s", got)
	}
}

// TestSinkDirectoryLocked: while one job holds a sink directory, another
// is refused, naming the holder's pid and the lock file; once released it
// is free again. Taking it removes what killed runs without checkpoints
// left.
func TestSinkDirectoryLocked(t *testing.T) {
	dir := t.TempDir()
	a := must(NewSink(fsTable(dir, "csv"), Env{JobID: "a"})).(exec.Holder)
	b := must(NewSink(fsTable(dir, "csv"), Env{JobID: "b"})).(exec.Holder)
	// Left by a killed run without checkpoints, and by a checkpointing
	// job's run, whose next run commits or removes it.
	stale, owned := ".part-0123456789abcdef-0-3.csv.inprogress", ".part-q_1_aaaa-0123456789abcdef-0-3.csv.inprogress"
	for _, f := range []string{stale, owned} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	release := must(a.Hold())
	if got := strings.Join(listDir(t, dir), " "); got != owned+" "+lockName {
		t.Errorf("after Hold: %s, want the stale hidden file gone", got)
	}
	if err := os.Remove(filepath.Join(dir, owned)); err != nil {
		t.Fatal(err)
	}
	_, err := b.Hold()
	want := fmt.Sprintf("%s is held by process %d", filepath.Join(dir, lockName), os.Getpid())
	if !errors.Is(err, checkpoint.ErrLocked) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second Hold = %v, want %q", err, want)
	}
	release()
	release2, err := b.Hold()
	if err != nil {
		t.Fatalf("Hold after release: %v", err)
	}
	release2()
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("left %v", names)
	}
}
