package tests

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer that a running command writes while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// killAfterCheckpoint runs the binary in dir until it has completed a
// checkpoint, then kills it with SIGKILL.
func killAfterCheckpoint(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd, errb, done := background(t, dir, args...)
	deadline := time.After(time.Minute)
	for !strings.Contains(errb.String(), "checkpoint 2 completed") {
		select {
		case err := <-done:
			t.Fatalf("run ended before its second checkpoint: %v\n%s", err, errb.String())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("no checkpoint completed:\n%s", errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	return errb.String()
}

var uidRE = regexp.MustCompile(`uid=((?:window|topn)-[0-9a-f]{16})`)

// uids returns the operator uids EXPLAIN shows for the query file in dir.
func uids(t *testing.T, dir, file string) []string {
	t.Helper()
	out, errs, code := runStrand(t, dir, "explain", file, "--parallelism", "2")
	if code != 0 {
		t.Fatalf("explain %s: exit %d\n%s", file, code, errs)
	}
	var ids []string
	for _, m := range uidRE.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestRestoreRefusesChangedOperator is the bug of a restore that silently
// dropped a window's state after the query changed: a job is killed after a
// checkpoint, its query is edited so that the window aggregate computes
// something else, and the restart must refuse, naming the operator whose
// state it cannot map, unless --allow-non-restored-state is given, in which
// case the window starts empty and the run says so.
func TestRestoreRefusesChangedOperator(t *testing.T) {
	t.Parallel()
	base := `SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;`
	cases := []struct{ name, query string }{
		{"window size", strings.Replace(base, "'1' SECOND", "'2' SECOND", 1)},
		{"group by key", strings.NewReplacer("user_id,", "CAST(amount AS BIGINT),", ", user_id;", ", CAST(amount AS BIGINT);").Replace(base)},
		{"aggregate list", strings.Replace(base, "MAX(amount)", "MIN(amount)", 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir+"/q.sql", fmt.Sprintf(crashClicks, 8000, 4000)+crashSink+base)
			old := uids(t, dir, "q.sql")
			if len(old) != 1 {
				t.Fatalf("want one stateful operator, EXPLAIN shows %v", old)
			}
			args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "100ms"}
			killAfterCheckpoint(t, dir, args...)

			writeFile(t, dir+"/q.sql", fmt.Sprintf(crashClicks, 8000, 4000)+crashSink+c.query)
			if now := uids(t, dir, "q.sql"); len(now) != 1 || now[0] == old[0] {
				t.Fatalf("the changed query's uids %v should differ from %v", now, old)
			}
			_, errs, code := runStrand(t, dir, args...)
			if code == 0 || !strings.Contains(errs, "state cannot be mapped") || !strings.Contains(errs, old[0]) ||
				!strings.Contains(errs, "--allow-non-restored-state") {
				t.Fatalf("restore of a changed query: exit %d, want a refusal naming %s:\n%s", code, old[0], errs)
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "job ") && strings.Contains(errs, " finished") {
				t.Fatalf("the refused run started or panicked:\n%s", errs)
			}

			_, errs, code = runStrand(t, dir, append(args, "--allow-non-restored-state")...)
			if code != 0 {
				t.Fatalf("with --allow-non-restored-state: exit %d\n%s", code, errs)
			}
			for _, want := range []string{"resuming from checkpoint", "not restoring " + old[0], "starts empty"} {
				if !strings.Contains(errs, want) {
					t.Fatalf("with --allow-non-restored-state, stderr lacks %q:\n%s", want, errs)
				}
			}
		})
	}
}

// crashSink is crashQuery's sink.
const crashSink = `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
`
