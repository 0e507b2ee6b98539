package connector

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/strandsql/strand/exec"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// writeIDs writes the rows (id, "n<id>") to w.
func writeIDs(t testing.TB, w exec.SinkWriter, ids ...int) {
	t.Helper()
	var rows [][]any
	for _, id := range ids {
		rows = append(rows, []any{id, fmt.Sprintf("n%d", id)})
	}
	b := makeBatch(t, kSchema, rows)
	defer b.Release()
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
}

// eosSink returns an in-process broker with topic "out" and an
// exactly-once sink writing it, held until the test ends.
func eosSink(t *testing.T) (*kfake.Cluster, exec.Sink, string) {
	t.Helper()
	c := must(kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "out")))
	t.Cleanup(c.Close)
	addr := c.ListenAddrs()[0]
	sk := must(NewSink(sinkTable(addr, "exactly-once"), Env{}))
	release := must(sk.(exec.Holder).Hold())
	t.Cleanup(release)
	return c, sk, addr
}

// failEndTxn makes the broker refuse the EndTxn requests that commit with
// code, while failing is set.
func failEndTxn(c *kfake.Cluster, failing *atomic.Bool, code int16) {
	c.ControlKey(int16(kmsg.EndTxn), func(r kmsg.Request) (kmsg.Response, error, bool) {
		req := r.(*kmsg.EndTxnRequest)
		if !failing.Load() || !req.Commit {
			return nil, nil, false
		}
		c.KeepControl()
		resp := req.ResponseKind().(*kmsg.EndTxnResponse)
		resp.ErrorCode = code
		return resp, nil, true
	})
}

// failProduce makes the broker refuse every partition of the produce
// requests with code, while failing is set.
func failProduce(c *kfake.Cluster, failing *atomic.Bool, code int16) {
	c.ControlKey(int16(kmsg.Produce), func(r kmsg.Request) (kmsg.Response, error, bool) {
		if !failing.Load() {
			return nil, nil, false
		}
		c.KeepControl()
		req := r.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, t := range req.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
}

// TestKafkaSinkFailedCloseAborts: a Close whose flush or commit fails,
// like an Abort, leaves no transaction open: read_committed readers reach
// the end of the topic at once, not after the transaction timeout (15
// minutes), and see none of the failed transaction's rows.
func TestKafkaSinkFailedCloseAborts(t *testing.T) {
	cases := []struct {
		name string
		fail func(c *kfake.Cluster, failing *atomic.Bool)
	}{
		// The job failed: no Close, only Abort.
		{"job failed", nil},
		// franz-go cannot tell whether the commit happened.
		{"commit unconfirmed", func(c *kfake.Cluster, f *atomic.Bool) {
			failEndTxn(c, f, kerr.UnknownServerError.Code)
		}},
		// A definitive refusal, after which franz-go's own abort
		// (EndTransaction with TryAbort) returns nil and sends nothing.
		{"commit refused", func(c *kfake.Cluster, f *atomic.Bool) {
			failEndTxn(c, f, kerr.InvalidTxnState.Code)
		}},
		// Rows 1 and 2 are in the transaction, row 3 fails the flush.
		{"produce refused", func(c *kfake.Cluster, f *atomic.Bool) {
			failProduce(c, f, kerr.InvalidRecord.Code)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, sk, addr := eosSink(t)
			w := must(sk.Open(kSchema, 0, 2))
			writeIDs(t, w, 1, 2)
			if err := w.(*kafkaWriter).flush(); err != nil {
				t.Fatal(err)
			}
			var failing atomic.Bool
			failing.Store(true)
			if tc.fail != nil {
				tc.fail(c, &failing)
			}
			writeIDs(t, w, 3)
			if tc.fail != nil {
				if err := w.Close(); err == nil {
					t.Fatal("Close succeeded")
				}
			}
			// As the run's end does after a failed job or Close.
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
			failing.Store(false)

			// Another subtask's transaction, after the failed one.
			w2 := must(sk.Open(kSchema, 1, 2))
			writeIDs(t, w2, 4)
			if err := w2.Close(); err != nil {
				t.Fatal(err)
			}
			cl := must(kgo.NewClient(kgo.SeedBrokers(addr)))
			defer cl.Close()
			adm := kadm.NewClient(cl)
			ends := must(adm.ListEndOffsets(context.Background(), "out"))
			stable := must(adm.ListCommittedOffsets(context.Background(), "out"))
			end, _ := ends.Lookup("out", 0)
			lso, _ := stable.Lookup("out", 0)
			if lso.Offset != end.Offset {
				t.Fatalf("last stable offset %d, high watermark %d: a transaction is left open", lso.Offset, end.Offset)
			}
			want := []string{`{"id":4,"name":"n4"}`}
			if got := consume(t, addr, "out", true); !slices.Equal(got, want) {
				t.Fatalf("read_committed sees %v, want %v", got, want)
			}
		})
	}
}

// TestKafkaSinkRunAfterFinished: a run of a job after one that finished
// settles the finished run's last checkpoint (commits its transactions
// again) and then uses the same transactional ids, each run's first
// transaction being <prefix>-<s>-0. The new transaction is a new one:
// it is handed over at the barrier and committed, not taken for the
// settled one, which would leave it open and hold back read_committed
// readers at its first record.
func TestKafkaSinkRunAfterFinished(t *testing.T) {
	_, sk, addr := eosSink(t)
	w := must(sk.Open(kSchema, 0, 1))
	writeIDs(t, w, 1)
	p1 := must(w.(exec.PreCommitter).PreCommit(1))
	if err := sk.(exec.Committer).Commit(p1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	again := must(NewSink(sinkTable(addr, "exactly-once"), Env{}))
	release := must(again.(exec.Holder).Hold())
	defer release()
	if err := again.(exec.Committer).Commit(p1); err != nil {
		t.Fatal(err)
	}
	if err := again.(exec.Committer).Clean("", false); err != nil {
		t.Fatal(err)
	}
	w2 := must(again.Open(kSchema, 0, 1))
	writeIDs(t, w2, 2)
	p2 := must(w2.(exec.PreCommitter).PreCommit(2))
	if len(p2) != 1 || p2[0].Txn.ID != p1[0].Txn.ID || p2[0].Txn.Epoch == p1[0].Txn.Epoch {
		t.Fatalf("checkpoint 2 hands over %+v, want %s under a new epoch (checkpoint 1: %+v)", p2, p1[0].Txn.ID, p1[0].Txn)
	}
	if err := again.(exec.Committer).Commit(p2); err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"id":1,"name":"n1"}`, `{"id":2,"name":"n2"}`}
	if got := consume(t, addr, "out", true); !slices.Equal(got, want) {
		t.Fatalf("read_committed sees %v, want %v", got, want)
	}
}
