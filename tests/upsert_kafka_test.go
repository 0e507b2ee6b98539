package tests

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// upsertUsers writes n upserts of users (id, city, amount) to topic's
// partitions, keyed by id (Kafka's partitioner: all of a key's records
// in one partition), one in ten a tombstone, and returns the table a
// plain-Go reference computes from them: per city, the number of users
// whose last record puts them there and the sum of their amounts.
func upsertUsers(t *testing.T, addr, topic string, n, users int) map[string]string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rng := rand.New(rand.NewSource(7))
	type user struct {
		city   int
		amount int
	}
	last := map[int]*user{}
	recs := make([]*kgo.Record, 0, n)
	for range n {
		id := rng.Intn(users)
		r := &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, `{"id":%d}`, id)}
		if rng.Intn(10) == 0 {
			delete(last, id)
		} else {
			u := &user{city: rng.Intn(20), amount: rng.Intn(100)}
			last[id] = u
			r.Value = fmt.Appendf(nil, `{"id":%d,"city":"c%d","amount":%d}`, id, u.city, u.amount)
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	count, sum := map[int]int{}, map[int]int{}
	for _, u := range last {
		count[u.city]++
		sum[u.city] += u.amount
	}
	want := map[string]string{}
	for c, k := range count {
		want[fmt.Sprintf(`{"city":"c%d"}`, c)] = fmt.Sprintf(`{"city":"c%d","n":%d,"total":%d}`, c, k, sum[c])
	}
	return want
}

// upsertQuery reads the users topic through upsert-kafka (a
// ChangelogNormalize keyed by id) into a group aggregate by city, written
// to an upsert-kafka topic with exactly-once delivery; %s are the broker,
// the output topic and its transactional-id prefix.
const upsertQuery = `
CREATE TABLE users (id BIGINT, city STRING, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = 'users', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE city_stats (city STRING, n BIGINT, total BIGINT, PRIMARY KEY (city) NOT ENFORCED)
WITH ('connector' = 'upsert-kafka', 'topic' = '%[2]s', 'properties.bootstrap.servers' = '%[1]s',
  'key.format' = 'json', 'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%[2]s');
INSERT INTO city_stats SELECT city, COUNT(*), SUM(amount) FROM users GROUP BY city;
`

// readTable applies what a read_committed consumer reads from an upsert
// topic, in each partition's order: a record sets its key's value, a
// tombstone deletes it.
func readTable(t *testing.T, addr, topic string) map[string]string {
	t.Helper()
	table := map[string]string{}
	eachCommitted(t, addr, topic, func(r *kgo.Record) {
		if r.Value == nil {
			delete(table, string(r.Key))
		} else {
			table[string(r.Key)] = string(r.Value)
		}
	})
	return table
}

func diffTables(t *testing.T, got, want map[string]string) {
	t.Helper()
	var bad []string
	for k, v := range want {
		if got[k] != v {
			bad = append(bad, fmt.Sprintf("%s: got %q, want %q", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			bad = append(bad, fmt.Sprintf("%s: got %q, want no row", k, v))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%d of %d keys differ:\n%s", len(bad), len(want), bad[:min(len(bad), 10)])
	}
}

// TestUpsertKafkaSQL runs the query at parallelism 1 and 4 through the
// binary: the table a read_committed reader applies is the plain-Go
// reference's.
func TestUpsertKafkaSQL(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 4, "users", "out1", "out4")
	want := upsertUsers(t, addr, "users", 5000, 300)
	for _, p := range []int{1, 4} {
		topic := fmt.Sprintf("out%d", p)
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(upsertQuery, addr, topic))
		if _, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", fmt.Sprint(p)); code != 0 {
			t.Fatalf("parallelism %d: %s", p, stderr)
		}
		diffTables(t, readTable(t, addr, topic), want)
	}
}

// TestUpsertKafkaCrash kills the binary running the query (the
// ChangelogNormalize and the group aggregate checkpointed, the sink's
// transactions committed with the checkpoints) each time a little after
// one of its checkpoints has completed, so that every restart restores
// state and replays records, the last run at another parallelism: the
// table a read_committed reader applies is the reference's, as after an
// uninterrupted run.
func TestUpsertKafkaCrash(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 4, "users", "ref", "out")
	want := upsertUsers(t, addr, "users", 150000, 5000)
	ref := t.TempDir()
	writeFile(t, filepath.Join(ref, "q.sql"), fmt.Sprintf(upsertQuery, addr, "ref"))
	if _, stderr, code := runStrand(t, ref, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "150ms"); code != 0 {
		t.Fatalf("reference run: %s", stderr)
	}
	diffTables(t, readTable(t, addr, "ref"), want)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(upsertQuery, addr, "out"))
	rng := rand.New(rand.NewSource(3))
	resumed := 0
	for i := range 4 {
		p := 2
		if i == 3 {
			p = 3 // the last run, uninterrupted, rescales
		}
		var stderr syncBuffer
		cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "150ms")
		cmd.Dir, cmd.Stderr = dir, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if i < 3 {
			// Killed once a checkpoint of this run has completed.
			for !strings.Contains(stderr.String(), " completed in ") {
				select {
				case err := <-done:
					t.Fatalf("run %d ended before its first checkpoint: %v\n%s", i, err, stderr.String())
				case <-time.After(5 * time.Millisecond):
				}
			}
			time.Sleep(time.Duration(rng.Intn(200)) * time.Millisecond)
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		err := <-done
		if i == 3 && err != nil {
			t.Fatalf("final run: %v\n%s", err, stderr.String())
		}
		if log := stderr.String(); strings.Contains(log, "resuming from checkpoint") || strings.Contains(log, "finished at checkpoint") {
			resumed++
		}
	}
	if resumed < 3 {
		t.Errorf("%d of the 3 runs after a kill resumed from a checkpoint, or found the job finished at one", resumed)
	}
	diffTables(t, readTable(t, addr, "out"), want)
}
