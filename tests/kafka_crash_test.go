package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaBroker starts a Kafka-protocol cluster in the test process, on
// 127.0.0.1: it outlives the strand binaries the tests kill.
func kafkaBroker(t *testing.T, partitions int32, topics ...string) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

// crashKafkaQuery is crashQuery's aggregate into a kafka topic with
// exactly-once delivery: %s are the broker, the topic and the
// transactional-id prefix.
const crashKafkaQuery = `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'kafka', 'properties.bootstrap.servers' = '%s', 'topic' = '%s', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%s');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

// readCommitted returns the sorted values a read_committed consumer reads
// from topic, from its start to its last stable offset.
func readCommitted(t *testing.T, addr, topic string) []string {
	t.Helper()
	var rows []string
	eachCommitted(t, addr, topic, func(r *kgo.Record) { rows = append(rows, string(r.Value)) })
	sort.Strings(rows)
	return rows
}

// eachCommitted calls fn for each record but control records that a
// read_committed consumer reads from topic, from its start to its last
// stable offset, in each partition's order.
func eachCommitted(t *testing.T, addr, topic string, fn func(*kgo.Record)) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	for deadline := time.Now().Add(30 * time.Second); len(left) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("reading %s: partitions %v not read to their end", topic, left)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		fs.EachRecord(func(r *kgo.Record) {
			if !r.Attrs.IsControl() {
				fn(r)
			}
			if end, ok := left[r.Partition]; ok && r.Offset+1 >= end {
				delete(left, r.Partition)
			}
		})
	}
}

// TestKafkaSourceSQL reads a 4-partition topic through SQL (metadata
// columns, a watermark per partition, a bounded read) into files: the
// result is the same at parallelism 1 and 4, every record counted once.
func TestKafkaSourceSQL(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 4, "bids")
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 4000 {
		// Each partition's records are in time order; partitions advance
		// at different speeds, so lateness depends on per-split watermarks.
		p := i % 4
		ms := int64(i/4) * int64(10+p*3)
		recs = append(recs, &kgo.Record{Topic: "bids", Partition: int32(p),
			Value: fmt.Appendf(nil, `{"auction":%d,"price":%d,"ts":"%s"}`, i%7, i, time.UnixMilli(1704067200000+ms).UTC().Format("2006-01-02 15:04:05.000"))})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	query := fmt.Sprintf(`
CREATE TABLE bids (
  auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  `+"`partition`"+` INT METADATA VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'kafka', 'topic' = 'bids', 'properties.bootstrap.servers' = '%s',
  'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE out_t (ws TIMESTAMP(3), auction BIGINT, n BIGINT, parts BIGINT, maxoff BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_t
SELECT window_start, auction, COUNT(*), COUNT(DISTINCT `+"`partition`"+`), MAX(off)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end, auction;
`, addr)
	var outs [][]string
	for _, p := range []string{"1", "4"} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "q.sql"), query)
		if _, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", p); code != 0 {
			t.Fatalf("parallelism %s: %s", p, stderr)
		}
		outs = append(outs, committed(t, filepath.Join(dir, "out")))
	}
	total := 0
	for _, r := range outs[0] {
		var n int
		fmt.Sscan(strings.Split(r, ",")[2], &n)
		total += n
	}
	if total != 4000 {
		t.Errorf("windows count %d records, want 4000", total)
	}
	diffRows(t, outs[1], outs[0])
}

// kafkaClicks writes n click records to topic's 4 partitions, each
// partition's in time order but at its own pace, and returns the source
// table reading them.
func kafkaClicks(t *testing.T, addr, topic string, n int) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, n)
	for i := range n {
		p := i % 4
		ms := int64(i/4) * int64(2+p)
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

// TestKafkaToKafkaCrash is the crash test of a windowed query from a
// 4-partition topic into a topic with exactly-once delivery: kill -9 at
// random moments, restart, and a read_committed consumer reads exactly the
// rows of an uninterrupted run. 300,000 records: the kills land within
// half the reference run's time, however long it is, and the broker, in
// this process, runs under the race detector.
func TestKafkaToKafkaCrash(t *testing.T) {
	t.Parallel()
	kills, n := 10, 300000
	if os.Getenv("STRAND_SOAK") != "" {
		kills, n = 40, 2000000
	}
	addr := kafkaBroker(t, 4, "in", "ref", "out1", "out4")
	clicks := kafkaClicks(t, addr, "in", n)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), clicks+fmt.Sprintf(crashKafkaQuery, addr, "ref", "ref"))
	strandBinary(t) // built before the clock starts
	start := time.Now()
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	// Kills land within half the time an uninterrupted run takes on this
	// machine now, however loaded it is: a run at another parallelism
	// can be faster than the reference's.
	maxWait := max(100*time.Millisecond, time.Since(start)/2)
	want := readCommitted(t, addr, "ref")
	if len(want) < 100 {
		t.Fatalf("reference run wrote only %d rows", len(want))
	}
	for _, p := range []int{1, 4} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			topic := fmt.Sprintf("out%d", p)
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "q.sql"), clicks+fmt.Sprintf(crashKafkaQuery, addr, topic, topic))
			landed, _ := crashRunWait(t, dir, p, p, kills, maxWait, rand.New(rand.NewSource(int64(p))))
			got := readCommitted(t, addr, topic)
			t.Logf("parallelism %d: %d kills, %d rows", p, landed, len(got))
			if landed == 0 {
				t.Errorf("no kill landed: the run is too short to test recovery")
			}
			diffRows(t, got, want)
		})
	}
}

// TestKafkaBench measures a windowed aggregate from Kafka to Kafka with
// exactly-once delivery against the same query from a JSON file to files
// (exactly-once too), alternating, three runs each: events per CPU-second
// of the strand process, and the broker's CPU (this test process, which
// hosts it) separately. It runs with STRAND_BENCH=1; the figures are in
// docs/performance.md.
func TestKafkaBench(t *testing.T) {
	if os.Getenv("STRAND_BENCH") == "" {
		t.Skip("set STRAND_BENCH=1")
	}
	const n = 1000000
	addr := kafkaBroker(t, 4, "in", "o0", "o1", "o2")
	clicks := kafkaClicks(t, addr, "in", n)
	// The file holds the same records, partition by partition.
	data := t.TempDir()
	var b strings.Builder
	for p := range 4 {
		for i := p; i < n; i += 4 {
			ms := int64(i/4) * int64(2+p)
			fmt.Fprintf(&b, `{"ts":"%s","user_id":%d,"amount":%d.5}`+"\n", time.UnixMilli(1704067200000+ms).UTC().Format("2006-01-02 15:04:05.000"), (i*7919)%50+1, i%10)
		}
		writeFile(t, filepath.Join(data, fmt.Sprintf("p%d.json", p)), b.String())
		b.Reset()
	}
	fileQuery := fmt.Sprintf(`
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, mx DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), MAX(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`, data)
	run := func(query string) (strandCPU, brokerCPU, wall time.Duration) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "q.sql"), query)
		cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "1s")
		cmd.Dir = dir
		var before, after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		wall = time.Since(start)
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := func(r syscall.Rusage) time.Duration {
			return time.Duration(r.Utime.Nano() + r.Stime.Nano())
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), cpu(after) - cpu(before), wall
	}
	var kafka, file, broker []float64
	for i := range 3 {
		s, br, w := run(clicks + fmt.Sprintf(crashKafkaQuery, addr, fmt.Sprintf("o%d", i), fmt.Sprintf("o%d", i)))
		kafka, broker = append(kafka, n/s.Seconds()), append(broker, br.Seconds())
		t.Logf("kafka: strand %v CPU, broker %v CPU, wall %v: %.0f events/CPU-s", s, br, w, n/s.Seconds())
		s, _, w = run(fileQuery)
		file = append(file, n/s.Seconds())
		t.Logf("file:  strand %v CPU, wall %v: %.0f events/CPU-s", s, w, n/s.Seconds())
	}
	med := func(v []float64) float64 { sort.Float64s(v); return v[len(v)/2] }
	t.Logf("median: kafka %.0f events/CPU-s (broker %.2f CPU-s per run), file %.0f events/CPU-s, ratio %.2f",
		med(kafka), med(broker), med(file), med(kafka)/med(file))
}
