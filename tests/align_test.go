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

// TestAlignIdlePartition reads a 2-partition topic at parallelism 2, its
// source in a watermark alignment group with a drift of 1 s: partition 1
// has records for the first second of event time only, while partition 0
// goes on getting them as the test runs (as in TestIdleTimeout). The
// subtask reading partition 0 waits for the other once about 1 s ahead,
// until, its partition idle (table.exec.source.idle-timeout), that one
// holds it back no more; then partition 0's windows fire, as without
// alignment.
func TestAlignIdlePartition(t *testing.T) {
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
	const query = `SET 'table.exec.source.idle-timeout' = '300 ms';
CREATE TABLE in_t (ts TIMESTAMP(3), k BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'format' = 'json',
  'scan.watermark.alignment.group' = 'in', 'scan.watermark.alignment.max-drift' = '1 s');
CREATE TABLE out_t (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_t
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE in_t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
`
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(query, addr))
	cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "2")
	cmd.Dir = dir
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the job runs, partition 0 gets a record of 100 ms of event
	// time every 20 ms, so that it is read a few records at a time, each
	// batch checked.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !strings.Contains(errb.String(), "started"); {
		time.Sleep(10 * time.Millisecond)
	}
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
	// The window [00:00:08, 00:00:09) of partition 0's ten rows fires
	// once partition 1 is idle and partition 0 read on.
	const fired = "2024-01-01 00:00:08.000, 10]"
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !strings.Contains(out.String(), fired); {
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	if !strings.Contains(out.String(), fired) {
		t.Errorf("no window [00:00:08, 00:00:09) of 10 rows fired:\n%s\nstderr: %s", out.String(), errb.String())
	}
}
