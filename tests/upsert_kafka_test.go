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

	"github.com/twmb/franz-go/pkg/kadm"
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
// one of its checkpoints has completed, so that restarts restore state and
// replay records, the last run at another parallelism: the table a
// read_committed reader applies is the reference's, as after an
// uninterrupted run. A run may end before its kill (killed after its final
// checkpoint, a run leaves the next one only that checkpoint's commit to
// settle): the job is then done, and the runs stop there, because a run of
// a finished job starts afresh and writes every key again, which would
// hide whatever the recoveries before it got wrong. At least one kill must
// land and be taken up by the run after it.
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
	// kills are the runs killed before the job ended, each taken up by the
	// run after it: the final table proves their recovery.
	kills := 0
	for i := range 4 {
		p := 2
		if i == 3 {
			p = 3 // the last run, uninterrupted, rescales
		}
		var stderr syncBuffer
		cmd := exec.Command(strandBinary(t), "run", "q.sql", "--parallelism", fmt.Sprint(p), "--checkpoint-interval", "50ms")
		cmd.Dir, cmd.Stderr = dir, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		if i < 3 {
			err = killSoonAfterCheckpoint(cmd, done, &stderr, rng)
		} else {
			err = <-done
		}
		if i == 3 && err != nil {
			t.Fatalf("final run: %v\n%s", err, stderr.String())
		}
		if log := stderr.String(); i > 0 && !strings.Contains(log, "resuming from checkpoint") && !strings.Contains(log, "its run died before it ended") {
			t.Fatalf("run %d, after a kill, neither resumed from a checkpoint nor settled the killed run's final one:\n%s", i, log)
		}
		if err == nil {
			// The run ended on its own: the job is done (see above).
			break
		}
		kills++
		if endedIn(t, checkpointsOf(dir, nil)) {
			// The kill landed as the process exited, the job done.
			kills--
			break
		}
	}
	t.Logf("%d kills taken up by the runs after them", kills)
	if kills == 0 {
		t.Errorf("no kill landed that a later run took up: the runs are too short to test recovery")
	}
	diffTables(t, readTable(t, addr, "out"), want)
}

// killSoonAfterCheckpoint kills the run of cmd once one of its checkpoints has
// completed and a random wait up to 100 ms more, and returns how it ended:
// nil if it ended on its own first.
func killSoonAfterCheckpoint(cmd *exec.Cmd, done chan error, stderr *syncBuffer, rng *rand.Rand) error {
	for !strings.Contains(stderr.String(), " completed in ") {
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Millisecond):
		}
	}
	select {
	case err := <-done:
		return err
	case <-time.After(time.Duration(rng.Intn(100)) * time.Millisecond):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	return <-done
}

// TestUpsertKafkaRunAgain runs a finished job again, the way a user runs a
// bounded query a second time, with only the final checkpoint each time:
// the second run settles the first one's checkpoint, starts afresh and uses
// the same transactional ids. It must leave none of them open: a
// transaction left open holds back every read_committed reader of the topic
// at its first record, which readers then take for the topic's end.
func TestUpsertKafkaRunAgain(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 4, "users", "out")
	want := upsertUsers(t, addr, "users", 5000, 300)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(upsertQuery, addr, "out"))
	for i := range 2 {
		_, stderr, code := runStrand(t, dir, "run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "1h")
		if code != 0 {
			t.Fatalf("run %d: %s", i, stderr)
		}
		if i == 1 && !strings.Contains(stderr, "starting it afresh") {
			t.Fatalf("the second run did not start the finished job afresh:\n%s", stderr)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	txns, err := adm.ListTransactions(context.Background(), nil, []string{"Ongoing"})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range txns.Sorted() {
		t.Errorf("transaction %s is left open", x.TxnID)
	}
	stable, err := adm.ListCommittedOffsets(context.Background(), "out")
	if err != nil {
		t.Fatal(err)
	}
	end, err := adm.ListEndOffsets(context.Background(), "out")
	if err != nil {
		t.Fatal(err)
	}
	end.Each(func(o kadm.ListedOffset) {
		if s, _ := stable.Lookup("out", o.Partition); s.Offset != o.Offset {
			t.Errorf("partition %d: read_committed readers stop at %d of %d", o.Partition, s.Offset, o.Offset)
		}
	})
	diffTables(t, readTable(t, addr, "out"), want)
}

// TestUpsertKafkaRunAgainKilled runs a finished job again and kills that run
// before it takes a checkpoint, after it wrote rows: it settled the first
// run's final checkpoint and wrote under the same transactional ids. The
// run after it finds the first run's checkpoint still the newest and
// settles it again; that must not fail because the ids have since been
// used under later epochs.
func TestUpsertKafkaRunAgainKilled(t *testing.T) {
	t.Parallel()
	addr := kafkaBroker(t, 4, "users", "out")
	want := upsertUsers(t, addr, "users", 50000, 300)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "q.sql"), fmt.Sprintf(upsertQuery, addr, "out"))
	args := []string{"run", "q.sql", "--parallelism", "2", "--checkpoint-interval", "1h"}
	if _, stderr, code := runStrand(t, dir, args...); code != 0 {
		t.Fatalf("first run: %s", stderr)
	}
	var stderr syncBuffer
	cmd := exec.Command(strandBinary(t), args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for !strings.Contains(stderr.String(), "starting it afresh") {
		select {
		case err := <-done:
			t.Fatalf("the second run ended before it started: %v\n%s", err, stderr.String())
		case <-time.After(time.Millisecond):
		}
	}
	select {
	case err := <-done:
		t.Skipf("the second run ended before the kill (%v)", err)
	case <-time.After(150 * time.Millisecond):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	t.Logf("second run, killed:\n%s", stderr.String())
	_, errs, code := runStrand(t, dir, args...)
	if code != 0 {
		t.Fatalf("third run: exit %d\n%s", code, errs)
	}
	t.Logf("third run:\n%s", errs)
	diffTables(t, readTable(t, addr, "out"), want)
}
