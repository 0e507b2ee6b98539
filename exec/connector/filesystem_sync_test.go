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
