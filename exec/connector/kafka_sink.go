package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaSink writes one topic. With exactly-once, subtask s writes the rows
// after barrier k in a transaction of its own, transactional id
// <prefix>-<s>-<k>: flushed and left open at the next barrier (PreCommit),
// committed with EndTxn by the coordinator once that checkpoint is
// complete, or by the restore that finds it pending. A restore then aborts
// every other open transaction of the prefix: the replay writes their rows
// again.
type kafkaSink struct {
	cfg    kafkaConfig
	schema types.Schema
	meta   []string // per column, its metadata key; nil if none
	topic  string
	ids    *regexp.Regexp // this sink's transactional ids

	mu    sync.Mutex
	admin *kgo.Client // for EndTxn and InitProducerID, made on first use
	// committed are the transactions committed in this run. A
	// transaction is its id with its producer and epoch: ids are used
	// again (each run's first transaction is <prefix>-<s>-0, a restore's
	// first is the restored checkpoint's), each time under a new epoch,
	// and a committed earlier use must not pass for the new one.
	committed map[checkpoint.PendingTxn]bool
	restored  int64 // the checkpoint restored from, 0 for a fresh start
}

func newKafkaSink(t Table, c kafkaConfig) *kafkaSink {
	return &kafkaSink{cfg: c, schema: t.Schema, meta: t.Metadata, topic: c.topics[0], committed: map[checkpoint.PendingTxn]bool{},
		ids: regexp.MustCompile("^" + regexp.QuoteMeta(c.txnPrefix) + `-\d+-\d+$`)}
}

// checkKafkaSink refuses what only a source can do.
func checkKafkaSink(c kafkaConfig, t Table) error {
	if c.pattern != nil || len(c.topics) != 1 {
		return &OptionError{Key: "topic", Msg: fmt.Sprintf("a kafka sink writes one topic; table %s names %s", t.Name, describeTopics(c))}
	}
	prefix := "value."
	if c.value.key == "format" {
		prefix = ""
	}
	return c.value.dbz.checkWrite(prefix)
}

func describeTopics(c kafkaConfig) string {
	if c.pattern != nil {
		return "a topic-pattern"
	}
	return fmt.Sprintf("%d topics", len(c.topics))
}

// Hold implements exec.Holder: the run's end closes the admin client.
func (s *kafkaSink) Hold() (func(), error) {
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.admin != nil {
			s.admin.Close()
			s.admin = nil
		}
	}, nil
}

func (s *kafkaSink) adminClient() (*kgo.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admin == nil {
		cl, err := s.cfg.client.newClient()
		if err != nil {
			return nil, err
		}
		s.admin = cl
	}
	return s.admin, nil
}

// sinkTimeout bounds a flush, a commit or an abort.
const sinkTimeout = 2 * time.Minute

func (s *kafkaSink) Open(out types.Schema, subtask, n int) (exec.SinkWriter, error) {
	names := out.Names()
	if len(s.schema) == len(out) {
		names = s.schema.Names()
	}
	w := &kafkaWriter{s: s, subtask: subtask, valCols: s.cfg.valueCols, keyCols: s.cfg.keyCols, headers: -1, stamp: -1}
	for i, k := range s.meta {
		switch k {
		case "headers":
			w.headers = i
		case "timestamp":
			w.stamp = i
		}
	}
	w.val = s.cfg.value.encoder(pick(names, w.valCols))
	w.valSchema = cols(out, w.valCols).Arrow()
	if s.cfg.key != nil {
		keyNames := pick(names, w.keyCols)
		for i := range keyNames {
			keyNames[i] = strings.TrimPrefix(keyNames[i], s.cfg.keyPrefix)
		}
		w.key = s.cfg.key.encoder(keyNames)
		w.keySchema = cols(out, w.keyCols).Arrow()
	}
	s.mu.Lock()
	w.after = s.restored
	s.mu.Unlock()
	if s.cfg.partitioner == "fixed" {
		cl, err := s.adminClient()
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		d, err := kadm.NewClient(cl).ListTopics(ctx, s.topic)
		if err == nil {
			err = d.Error()
		}
		if err != nil || len(d[s.topic].Partitions) == 0 {
			return nil, fmt.Errorf("kafka sink: topic %s: %w", s.topic, errors.Join(err, errors.New("no partitions")))
		}
		w.fixed = int32(subtask % len(d[s.topic].Partitions))
	}
	return w, nil
}

func pick(names []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}

// producer returns a new client for the sink's writes; txn is the
// transactional id, "" without exactly-once.
func (s *kafkaSink) producer(txn string) (*kgo.Client, error) {
	o := []kgo.Opt{kgo.DefaultProduceTopic(s.topic), kgo.ProducerLinger(5 * time.Millisecond)}
	switch s.cfg.partitioner {
	case "round-robin":
		o = append(o, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	case "fixed":
		o = append(o, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	default: // Kafka's: murmur2 of the key, sticky without one
		o = append(o, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	}
	switch {
	case txn != "":
		o = append(o, kgo.TransactionalID(txn), kgo.TransactionTimeout(s.cfg.client.txnTimeout))
	case s.cfg.guarantee == "none":
		o = append(o, kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()))
	}
	return s.cfg.client.newClient(o...)
}

// kafkaWriter is one subtask's producer.
type kafkaWriter struct {
	s                    *kafkaSink
	subtask              int
	key, val             encoder // key nil without key.format
	keyCols, valCols     []int
	keySchema, valSchema *arrow.Schema
	fixed                int32 // the partition of sink.partitioner 'fixed'
	// route, when set, is each row's partition of the next Write (a
	// repartition topic's key groups), instead of fixed.
	route []int32
	// headers and stamp are the columns of the headers and timestamp
	// metadata the records carry, -1 for none.
	headers, stamp int

	cl    *kgo.Client // nil until the first row, and between transactions
	txn   string      // cl's transactional id
	after int64       // the barrier the next transaction begins after
	// handed are transactions pre-committed and not known to be committed:
	// every later barrier hands them over again, so that an abandoned
	// checkpoint does not lose them.
	handed []checkpoint.PendingFile
	done   bool

	errMu sync.Mutex
	err   error // the first failed produce
}

func (w *kafkaWriter) eos() bool { return w.s.cfg.guarantee == "exactly-once" }

func (w *kafkaWriter) failed() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

func (w *kafkaWriter) promise(_ *kgo.Record, err error) {
	if err != nil {
		w.errMu.Lock()
		if w.err == nil {
			w.err = fmt.Errorf("kafka sink: topic %s: %w", w.s.topic, err)
		}
		w.errMu.Unlock()
	}
}

// begin makes the client, in a new transaction with exactly-once.
func (w *kafkaWriter) begin() error {
	if w.eos() {
		w.txn = fmt.Sprintf("%s-%d-%d", w.s.cfg.txnPrefix, w.subtask, w.after)
	}
	cl, err := w.s.producer(w.txn)
	if err != nil {
		return err
	}
	if w.eos() {
		if err := cl.BeginTransaction(); err != nil {
			cl.Close()
			return fmt.Errorf("kafka sink: transaction %s: %w", w.txn, err)
		}
	}
	w.cl = cl
	return nil
}

func (w *kafkaWriter) Write(b arrow.RecordBatch) error {
	if w.done {
		return errors.New("kafka sink: write after close")
	}
	if err := w.failed(); err != nil {
		return err
	}
	n := int(b.NumRows())
	if n == 0 {
		return nil
	}
	if w.cl == nil {
		if err := w.begin(); err != nil {
			return err
		}
	}
	vals := exec.Rekind(project(b, w.valSchema, w.valCols), b) // debezium-json writes each row's kind
	defer vals.Release()
	var keys arrow.RecordBatch
	if w.key != nil {
		keys = project(b, w.keySchema, w.keyCols)
		defer keys.Release()
	}
	// One buffer and one slice of records per batch: the client keeps
	// them until the records are acknowledged.
	buf := make([]byte, 0, 64*n) // never nil: a nil slice is a null key or value
	ends := make([]int, 0, 2*n)
	var err error
	// none marks the rows written without a value: an upsert-kafka
	// retraction is a tombstone, as is the raw format's NULL.
	var none []bool
	raw := w.s.cfg.value.name == "raw"
	for row := range n {
		if w.s.cfg.upsert && exec.KindOf(b, row).Retracts() || raw && vals.Column(0).IsNull(row) {
			if none == nil {
				none = make([]bool, n)
			}
			none[row] = true
		}
		if keys != nil {
			if buf, err = w.key.encode(buf, keys, row); err != nil {
				return fmt.Errorf("kafka sink: key: %w", err)
			}
			buf = buf[:len(buf)-1] // the line break
			ends = append(ends, len(buf))
		}
		if none == nil || !none[row] {
			if buf, err = w.val.encode(buf, vals, row); err != nil {
				return fmt.Errorf("kafka sink: %w", err)
			}
			buf = buf[:len(buf)-1]
		}
		ends = append(ends, len(buf))
	}
	recs := make([]kgo.Record, n)
	ctx := context.Background()
	start, e := 0, 0
	for i := range recs {
		r := &recs[i]
		r.Partition = w.fixed
		if w.route != nil {
			r.Partition = w.route[i]
		}
		if keys != nil {
			r.Key = buf[start:ends[e]:ends[e]]
			start = ends[e]
			e++
		}
		if none == nil || !none[i] {
			r.Value = buf[start:ends[e]:ends[e]]
		}
		start = ends[e]
		e++
		if err := w.metadata(r, b, i); err != nil {
			return err
		}
		w.cl.Produce(ctx, r, w.promise)
	}
	return nil
}

// metadata sets the headers and timestamp of the record of row i of b,
// from the metadata columns declared without VIRTUAL; NULL sets none.
func (w *kafkaWriter) metadata(r *kgo.Record, b arrow.RecordBatch, i int) error {
	if w.stamp >= 0 {
		if a := b.Column(w.stamp).(*array.Timestamp); a.IsValid(i) {
			unit := a.DataType().(*arrow.TimestampType).Unit
			r.Timestamp = time.UnixMilli(int64(a.Value(i)) * unit.Multiplier().Nanoseconds() / 1e6)
		}
	}
	if w.headers < 0 {
		return nil
	}
	a := b.Column(w.headers).(*array.String)
	if !a.IsValid(i) {
		return nil
	}
	hs, err := parseHeaders(a.Value(i))
	if err != nil {
		return fmt.Errorf("kafka sink: column '%s' (metadata 'headers'): %w", w.s.schema[w.headers].Name, err)
	}
	r.Headers = hs
	return nil
}

// parseHeaders reads headers as the source shows them: a JSON object whose
// values are strings (or null, an empty header), in order.
func parseHeaders(s string) ([]kgo.RecordHeader, error) {
	d := json.NewDecoder(strings.NewReader(s))
	bad := fmt.Errorf("%q is not a JSON object of strings", s)
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, bad
	}
	var hs []kgo.RecordHeader
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, bad
		}
		v, err := d.Token()
		if err != nil {
			return nil, bad
		}
		h := kgo.RecordHeader{Key: k.(string)}
		switch v := v.(type) {
		case string:
			h.Value = []byte(v)
		case nil:
		default:
			return nil, bad
		}
		hs = append(hs, h)
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, bad
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, bad
	}
	return hs, nil
}

// project returns the columns idx of b as a batch of schema s.
func project(b arrow.RecordBatch, s *arrow.Schema, idx []int) arrow.RecordBatch {
	arrs := make([]arrow.Array, len(idx))
	for i, j := range idx {
		arrs[i] = b.Column(j)
	}
	return array.NewRecordBatch(s, arrs, b.NumRows())
}

func (w *kafkaWriter) flush() error {
	if w.cl == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
	defer cancel()
	if err := w.cl.Flush(ctx); err != nil {
		return fmt.Errorf("kafka sink: flush: %w", err)
	}
	return w.failed()
}

// PreCommit implements exec.PreCommitter. With exactly-once it flushes
// the transaction and hands it over open, with the producer id and epoch
// that the commit needs; at-least-once only flushes, none does nothing.
func (w *kafkaWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	switch w.s.cfg.guarantee {
	case "none":
		return nil, w.failed()
	case "at-least-once":
		return nil, w.flush()
	}
	if w.cl != nil {
		if err := w.flush(); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
		pid, epoch, err := w.cl.ProducerID(ctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("kafka sink: transaction %s: %w", w.txn, err)
		}
		w.handed = append(w.handed, checkpoint.PendingFile{Subtask: w.subtask, Tmp: w.txn,
			Txn: &checkpoint.PendingTxn{ID: w.txn, Producer: pid, Epoch: epoch}})
		w.cl.Close() // the transaction stays open for the commit
		w.cl = nil
	}
	w.after = id
	w.handed = slices.DeleteFunc(w.handed, func(p checkpoint.PendingFile) bool { return w.s.forget(*p.Txn) })
	return slices.Clone(w.handed), nil
}

// Close commits what was written since the last barrier: the job
// succeeded (without checkpoints that is everything). When the flush or
// the commit fails, Close aborts the transaction itself, as Abort does,
// before returning the error (joined with the abort's if that fails too):
// a transaction left open would hold back read_committed readers of the
// topic (its last stable offset) until the broker's transaction timeout.
// The Abort that follows a failed Close has nothing left to do.
func (w *kafkaWriter) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.cl == nil {
		return nil
	}
	if err := w.commit(); err != nil {
		return errors.Join(err, w.abort())
	}
	w.cl.Close()
	w.cl = nil
	return nil
}

// commit flushes the open transaction and, with exactly-once, commits it.
func (w *kafkaWriter) commit() error {
	if err := w.flush(); err != nil {
		return err
	}
	if !w.eos() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
	defer cancel()
	if err := w.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("kafka sink: committing transaction %s: %w", w.txn, err)
	}
	return nil
}

// Abort aborts the open transaction. Pre-committed ones belong to their
// checkpoints: the restore commits or aborts them.
func (w *kafkaWriter) Abort() error {
	w.done = true
	return w.abort()
}

// abort closes the client, dropping the records it has not sent, and
// aborts its open transaction on the broker by fencing the transactional
// id, as a restore does: InitProducerID bumps the id's epoch, which aborts
// the transaction and refuses any record of the old epoch still in flight.
// The client's own abort (EndTransaction with TryAbort) is not enough after
// a failed flush or commit: franz-go then may return success without
// ending the transaction, leaving that to a reload of the producer id that
// a closed client never does.
func (w *kafkaWriter) abort() error {
	if w.cl == nil {
		return nil
	}
	w.cl.Close()
	w.cl = nil
	if !w.eos() {
		return nil
	}
	admin, err := w.s.adminClient()
	if err != nil {
		return fmt.Errorf("kafka sink: aborting transaction %s: %w", w.txn, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
	defer cancel()
	return w.s.fence(ctx, admin, w.txn)
}

// forget reports whether txn is committed, and if so forgets it: the
// writer that hands it over stops doing so, so the set stays small in a
// long run.
func (s *kafkaSink) forget(txn checkpoint.PendingTxn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.committed[txn] {
		return false
	}
	delete(s.committed, txn)
	return true
}

func (s *kafkaSink) isCommitted(txn checkpoint.PendingTxn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.committed[txn]
}

// Commit implements exec.Committer: EndTxn commits each transaction as its
// producer (id and epoch). A transaction already committed, by this run
// before a crash or by an earlier restore, is a successful retry.
func (s *kafkaSink) Commit(pending []checkpoint.PendingFile) error {
	for _, p := range pending {
		if p.Txn == nil || s.isCommitted(*p.Txn) {
			continue
		}
		if err := s.endTxn(p.Txn); err != nil {
			return err
		}
		s.mu.Lock()
		s.committed[*p.Txn] = true
		s.mu.Unlock()
	}
	return nil
}

func (s *kafkaSink) endTxn(t *checkpoint.PendingTxn) error {
	cl, err := s.adminClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
	defer cancel()
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = t.ID, t.Producer, t.Epoch, true
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if errors.Is(err, kerr.ConcurrentTransactions) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			return fmt.Errorf("kafka sink: committing transaction %s (producer %d, epoch %d): %w", t.ID, t.Producer, t.Epoch, err)
		}
		return nil
	}
}

// Recover implements exec.Committer: it commits checkpoint id's
// transactions, then aborts the prefix's other open ones.
func (s *kafkaSink) Recover(id int64, pending []checkpoint.PendingFile) error {
	s.mu.Lock()
	s.restored = id
	s.mu.Unlock()
	if err := s.Commit(pending); err != nil {
		return err
	}
	return s.abortOpen()
}

// Clean implements exec.Committer. It aborts the open transactions of the
// prefix; rows already committed to a topic cannot be taken back.
func (s *kafkaSink) Clean(string, bool) error { return s.abortOpen() }

// abortOpen aborts the open transactions of the sink's transactional ids:
// InitProducerID for an id fences its producer and aborts its transaction.
// None of them is one this run committed: a commit's EndTxn has moved its
// transaction out of Ongoing before it returns, so an open transaction
// under an id committed before is a later use of the id.
func (s *kafkaSink) abortOpen() error {
	if s.cfg.guarantee != "exactly-once" {
		return nil
	}
	cl, err := s.adminClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), sinkTimeout)
	defer cancel()
	txns, err := kadm.NewClient(cl).ListTransactions(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("kafka sink: listing transactions: %w", err)
	}
	for _, t := range txns.Sorted() {
		if t.State != "Ongoing" || !s.ids.MatchString(t.TxnID) {
			continue
		}
		if err := s.fence(ctx, cl, t.TxnID); err != nil {
			return err
		}
	}
	return nil
}

func (s *kafkaSink) fence(ctx context.Context, cl *kgo.Client, txn string) error {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &txn
	req.TransactionTimeoutMillis = int32(s.cfg.client.txnTimeout.Milliseconds())
	req.ProducerID, req.ProducerEpoch = -1, -1
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if errors.Is(err, kerr.ConcurrentTransactions) && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond) // a real broker aborts asynchronously
			continue
		}
		if err != nil {
			return fmt.Errorf("kafka sink: aborting transaction %s: %w", txn, err)
		}
		return nil
	}
}
