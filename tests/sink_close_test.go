package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/session"
)

// TestSinkCloseFailureAbortsTheRun: when one filesystem writer's Close
// fails (a directory stands where its first part file is to be renamed
// into place), the job fails naming the sink, and the other subtask's
// writer is aborted, not closed: the failed run makes no part file
// visible and leaves no hidden file behind.
func TestSinkCloseFailureAbortsTheRun(t *testing.T) {
	t.Chdir(t.TempDir())
	const script = `CREATE TABLE src (id BIGINT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '20000', 'rows-per-second' = '10000', 'splits' = '2',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '20000', 'fields.s.length' = '20');
CREATE TABLE o (id BIGINT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv', 'sink.rolling-policy.file-size' = '4KB');
INSERT INTO o SELECT id, s FROM src;
`
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 2
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), script) }()
	// Subtask 0's first part file, finished (rolled over) and hidden
	// until Close renames it: a directory in the way of the rename
	// fails that Close, the first of the run's.
	var blocked string
	for blocked == "" {
		select {
		case err := <-errc:
			t.Fatalf("the job ended before subtask 0 rolled its first file over: %v\n%s", err, log.String())
		case <-time.After(2 * time.Millisecond):
		}
		hidden, _ := filepath.Glob("out/.part-*-0-0.csv.inprogress")
		next, _ := filepath.Glob("out/.part-*-0-1.csv.inprogress")
		if len(hidden) == 1 && len(next) == 1 {
			blocked = filepath.Join("out", strings.TrimSuffix(filepath.Base(hidden[0])[1:], ".inprogress"))
		}
	}
	if err := os.MkdirAll(filepath.Join(blocked, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "sink o") || !strings.Contains(err.Error(), filepath.Base(blocked)) {
		t.Fatalf("the run whose Close failed: %v, want an error naming sink o and the file\n%s", err, log.String())
	}
	entries, err := os.ReadDir("out")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(blocked) {
			t.Errorf("the failed run left %s in its sink directory", e.Name())
		}
	}
}
