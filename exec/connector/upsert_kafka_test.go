package connector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func upsertTable(addr string, kv ...string) Table {
	t := kafkaTable(addr, kSchema, append([]string{"connector", "upsert-kafka", "format", "", "scan.startup.mode", "",
		"key.format", "json", "value.format", "json"}, kv...)...)
	t.Name, t.PrimaryKey = "u", []string{"id"}
	return t
}

// consumeKV reads a topic from its start to its end as "key=value", in
// each partition's order, partitions in turn; a tombstone's value shows
// as <nil>.
func consumeKV(t testing.TB, addr, topic string, committed bool) []string {
	t.Helper()
	byPart := map[int32][]string{}
	readTopic(t, addr, topic, committed, func(r *kgo.Record) {
		v := "<nil>"
		if r.Value != nil {
			v = string(r.Value)
		}
		byPart[r.Partition] = append(byPart[r.Partition], string(r.Key)+"="+v)
	})
	var out []string
	for p := range int32(len(byPart)) {
		out = append(out, byPart[p]...)
	}
	return out
}

// TestUpsertKafkaSource: a keyed record is a row, a tombstone the
// deletion of its key, with the key's columns from the record key; with
// value.fields-include ALL too, where the value holds the key's columns.
func TestUpsertKafkaSource(t *testing.T) {
	addr := broker(t, 1, "in")
	rec := func(id int, v string) *kgo.Record {
		r := &kgo.Record{Topic: "in", Key: fmt.Appendf(nil, `{"id":%d}`, id)}
		if v != "" {
			r.Value = fmt.Appendf(nil, `{"id":%d,"name":"%s"}`, id, v)
		}
		return r
	}
	produce(t, addr, rec(1, "a"), rec(2, "b"), rec(1, "c"), rec(2, ""), &kgo.Record{Topic: "in"})
	want := []string{"+I[1, a]", "+I[2, b]", "+I[1, c]", "-D[2, null]"}
	for _, kv := range [][]string{nil, {"value.fields-include", "EXCEPT_KEY"}} {
		got, err := readAll(t, must(NewSource(upsertTable(addr, kv...))), exec.ReadOptions{BatchSize: 3})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%v: got %v, %v; want %v", kv, got, err, want)
		}
	}
}

// TestUpsertKafkaSink: +I and +U are records of their key, -U and -D
// tombstones; a read_committed reader sees them after the commit.
func TestUpsertKafkaSink(t *testing.T) {
	addr := broker(t, 1, "out")
	tab := upsertTable(addr, "topic", "out", "sink.delivery-guarantee", "exactly-once", "sink.transactional-id-prefix", "up",
		"key.fields-prefix", "", "value.fields-include", "EXCEPT_KEY")
	sk := must(NewSink(tab, Env{}))
	release := must(sk.(exec.Holder).Hold())
	defer release()
	w := must(sk.Open(kSchema, 0, 1))
	b := exec.WithKinds(makeBatch(t, kSchema, [][]any{{1, "a"}, {2, "b"}, {1, "a"}, {1, "c"}, {2, "b"}}),
		[]exec.RowKind{exec.Insert, exec.Insert, exec.UpdateBefore, exec.UpdateAfter, exec.Delete})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if got := consumeKV(t, addr, "out", true); len(got) != 0 {
		t.Fatalf("read_committed sees %v before the commit", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"id":1}={"name":"a"}`, `{"id":2}={"name":"b"}`, `{"id":1}=<nil>`, `{"id":1}={"name":"c"}`, `{"id":2}=<nil>`}
	if got := consumeKV(t, addr, "out", true); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Read back, the topic is the table's final state's upserts.
	got, err := readAll(t, must(NewSource(upsertTable(addr, "topic", "out", "value.fields-include", "EXCEPT_KEY"))), exec.ReadOptions{})
	if want := []string{"+I[1, a]", "+I[2, b]", "-D[1, null]", "+I[1, c]", "-D[2, null]"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("read back %v, %v; want %v", got, err, want)
	}
}

// TestKafkaDebezium writes a changelog as debezium-json values and reads
// it back with its kinds.
func TestKafkaDebezium(t *testing.T) {
	addr := broker(t, 1, "in")
	tab := kafkaTable(addr, kSchema, "format", "debezium-json")
	w := must(must(NewSink(tab, Env{})).Open(kSchema, 0, 1))
	b := exec.WithKinds(makeBatch(t, kSchema, [][]any{{1, "a"}, {1, "a"}, {1, "b"}, {1, "b"}}),
		[]exec.RowKind{exec.Insert, exec.UpdateBefore, exec.UpdateAfter, exec.Delete})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	produce(t, addr, &kgo.Record{Topic: "in", Value: []byte(`{"before":{"id":1,"name":"b"},"after":{"id":1,"name":"c"},"op":"u","ts_ms":1}`)})
	got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{BatchSize: 2})
	want := []string{"+I[1, a]", "-D[1, a]", "+I[1, b]", "-D[1, b]", "-U[1, b]", "+U[1, c]"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
}

// TestKafkaRawNull: the raw format writes NULL as a tombstone and reads
// a tombstone as NULL, as Flink's; an empty value is the empty string.
func TestKafkaRawNull(t *testing.T) {
	addr := broker(t, 1, "in")
	s := types.Schema{{Name: "v", Type: types.TString}}
	tab := kafkaTable(addr, s, "format", "raw")
	w := must(must(NewSink(tab, Env{})).Open(s, 0, 1))
	b := makeBatch(t, s, [][]any{{""}, {nil}, {"x"}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := consumeKV(t, addr, "in", false); !slices.Equal(got, []string{"=", "=<nil>", "=x"}) {
		t.Fatalf("records %q", got)
	}
	got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{})
	if want := []string{"+I[]", "+I[null]", "+I[x]"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

func TestUpsertKafkaOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		kv  []string
		key string
	}{
		{[]string{"key.fields", "id"}, "key.fields"},
		{[]string{"format", "json"}, "format"},
		{[]string{"scan.startup.mode", "earliest-offset"}, "scan.startup.mode"},
		{[]string{"key.format", ""}, "connector"},
		{[]string{"key.format", "debezium-json"}, "key.format"},
		{[]string{"key.fields-prefix", "k_"}, "key.fields-prefix"},
		{[]string{"value.format", "debezium-json"}, "value.format"},
	} {
		tab := upsertTable("127.0.0.1:1", tc.kv...)
		err := Validate(tab, false)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Key != tc.key {
			t.Errorf("%v: got %v, want an option error on %s", tc.kv, err, tc.key)
		}
	}
	tab := upsertTable("127.0.0.1:1")
	tab.PrimaryKey = nil
	var oe *OptionError
	if err := Validate(tab, true); !errors.As(err, &oe) || oe.Key != "connector" {
		t.Errorf("without a primary key: got %v", err)
	}
}

// TestKafkaPartitionDiscovery: with scan.topic-partition-discovery.interval
// a later Splits finds a topic the pattern matches that was created after
// the start, appended as a new split, read from its earliest offset even
// when the startup mode is latest-offset.
func TestKafkaPartitionDiscovery(t *testing.T) {
	addr := broker(t, 1, "d1")
	src := must(NewSource(kafkaTable(addr, kSchema, "topic", "", "topic-pattern", "d.*", "scan.bounded.mode", "",
		"scan.startup.mode", "latest-offset", "scan.topic-partition-discovery.interval", "100 ms")))
	if _, ok := src.(exec.Discovering); !ok {
		t.Fatal("the source does not discover")
	}
	if got := must(src.Splits()); len(got) != 1 || got[0].ID != "d1-0" {
		t.Fatalf("splits %v", got)
	}
	cl := must(kgo.NewClient(kgo.SeedBrokers(addr)))
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopics(context.Background(), 2, 1, nil, "d2"); err != nil {
		t.Fatal(err)
	}
	produce(t, addr, &kgo.Record{Topic: "d2", Partition: 1, Value: []byte(`{"id":7}`)})
	time.Sleep(150 * time.Millisecond)
	got := must(src.Splits())
	if len(got) != 3 || got[1].ID != "d2-0" || got[2].ID != "d2-1" || !got[2].New || got[2].Index != 2 {
		t.Fatalf("splits after discovery %+v", got)
	}
	r := must(src.Open(got[2], exec.Offset{}, exec.ReadOptions{BatchSize: 10}))
	defer r.Close()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		b := must(r.Next())
		rows := rowsOf(b)
		b.Release()
		if len(rows) > 0 {
			if rows[0] != "+I[7, null]" {
				t.Fatalf("read %v", rows)
			}
			return
		}
	}
	t.Fatal("the discovered partition's record never came")
}

// TestKafkaSinkMetadata: metadata columns declared without VIRTUAL set
// the records' headers and timestamp, which the source reads back; other
// metadata cannot be written.
func TestKafkaSinkMetadata(t *testing.T) {
	addr := broker(t, 1, "in")
	s := types.Schema{{Name: "id", Type: types.TBigInt}, {Name: "h", Type: types.TString}, {Name: "ts", Type: types.TTimestampLTZ}}
	tab := kafkaTable(addr, s)
	tab.Metadata = []string{"", "headers", "timestamp"}
	w := must(must(NewSink(tab, Env{})).Open(s, 0, 1))
	b := makeBatch(t, s, [][]any{{1, `{"a":"x","b":null}`, "2024-01-01 00:00:01.500"}, {2, nil, nil}})
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, must(NewSource(tab)), exec.ReadOptions{})
	if err != nil || len(got) != 2 || got[0] != `+I[1, {"a":"x","b":""}, 2024-01-01 00:00:01.500]` || got[1][:11] != `+I[2, {}, 2` {
		t.Fatalf("read back %q, %v", got, err)
	}
	bad := makeBatch(t, s, [][]any{{3, `["a"]`, nil}})
	defer bad.Release()
	w = must(must(NewSink(tab, Env{})).Open(s, 0, 1))
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), "metadata 'headers'") {
		t.Fatalf("headers that are no object: %v", err)
	}
	w.Abort()
	tab.Metadata = []string{"", "headers", "offset"}
	tab.Schema[2].Type = types.TBigInt
	var ce *ColumnError
	if err := Validate(tab, false); !errors.As(err, &ce) || ce.Column != "ts" {
		t.Fatalf("writing offset: %v", err)
	}
}
