package tests

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// runOnFile writes input to the file path (relative to the current
// directory, which the caller made a temporary one), runs script in
// process at parallelism p with the session options config, and returns
// the sorted lines the script's sink wrote under out/, removing them for
// the next run, and the session, for its metrics of the run.
func runOnFile(t *testing.T, path, input, script string, p int, config map[string]string) (string, *session.Session) {
	t.Helper()
	writeFile(t, path, input)
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = p
	for k, v := range config {
		sess.Config[k] = v
	}
	if err := sess.ExecScript(context.Background(), script); err != nil {
		t.Fatal(planner.FormatError("query", script, err))
	}
	out := readOutput(t, "out", false)
	if err := os.RemoveAll("out"); err != nil {
		t.Fatal(err)
	}
	return out, sess
}
