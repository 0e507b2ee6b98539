package connector

import (
	"path/filepath"
	"strings"
	"testing"

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
