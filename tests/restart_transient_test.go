package tests

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/session"
)

// TestRestartTransientSinkFailure: a failure that clears, the sink's
// lock file being a directory at first and gone when the job restarts, is
// retried by the restart strategy (where a refused restore is not,
// TestFloatSumLaterFormatRefused), and the restarted job writes every row.
func TestRestartTransientSinkFailure(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("out/.strand.lock", 0o755); err != nil {
		t.Fatal(err)
	}
	const script = `CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO o SELECT id FROM src;
`
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 2
	s.Durable = session.Durability{StateDir: ".strand", Name: "q"}
	s.Config[session.KeyCheckpointInterval] = "1s"
	s.Config[session.KeyRestartDelay] = "300ms"
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), script) }()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(log.String(), "restarting in"); {
		select {
		case err := <-errc:
			t.Fatalf("the job ended without a restart: %v\n%s", err, log.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restart within a minute:\n%s", log.String())
		}
	}
	if err := os.Remove("out/.strand.lock"); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("the restarted job: %v\n%s", err, log.String())
	}
	rows := len(committed(t, "out"))
	if rows != 1000 {
		t.Fatalf("%d rows written, want 1000\n%s", rows, log.String())
	}
}
