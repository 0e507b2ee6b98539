package connector

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec"
)

// TestSinkInputEnded: at the end of its input a writer rolls its last
// file over (synced in the background), still hidden; Close makes it
// visible with every row, and rows written after the end (none in a run,
// but the writer must not lose them) go to a file of their own.
func TestSinkInputEnded(t *testing.T) {
	dir := t.TempDir()
	tab := fsTable(dir, "csv")
	tab.Schema = clicks
	w := must(must(NewSink(tab, Env{JobID: "e"})).Open(clicks, 0, 1))
	ender, ok := w.(exec.EndAware)
	if !ok {
		t.Fatalf("%T is not an exec.EndAware", w)
	}
	b := makeBatch(t, clicks, [][]any{{"2024-01-01 00:00:00", 1, "/a", 1.5}, {"2024-01-01 00:00:01", 2, "/b", 2.5}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Fatalf("before the end of the input: %q, want the rows still buffered", got)
	}
	if err := ender.InputEnded(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{".part-e-0-0.csv.inprogress"}) {
		t.Fatalf("after the end of the input: %q, want the hidden file", got)
	}
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"part-e-0-0.csv", "part-e-0-1.csv"}) {
		t.Fatalf("after close: %q", got)
	}
	for _, name := range []string{"part-e-0-0.csv", "part-e-0-1.csv"} {
		data := string(must(os.ReadFile(filepath.Join(dir, name))))
		if strings.Count(data, "\n") != 2 || !strings.HasPrefix(data, "2024-01-01 00:00:00.000,1,/a,1.5\n") {
			t.Fatalf("%s: %q", name, data)
		}
	}
}

// failSync starts, among w's background syncs, one that fails, as the
// fsync of a rolled-over file does when the disk reports an error: the
// write end of a pipe, which cannot be synced.
func failSync(t *testing.T, w *fileWriter) {
	t.Helper()
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w.syncs.start(pw)
	if w.syncs.wait() == nil {
		t.Fatal("syncing a pipe succeeded; the test needs a sync that fails")
	}
}

// TestSinkSyncFailureAtInputEnd: a rolled-over file whose background sync
// failed fails the subtask at the end of its input, before Close makes
// any subtask's files visible; found only by Close, it would fail the
// job after the writers closed before this one had published theirs.
func TestSinkSyncFailureAtInputEnd(t *testing.T) {
	dir := t.TempDir()
	tab := fsTable(dir, "csv")
	tab.Schema = clicks
	w := must(must(NewSink(tab, Env{JobID: "e"})).Open(clicks, 0, 1))
	b := makeBatch(t, clicks, [][]any{{"2024-01-01 00:00:00", 1, "/a", 1.5}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	failSync(t, w.(*fileWriter))
	if err := w.(exec.EndAware).InputEnded(); err == nil {
		t.Fatal("InputEnded after a failed sync: no error")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Fatalf("after abort: %q", got)
	}
}

// TestSinkSyncFailureAtRoll: a job without checkpoints that keeps running
// learns of a failed sync at its next rollover, not only at its end.
func TestSinkSyncFailureAtRoll(t *testing.T) {
	dir := t.TempDir()
	tab := fsTable(dir, "csv", "sink.rolling-policy.file-size", "1kb")
	tab.Schema = clicks
	w := must(must(NewSink(tab, Env{JobID: "e"})).Open(clicks, 0, 1))
	failSync(t, w.(*fileWriter))
	b := makeBatch(t, clicks, [][]any{{"2024-01-01 00:00:00", 1, "/a", 1.5}})
	defer b.Release()
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = w.Write(b)
	}
	if err == nil {
		t.Fatal("100 rows over a 1 kB rolling size after a failed sync: no error")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionedSyncFailureAtInputEnd: a partitioned writer is an
// exec.EndAware too, and a failed sync in any of its directories fails
// the end of its input.
func TestPartitionedSyncFailureAtInputEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	w := must(partSink(t, dir).Open(partSchema, 0, 1))
	b := makeBatch(t, partSchema, [][]any{{1, "a"}, {2, "b"}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	ender, ok := w.(exec.EndAware)
	if !ok {
		t.Fatalf("%T is not an exec.EndAware", w)
	}
	failSync(t, w.(*partitionWriter).order[1])
	if err := ender.InputEnded(); err == nil {
		t.Fatal("InputEnded after a failed sync: no error")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 0 {
		t.Fatalf("after abort: %q", got)
	}
}
