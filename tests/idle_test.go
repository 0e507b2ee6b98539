package tests

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestIdleTimeout reads a 2-partition topic whose partition 1 stops
// getting records after its first second of event time, while partition
// 0 goes on getting them as the test runs: without table.exec.source.idle-timeout partition 1 holds the
// watermark back and no window fires; with it, partition 1 is idle after
// the timeout and partition 0's windows fire, at parallelism 1 (one
// subtask reading both partitions) and 2 (the idle subtask tells the
// window's subtasks so). At parallelism 2 also with the source in a
// watermark alignment group with a drift of 1 s: the subtask reading
// partition 0 waits for the other once about 1 s ahead, until, that one
// idle, it holds it back no more, and partition 0's windows fire as
// without alignment.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 2, "in")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rec := func(p, ms int) *kgo.Record {
		return &kgo.Record{Topic: "in", Partition: int32(p), Value: fmt.Appendf(nil, `{"ts":"%s","k":%d}`,
			time.UnixMilli(1704067200000+int64(ms)).UTC().Format("2006-01-02 15:04:05.000"), p)}
	}
	var recs []*kgo.Record
	for ms := 0; ms < 1000; ms += 100 {
		recs = append(recs, rec(0, ms), rec(1, ms))
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Partition 0 gets a record of 100 ms of event time every 20 ms.
	ctx, cancel := context.WithCancel(context.Background())
	produced := make(chan struct{})
	defer func() { cancel(); <-produced }()
	go func() {
		defer close(produced)
		for ms := 1000; ctx.Err() == nil; ms += 100 {
			if err := cl.ProduceSync(ctx, rec(0, ms)).FirstErr(); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	const aligned = `,
  'scan.watermark.alignment.group' = 'in', 'scan.watermark.alignment.max-drift' = '1 s'`
	query := func(timeout, with string) string {
		set := ""
		if timeout != "" {
			set = fmt.Sprintf("SET 'table.exec.source.idle-timeout' = '%s';\n", timeout)
		}
		return set + fmt.Sprintf(`
CREATE TABLE in_t (ts TIMESTAMP(3), k BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json'%s);
CREATE TABLE out_t (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_t
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE in_t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
`, addr, with)
	}
	// run runs the unbounded query until want shows on stdout or wait
	// has passed, and returns stdout.
	run := func(t *testing.T, q, p, want string, wait time.Duration) string {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "q.sql"), q)
		cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", p)
		cmd.Dir = dir
		var out, errb syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(wait); time.Now().Before(deadline) && !strings.Contains(out.String(), want); {
			time.Sleep(50 * time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
		t.Logf("stderr: %s", errb.String())
		return out.String()
	}
	for _, p := range []string{"1", "2"} {
		t.Run("p"+p, func(t *testing.T) {
			// The window [00:00:08, 00:00:09) of partition 0's ten rows
			// fires once partition 0's watermark alone counts.
			const fired = "2024-01-01 00:00:08.000, 10]"
			if out := run(t, query("", ""), p, fired, 3*time.Second); strings.Contains(out, "2024-01-01") {
				t.Errorf("without an idle timeout a window fired:\n%s", out)
			}
			if out := run(t, query("300 ms", ""), p, fired, 30*time.Second); !strings.Contains(out, fired) {
				t.Errorf("with an idle timeout, no window [00:00:08, 00:00:09) of 10 rows fired:\n%s", out)
			}
			if p == "1" {
				return
			}
			if out := run(t, query("300 ms", aligned), p, fired, 30*time.Second); !strings.Contains(out, fired) {
				t.Errorf("aligned, with an idle timeout, no window [00:00:08, 00:00:09) of 10 rows fired:\n%s", out)
			}
		})
	}
}
