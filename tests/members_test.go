package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// membersClicks writes n click records to topic's 8 partitions, each
// partition's in time order at its own pace, keyed by nothing (the
// query's GROUP BY key is not the Kafka key), and returns the source table.
func membersClicks(t *testing.T, addr, topic string, n int) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, n)
	for i := range n {
		p := i % 8
		ms := int64(i/8) * int64(2+p%3)
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(p), Value: fmt.Appendf(nil, `{"ts":"%s","user_id":%d,"amount":%d.5}`,
			time.UnixMilli(1704067200000+ms).UTC().Format("2006-01-02 15:04:05.000"), (i*7919)%50+1, i%10)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
`, topic, addr)
}

// member is one strand process of a query run by two.
type member struct {
	cmd  *exec.Cmd
	errb bytes.Buffer
	done chan error
}

func startMember(t *testing.T, dir string, i int) *member {
	t.Helper()
	m := &member{done: make(chan error, 1)}
	m.cmd = exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "200ms",
		"--members", "2", "--member", fmt.Sprint(i))
	m.cmd.Dir = dir
	m.cmd.Stderr = &m.errb
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.done <- m.cmd.Wait() }()
	return m
}

// TestMembersKafka runs a windowed query over an 8-partition topic as two
// members, each reading half the partitions; its GROUP BY key is not the
// Kafka key, so the rows go through a repartition topic. Member 1 is
// killed with SIGKILL and restarted, several times; the two together
// write exactly what one process writes, as a read_committed consumer
// reads it.
func TestMembersKafka(t *testing.T) {
	t.Parallel()
	const n = 40000
	addr := kafkaBroker(t, 8, "in", "ref", "out")
	clicks := membersClicks(t, addr, "in", n)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), clicks+fmt.Sprintf(crashKafkaQuery, addr, "ref", "ref"))
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	want := readCommitted(t, addr, "ref")
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}

	var dirs [2]string
	for i := range dirs {
		dirs[i] = t.TempDir() // each member its own state directory
		writeFile(t, filepath.Join(dirs[i], "q.sql"), clicks+fmt.Sprintf(crashKafkaQuery, addr, "out", "out"))
	}
	m0 := startMember(t, dirs[0], 0)
	rng := rand.New(rand.NewSource(1))
	var logs []string
	m1 := startMember(t, dirs[1], 1)
	kills := 0
	for range 3 {
		select {
		case err := <-m1.done:
			if err != nil {
				t.Fatalf("member 1 failed: %v\n%s", err, m1.errb.String())
			}
			m1.done <- nil // for the wait below
		case <-time.After(time.Duration(100+rng.Intn(500)) * time.Millisecond):
			// A run takes about 0.6 s on an idle machine: kills within
			// it, after the process's start (about 0.1 s).
			_ = m1.cmd.Process.Signal(syscall.SIGKILL)
			<-m1.done
			kills++
		}
		logs = append(logs, m1.errb.String())
		if m1.cmd.ProcessState.Success() {
			break
		}
		m1 = startMember(t, dirs[1], 1)
	}
	for i, m := range []*member{m0, m1} {
		select {
		case err := <-m.done:
			if err != nil {
				t.Fatalf("member %d failed: %v\n%s\nearlier runs of member 1:\n%q", i, err, m.errb.String(), logs)
			}
		case <-time.After(2 * time.Minute):
			_ = m0.cmd.Process.Kill()
			_ = m1.cmd.Process.Kill()
			t.Fatalf("member %d did not finish:\n%s", i, m.errb.String())
		}
	}
	if kills == 0 {
		t.Errorf("no kill landed")
	}
	got := readCommitted(t, addr, "out")
	t.Logf("%d kills of member 1, %d rows", kills, len(got))
	diffRows(t, got, want)
}
