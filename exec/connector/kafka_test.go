package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// broker starts an in-process Kafka-protocol cluster on 127.0.0.1 with
// the topics (partitions each) and returns its address.
func broker(t testing.TB, partitions int32, topics ...string) string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, topics...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

// produce writes records synchronously, each to its own partition.
func produce(t testing.TB, addr string, recs ...*kgo.Record) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// consume reads a topic from its start to its end (the last stable
// offset for read_committed), returning the values sorted.
func consume(t testing.TB, addr, topic string, committed bool) []string {
	t.Helper()
	var out []string
	readTopic(t, addr, topic, committed, func(r *kgo.Record) { out = append(out, string(r.Value)) })
	slices.Sort(out)
	return out
}

// readTopic calls fn for each record of a topic but control records, from
// its start to its end (the last stable offset for read_committed), in
// each partition's order.
func readTopic(t testing.TB, addr, topic string, committed bool, fn func(*kgo.Record)) {
	t.Helper()
	o := []kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords()}
	if committed {
		o = append(o, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl := must(kgo.NewClient(o...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	list := adm.ListEndOffsets
	if committed {
		list = adm.ListCommittedOffsets
	}
	ends := must(list(context.Background(), topic))
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	for deadline := time.Now().Add(10 * time.Second); len(left) > 0; {
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

func kafkaTable(addr string, schema types.Schema, kv ...string) Table {
	t := Table{Name: "k", Schema: schema, Options: map[string]string{
		"connector": "kafka", "topic": "in", "properties.bootstrap.servers": addr, "format": "json",
		"scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset",
	}}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			delete(t.Options, kv[i])
		} else {
			t.Options[kv[i]] = kv[i+1]
		}
	}
	return t
}

var kSchema = types.Schema{{Name: "id", Type: types.TBigInt}, {Name: "name", Type: types.TString}}

// seed writes ids 0..9 alternately to partitions 0 and 1, record i with
// timestamp 1000*i ms.
func seed(t testing.TB, addr string) {
	var recs []*kgo.Record
	for i := range 10 {
		recs = append(recs, &kgo.Record{Topic: "in", Partition: int32(i % 2), Key: fmt.Appendf(nil, "k%d", i),
			Value: fmt.Appendf(nil, `{"id":%d,"name":"n%d"}`, i, i), Timestamp: time.UnixMilli(int64(1000 * i)),
			Headers: []kgo.RecordHeader{{Key: "h", Value: fmt.Appendf(nil, "v%d", i)}}})
	}
	produce(t, addr, recs...)
}

func ids(rows []string) []string {
	slices.Sort(rows)
	return rows
}

func TestKafkaStartupModes(t *testing.T) {
	addr := broker(t, 2, "in")
	seed(t, addr)
	cl := must(kgo.NewClient(kgo.SeedBrokers(addr)))
	defer cl.Close()
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: "in", Partition: 0, At: 4})
	offs.Add(kadm.Offset{Topic: "in", Partition: 1, At: 3})
	if _, err := kadm.NewClient(cl).CommitOffsets(context.Background(), "g", offs); err != nil {
		t.Fatal(err)
	}
	all := []string{"+I[0, n0]", "+I[1, n1]", "+I[2, n2]", "+I[3, n3]", "+I[4, n4]", "+I[5, n5]", "+I[6, n6]", "+I[7, n7]", "+I[8, n8]", "+I[9, n9]"}
	for _, tc := range []struct {
		name string
		kv   []string
		want []string
	}{
		{"earliest", nil, all},
		{"latest", []string{"scan.startup.mode", "latest-offset"}, nil},
		// Partition 0 holds 0, 2, 4, 6, 8 at offsets 0..4; partition 1 the odd ids.
		{"group", []string{"scan.startup.mode", "group-offsets", "properties.group.id", "g"}, []string{"+I[7, n7]", "+I[8, n8]", "+I[9, n9]"}},
		{"timestamp", []string{"scan.startup.mode", "timestamp", "scan.startup.timestamp-millis", "6500"}, []string{"+I[7, n7]", "+I[8, n8]", "+I[9, n9]"}},
		{"specific", []string{"scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:3;partition:1,offset:4"}, []string{"+I[6, n6]", "+I[8, n8]", "+I[9, n9]"}},
		{"bounded timestamp", []string{"scan.bounded.mode", "timestamp", "scan.bounded.timestamp-millis", "3000"}, all[:3]},
		{"bounded specific", []string{"scan.bounded.mode", "specific-offsets", "scan.bounded.specific-offsets", "partition:0,offset:1;partition:1,offset:2"}, []string{"+I[0, n0]", "+I[1, n1]", "+I[3, n3]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := must(NewSource(kafkaTable(addr, kSchema, tc.kv...)))
			if !src.Bounded() {
				t.Fatal("a bounded mode must bound the source")
			}
			got, err := readAll(t, src, exec.ReadOptions{BatchSize: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(got); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestKafkaGroupOffsetsMissing(t *testing.T) {
	addr := broker(t, 2, "in")
	seed(t, addr)
	src := must(NewSource(kafkaTable(addr, kSchema, "scan.startup.mode", "group-offsets", "properties.group.id", "none")))
	if _, err := src.Splits(); err == nil || !strings.Contains(err.Error(), "no committed offset") {
		t.Fatalf("got %v, want an error about the missing committed offset", err)
	}
}

func TestKafkaMetadataAndKey(t *testing.T) {
	addr := broker(t, 2, "in")
	seed(t, addr)
	s := types.Schema{
		{Name: "id", Type: types.TBigInt}, {Name: "k", Type: types.TString},
		{Name: "t", Type: types.TString}, {Name: "p", Type: types.TInt}, {Name: "o", Type: types.TBigInt},
		{Name: "ts", Type: types.TTimestampLTZ}, {Name: "h", Type: types.TString}, {Name: "rk", Type: types.TString},
	}
	tab := kafkaTable(addr, s, "format", "", "value.format", "json", "key.format", "raw", "key.fields", "k", "value.fields-include", "EXCEPT_KEY")
	tab.Metadata = []string{"", "", "topic", "partition", "offset", "timestamp", "headers", "key"}
	got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := `+I[3, k3, in, 1, 1, 1970-01-01 00:00:03.000, {"h":"v3"}, k3]`
	if len(got) != 10 || got[6] != want {
		t.Fatalf("got %q, want 10 rows, row 6 %q", got, want)
	}
}

func TestKafkaBadRecord(t *testing.T) {
	addr := broker(t, 1, "in")
	produce(t, addr, &kgo.Record{Topic: "in", Value: []byte(`{"id":1}`)}, &kgo.Record{Topic: "in", Value: []byte(`{"id":"x"}`)},
		&kgo.Record{Topic: "in", Value: nil}, &kgo.Record{Topic: "in", Value: []byte(`{"id":3}`)})
	_, err := readAll(t, must(NewSource(kafkaTable(addr, kSchema))), exec.ReadOptions{BatchSize: 10})
	if !errors.Is(err, exec.ErrBadRow) || !strings.Contains(err.Error(), "topic in partition 0 offset 1: value: column 'id'") {
		t.Fatalf("got %v, want a bad row naming topic, partition and offset", err)
	}
	m := &exec.Metrics{}
	got, err := readAll(t, must(NewSource(kafkaTable(addr, kSchema, "json.ignore-parse-errors", "true"))), exec.ReadOptions{BatchSize: 10, Metrics: m})
	if err != nil || !slices.Equal(got, []string{"+I[1, null]", "+I[3, null]"}) || m.BadRows.Load() != 1 {
		t.Fatalf("got %v, %v, %d bad rows; want ids 1 and 3 and one bad row", got, err, m.BadRows.Load())
	}
}

// TestKafkaResume reads part of a partition, then opens it again at the
// offset reached: the rest follows, nothing twice.
func TestKafkaResume(t *testing.T) {
	addr := broker(t, 1, "in")
	var recs []*kgo.Record
	for i := range 7 {
		recs = append(recs, &kgo.Record{Topic: "in", Value: fmt.Appendf(nil, `{"id":%d}`, i)})
	}
	produce(t, addr, recs...)
	src := must(NewSource(kafkaTable(addr, kSchema)))
	sp := must(src.Splits())[0]
	r := must(src.Open(sp, exec.Offset{}, exec.ReadOptions{BatchSize: 3}))
	var first []string
	for len(first) < 3 {
		b := must(r.Next())
		first = append(first, rowsOf(b)...)
		b.Release()
	}
	off := r.Offset()
	r.Close()
	rest, _, err := readSplit(t, src, sp, off, exec.ReadOptions{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := append(first, rest...); len(got) != 7 || got[3] != "+I[3, null]" || off.Line != 3 {
		t.Fatalf("got %v at %+v, want ids 0..6", got, off)
	}
}

// TestKafkaUnbounded: without a bounded mode Next returns empty batches
// while no record is ready, and later records when they come.
func TestKafkaUnbounded(t *testing.T) {
	addr := broker(t, 1, "in")
	src := must(NewSource(kafkaTable(addr, kSchema, "scan.bounded.mode", "")))
	if src.Bounded() {
		t.Fatal("unbounded source reports bounded")
	}
	r := must(src.Open(must(src.Splits())[0], exec.Offset{}, exec.ReadOptions{BatchSize: 10}))
	defer r.Close()
	b := must(r.Next())
	if b.NumRows() != 0 {
		t.Fatalf("got %d rows from an empty topic", b.NumRows())
	}
	b.Release()
	produce(t, addr, &kgo.Record{Topic: "in", Value: []byte(`{"id":5}`)})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b := must(r.Next())
		n := b.NumRows()
		b.Release()
		if n == 1 {
			return
		}
	}
	t.Fatal("the record produced never came")
}

func TestKafkaOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		kv  []string
		key string
	}{
		{[]string{"scan.startup.mode", "nope"}, "scan.startup.mode"},
		{[]string{"scan.startup.mode", "timestamp"}, "scan.startup.mode"},
		{[]string{"scan.startup.specific-offsets", "partition:0,offset:1"}, "scan.startup.specific-offsets"},
		{[]string{"scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "p0"}, "scan.startup.specific-offsets"},
		{[]string{"topic", "a;b", "scan.startup.mode", "specific-offsets", "scan.startup.specific-offsets", "partition:0,offset:1"}, "scan.startup.mode"},
		{[]string{"topic", "", "topic-pattern", "a.*", "scan.bounded.mode", "specific-offsets", "scan.bounded.specific-offsets", "partition:0,offset:1"}, "scan.bounded.mode"},
		{[]string{"properties.sasl.kerberos.service.name", "kafka"}, "properties.sasl.kerberos.service.name"},
		{[]string{"properties.security.protocol", "SASL_SSL"}, "properties.security.protocol"},
		{[]string{"format", "avro"}, "format"},
		{[]string{"csv.field-delimiter", ";"}, "csv.field-delimiter"},
		{[]string{"key.fields", "id"}, "key.fields"},
		{[]string{"key.format", "json", "key.fields", "nope"}, "key.fields"},
		{[]string{"topic", "", "topic-pattern", "("}, "topic-pattern"},
		{[]string{"sink.delivery-guarantee", "exactly-once"}, "sink.delivery-guarantee"},
		{[]string{"scan.topic-partition-discovery.interval", "1 min"}, "scan.topic-partition-discovery.interval"},
	} {
		err := Validate(kafkaTable("127.0.0.1:1", kSchema, tc.kv...), true)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Key != tc.key {
			t.Errorf("%v: got %v, want an option error on %s", tc.kv, err, tc.key)
		}
	}
	err := Validate(kafkaTable("127.0.0.1:1", kSchema, "topic", "a;b"), false)
	if err == nil || !strings.Contains(err.Error(), "writes one topic") {
		t.Errorf("a sink of two topics: got %v", err)
	}
}

func sinkTable(addr, guarantee string) Table {
	return kafkaTable(addr, kSchema, "topic", "out", "sink.delivery-guarantee", guarantee, "sink.transactional-id-prefix", "tx")
}

// TestKafkaSinkExactlyOnce: rows of a pre-committed transaction are
// invisible to read_committed until Commit; a restore commits the
// checkpoint's transactions and aborts the later ones.
func TestKafkaSinkExactlyOnce(t *testing.T) {
	addr := broker(t, 2, "out")
	sk := must(NewSink(sinkTable(addr, "exactly-once"), Env{}))
	release := must(sk.(exec.Holder).Hold())
	defer release()
	w := must(sk.Open(kSchema, 0, 1))
	writeIDs(t, w, 1, 2)
	p1 := must(w.(exec.PreCommitter).PreCommit(1))
	writeIDs(t, w, 3)
	if got := consume(t, addr, "out", true); len(got) != 0 {
		t.Fatalf("read_committed sees %v before the commit", got)
	}
	if len(p1) != 1 || p1[0].Txn == nil || p1[0].Txn.ID != "tx-0-0" {
		t.Fatalf("pending %+v, want transaction tx-0-0", p1)
	}
	p2 := must(w.(exec.PreCommitter).PreCommit(2))
	writeIDs(t, w, 4) // in transaction tx-0-2, lost in the crash
	// The row reaches the broker before the crash: had it been left in
	// the client's buffer, the "crashed" writer (still alive here) could
	// send it after the restore, opening tx-0-2 again and holding back
	// the last stable offset until w.Abort, as it did on a loaded machine.
	if err := w.(*kafkaWriter).flush(); err != nil {
		t.Fatal(err)
	}

	// A crash, with checkpoint 1 complete but not committed: the restore
	// commits checkpoint 1 and aborts tx-0-1 (pre-committed at 2) and tx-0-2.
	restored := must(NewSink(sinkTable(addr, "exactly-once"), Env{}))
	release2 := must(restored.(exec.Holder).Hold())
	defer release2()
	if err := restored.(exec.Committer).Recover(1, p1); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"id":1,"name":"n1"}`, `{"id":2,"name":"n2"}`}
	if got := consume(t, addr, "out", true); !slices.Equal(got, want) {
		t.Fatalf("after recovery read_committed sees %v, want %v", got, want)
	}
	// Committing again (a crash after the commit) changes nothing; the
	// aborted checkpoint's transaction cannot be committed any more.
	if err := restored.(exec.Committer).Recover(1, p1); err != nil {
		t.Fatal(err)
	}
	if err := restored.(exec.Committer).Commit(p2[len(p2)-1:]); err == nil {
		t.Fatal("committing a fenced transaction succeeded")
	}
	w2 := must(restored.Open(kSchema, 0, 1))
	writeIDs(t, w2, 3, 4)
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	want = append(want, `{"id":3,"name":"n3"}`, `{"id":4,"name":"n4"}`)
	if got := consume(t, addr, "out", true); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
	w.Abort()
}

func TestKafkaSinkAtLeastOnce(t *testing.T) {
	addr := broker(t, 1, "out")
	tab := sinkTable(addr, "at-least-once")
	tab.Options["key.format"], tab.Options["key.fields"], tab.Options["format"] = "raw", "name", "csv"
	tab.Options["value.fields-include"] = "EXCEPT_KEY"
	sk := must(NewSink(tab, Env{}))
	w := must(sk.Open(kSchema, 0, 1))
	b := makeBatch(t, kSchema, [][]any{{1, "a"}, {2, "b"}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if _, err := w.(exec.PreCommitter).PreCommit(1); err != nil {
		t.Fatal(err)
	}
	if got := consume(t, addr, "out", false); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("got %v after the barrier's flush, want 1 and 2", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestKafkaCommitsGroupOffsets: a completed checkpoint's positions reach
// the consumer group.
func TestKafkaCommitsGroupOffsets(t *testing.T) {
	addr := broker(t, 2, "in")
	seed(t, addr)
	src := must(NewSource(kafkaTable(addr, kSchema, "properties.group.id", "mon")))
	splits := must(src.Splits())
	n := src.(exec.Notified)
	n.Completed([]checkpoint.SplitState{{ID: splits[0].ID, Pos: 3 + 1}, {ID: splits[1].ID, Pos: 5 + 1}})
	cl := must(kgo.NewClient(kgo.SeedBrokers(addr)))
	defer cl.Close()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		offs, err := kadm.NewClient(cl).FetchOffsets(context.Background(), "mon")
		if err != nil {
			continue
		}
		a, _ := offs.Lookup("in", 0)
		b, _ := offs.Lookup("in", 1)
		if a.At == 3 && b.At == 5 {
			return
		}
	}
	t.Fatal("the group's offsets never became the checkpoint's")
}

// TestKafkaTopics reads a topic list and a pattern: every partition of
// every topic named is a split, in topic order.
func TestKafkaTopics(t *testing.T) {
	addr := broker(t, 1, "a1", "a2", "b")
	for _, tp := range []string{"a1", "a2", "b"} {
		produce(t, addr, &kgo.Record{Topic: tp, Value: fmt.Appendf(nil, `{"name":"%s"}`, tp)})
	}
	for _, kv := range [][]string{{"topic", "a2; a1"}, {"topic", "", "topic-pattern", "a.*"}} {
		src := must(NewSource(kafkaTable(addr, kSchema, kv...)))
		var splits []string
		for _, sp := range must(src.Splits()) {
			splits = append(splits, sp.ID)
		}
		got, err := readAll(t, src, exec.ReadOptions{})
		if err != nil || !slices.Equal(splits, []string{"a1-0", "a2-0"}) || !slices.Equal(got, []string{"+I[null, a1]", "+I[null, a2]"}) {
			t.Errorf("%v: splits %v, rows %v, %v", kv, splits, got, err)
		}
	}
	_, err := must(NewSource(kafkaTable(addr, kSchema, "topic", "nope"))).Splits()
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a missing topic: got %v", err)
	}
}

// TestKafkaSASL connects with SASL/PLAIN credentials from
// properties.sasl.jaas.config, and fails without them.
func TestKafkaSASL(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "in"), kfake.EnableSASL(), kfake.Superuser("PLAIN", "strand", "secret"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ListenAddrs()[0]
	tab := kafkaTable(addr, kSchema, "properties.security.protocol", "SASL_PLAINTEXT", "properties.sasl.mechanism", "PLAIN",
		"properties.sasl.jaas.config", `org.apache.kafka.common.security.plain.PlainLoginModule required username="strand" password="secret";`)
	if _, err := must(NewSource(tab)).Splits(); err != nil {
		t.Fatalf("with credentials: %v", err)
	}
	tab.Options["properties.sasl.jaas.config"] = `org.apache.kafka.common.security.plain.PlainLoginModule required username="strand" password="wrong";`
	if _, err := must(NewSource(tab)).Splits(); err == nil {
		t.Fatal("a wrong password connected")
	}
}
