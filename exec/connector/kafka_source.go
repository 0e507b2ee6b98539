package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaSource reads topics; each partition is a split, "<topic>-<p>".
type kafkaSource struct {
	schema types.Schema
	meta   []string // per column, its metadata key; nil if none
	cfg    kafkaConfig
	arrow  *arrow.Schema
	// parts of the record: the key's columns (only with EXCEPT_KEY; with
	// ALL the value has them), the value's and the metadata's, as
	// indexes into schema.
	keyCols, valueCols, metaCols []int
	// keySchema are the key's columns as its format names them (without
	// key.fields-prefix), nil without a key format.
	keySchema types.Schema

	once sync.Once
	err  error
	// smu guards splits and ranges, which partition discovery extends,
	// and when it last looked.
	smu        sync.Mutex
	splits     []exec.Split
	ranges     map[string]partRange
	discovered time.Time

	mu       sync.Mutex
	fetchers map[int]*fetcher // by subtask

	committing atomic.Bool // a group commit is under way
}

// partRange is where a partition's reading starts and stops (stop < 0:
// never), resolved once per run from the startup and bounded modes.
type partRange struct {
	topic       string
	part        int32
	start, stop int64
	// earliest is the partition's first offset when it was found, where
	// a new split (exec.Split.New) starts.
	earliest int64
}

// adminTimeout bounds each metadata and offset request of a source.
const adminTimeout = 30 * time.Second

func newKafkaSource(t Table, c kafkaConfig) *kafkaSource {
	s := &kafkaSource{schema: t.Schema, meta: t.Metadata, cfg: c, arrow: t.Schema.Arrow(), valueCols: c.valueCols, fetchers: map[int]*fetcher{}}
	// With value.fields-include ALL the value holds the key fields too,
	// and its values win, as in Flink: the key is not decoded.
	if c.key != nil && !slices.Contains(c.valueCols, c.keyCols[0]) {
		s.keyCols = c.keyCols
	}
	if c.key != nil {
		s.keySchema = cols(t.Schema, c.keyCols)
		for i := range s.keySchema {
			s.keySchema[i].Name = strings.TrimPrefix(s.keySchema[i].Name, c.keyPrefix)
		}
	}
	for i, k := range t.Metadata {
		if k != "" {
			s.metaCols = append(s.metaCols, i)
		}
	}
	return s
}

func (s *kafkaSource) Schema() types.Schema { return s.schema }

// discoveringKafka is a kafka source with partition discovery.
type discoveringKafka struct{ *kafkaSource }

// DiscoverEvery implements exec.Discovering.
func (s discoveringKafka) DiscoverEvery() time.Duration { return s.cfg.discovery }

func (s *kafkaSource) Bounded() bool { return s.cfg.bound.mode != "" }

// Splits resolves the topics and their partitions, and each partition's
// start and stop offsets, once: every subtask sees the same splits. With
// partition discovery, a call at least the interval after the last
// looks again, and appends the partitions it finds (discover).
func (s *kafkaSource) Splits() ([]exec.Split, error) {
	s.once.Do(func() { s.err = s.resolve() })
	if s.err != nil {
		return nil, s.err
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	if s.cfg.discovery > 0 && time.Since(s.discovered) >= s.cfg.discovery {
		if err := s.discover(); err != nil {
			return nil, err
		}
	}
	return slices.Clone(s.splits), nil
}

// partition returns the range of split id.
func (s *kafkaSource) partition(id string) (partRange, bool) {
	s.smu.Lock()
	defer s.smu.Unlock()
	r, ok := s.ranges[id]
	return r, ok
}

// topicPartitions lists the subscribed topics (sorted) and their
// partitions; a named topic that does not exist is an error.
func (s *kafkaSource) topicPartitions(ctx context.Context, adm *kadm.Client) ([]string, kadm.TopicDetails, error) {
	details, err := adm.ListTopics(ctx, s.cfg.topics...)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka source: listing topics: %w", err)
	}
	var topics []string
	for name, d := range details {
		switch {
		case s.cfg.pattern != nil && (d.IsInternal || !s.cfg.pattern.MatchString(name)):
		case d.Err != nil:
			return nil, nil, fmt.Errorf("kafka source: topic %s: %w", name, d.Err)
		default:
			topics = append(topics, name)
		}
	}
	for _, t := range s.cfg.topics {
		if _, ok := details[t]; !ok {
			return nil, nil, fmt.Errorf("kafka source: topic %s does not exist", t)
		}
	}
	slices.Sort(topics)
	return topics, details, nil
}

// discover appends the partitions of the subscribed topics (or of the
// topics the pattern matches now) that the source does not have yet,
// sorted, as new splits read from their earliest offset. Which subtask
// reads one depends on when it is found (its index), not on the data:
// results stay exact, but which subtask's watermark a new partition holds
// back, and so which rows of it are late, depends on that timing.
func (s *kafkaSource) discover() error {
	s.discovered = time.Now()
	return s.withAdmin(s.discoverWith)
}

// withAdmin calls f with an admin client and a context of adminTimeout.
func (s *kafkaSource) withAdmin(f func(context.Context, *kadm.Client) error) error {
	cl, err := s.cfg.client.newClient()
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	return f(ctx, kadm.NewClient(cl))
}

func (s *kafkaSource) discoverWith(ctx context.Context, adm *kadm.Client) error {
	topics, details, err := s.topicPartitions(ctx, adm)
	if err != nil || len(topics) == 0 {
		return err
	}
	earliest, err := s.offsets(ctx, adm, topics, "start", offsetSpec{mode: "earliest-offset"}, "none")
	if err != nil {
		return err
	}
	for _, t := range topics {
		for _, p := range slices.Sorted(maps.Keys(details[t].Partitions)) {
			id := fmt.Sprintf("%s-%d", t, p)
			if _, ok := s.ranges[id]; ok {
				continue
			}
			s.splits = append(s.splits, exec.Split{ID: id, Index: len(s.splits), New: true})
			s.ranges[id] = partRange{topic: t, part: p, start: earliest[t][p], stop: -1, earliest: earliest[t][p]}
		}
	}
	return nil
}

func (s *kafkaSource) resolve() error {
	s.discovered = time.Now()
	s.ranges = map[string]partRange{}
	return s.withAdmin(s.resolveWith)
}

func (s *kafkaSource) resolveWith(ctx context.Context, adm *kadm.Client) error {
	topics, details, err := s.topicPartitions(ctx, adm)
	if err != nil || len(topics) == 0 {
		return err
	}
	starts, err := s.offsets(ctx, adm, topics, "start", s.cfg.start, s.cfg.client.reset)
	if err != nil {
		return err
	}
	var stops map[string]map[int32]int64
	if s.cfg.bound.mode != "" {
		if stops, err = s.offsets(ctx, adm, topics, "stop", s.cfg.bound, "none"); err != nil {
			return err
		}
	}
	earliest := starts
	if s.cfg.discovery > 0 && s.cfg.start.mode != "earliest-offset" {
		if earliest, err = s.offsets(ctx, adm, topics, "start", offsetSpec{mode: "earliest-offset"}, "none"); err != nil {
			return err
		}
	}
	for _, t := range topics {
		for _, p := range slices.Sorted(maps.Keys(details[t].Partitions)) {
			r := partRange{topic: t, part: p, start: starts[t][p], stop: -1, earliest: earliest[t][p]}
			if stops != nil {
				r.stop = stops[t][p]
			}
			id := fmt.Sprintf("%s-%d", t, p)
			s.splits = append(s.splits, exec.Split{ID: id, Index: len(s.splits)})
			s.ranges[id] = r
		}
	}
	return nil
}

// offsets resolves spec to the what (start or stop) offset of each
// partition of topics; reset is
// what a partition without a committed group offset does (earliest,
// latest or none: an error).
func (s *kafkaSource) offsets(ctx context.Context, adm *kadm.Client, topics []string, what string, spec offsetSpec, reset string) (map[string]map[int32]int64, error) {
	fail := func(err error) error { return fmt.Errorf("kafka source: %s offsets (%s): %w", what, spec.mode, err) }
	list := func(f func(context.Context, ...string) (kadm.ListedOffsets, error)) (map[string]map[int32]int64, error) {
		l, err := f(ctx, topics...)
		if err == nil {
			err = l.Error()
		}
		if err != nil {
			return nil, fail(err)
		}
		out := map[string]map[int32]int64{}
		l.Each(func(o kadm.ListedOffset) {
			if out[o.Topic] == nil {
				out[o.Topic] = map[int32]int64{}
			}
			out[o.Topic][o.Partition] = o.Offset
		})
		return out, nil
	}
	latest := adm.ListEndOffsets
	if s.cfg.client.readCommitted {
		latest = adm.ListCommittedOffsets // the last stable offset
	}
	switch spec.mode {
	case "earliest-offset":
		return list(adm.ListStartOffsets)
	case "latest-offset":
		return list(latest)
	case "timestamp":
		after, err := list(func(ctx context.Context, t ...string) (kadm.ListedOffsets, error) {
			return adm.ListOffsetsAfterMilli(ctx, spec.millis, t...)
		})
		if err != nil {
			return nil, err
		}
		end, err := list(latest)
		for t, ps := range after {
			for p, o := range ps {
				if o < 0 { // no record at or after the time
					ps[p] = end[t][p]
				}
			}
		}
		return after, err
	}
	// group-offsets and specific-offsets; a partition without a specific
	// offset starts at the group's, as in Flink.
	earliest, err := list(adm.ListStartOffsets)
	if err != nil {
		return nil, err
	}
	end, err := list(latest)
	if err != nil {
		return nil, err
	}
	var committed kadm.OffsetResponses
	if s.cfg.client.group != "" {
		if committed, err = adm.FetchOffsets(ctx, s.cfg.client.group); err == nil {
			err = committed.Error()
		}
		if errors.Is(err, kerr.GroupIDNotFound) { // a group that never committed
			committed, err = nil, nil
		}
		if err != nil {
			return nil, fail(err)
		}
	}
	if spec.mode == "specific-offsets" && reset == "none" {
		reset = "earliest"
	}
	for t, ps := range earliest {
		for p := range ps {
			if o, ok := spec.specific[p]; ok && spec.mode == "specific-offsets" {
				ps[p] = o
				continue
			}
			if c, ok := committed.Lookup(t, p); ok && c.At >= 0 {
				ps[p] = c.At
				continue
			}
			switch reset {
			case "latest":
				ps[p] = end[t][p]
			case "none":
				return nil, fail(fmt.Errorf("group %q has no committed offset for topic %s partition %d (set 'properties.auto.offset.reset')", s.cfg.client.group, t, p))
			}
		}
	}
	return earliest, nil
}

// Completed implements exec.Notified: with a group id, the positions of a
// completed checkpoint are committed to the group, in the background and
// for monitoring only (a restore uses the checkpoint's own). A commit still
// under way when the next checkpoint completes makes that one skip.
func (s *kafkaSource) Completed(splits []checkpoint.SplitState) {
	if s.cfg.client.group == "" || !s.committing.CompareAndSwap(false, true) {
		return
	}
	offs := kadm.Offsets{}
	for _, sp := range splits {
		if r, ok := s.partition(sp.ID); ok && sp.Pos > 0 {
			offs.Add(kadm.Offset{Topic: r.topic, Partition: r.part, At: sp.Pos - 1, LeaderEpoch: -1})
		}
	}
	if len(offs) == 0 {
		s.committing.Store(false)
		return
	}
	go func() {
		defer s.committing.Store(false)
		cl, err := s.cfg.client.newClient()
		if err != nil {
			return
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		_, _ = kadm.NewClient(cl).CommitOffsets(ctx, s.cfg.client.group, offs) // monitoring only: a failure costs nothing
	}()
}

func (s *kafkaSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	if _, err := s.Splits(); err != nil {
		return nil, err
	}
	pr, ok := s.partition(split.ID)
	if !ok {
		return nil, fmt.Errorf("kafka source: no partition %s", split.ID)
	}
	if split.New {
		pr.start = pr.earliest // found later, or unknown to the checkpoint: read from its start, as Flink
	}
	if ro.BatchSize <= 0 {
		ro.BatchSize = 1024
	}
	r := &kafkaReader{src: s, pr: pr, next: pr.start, line: off.Line, ro: ro, vb: newBatch(cols(s.schema, s.valueCols))}
	if off.Pos > 0 {
		r.next = off.Pos - 1
	}
	r.vdec = s.cfg.value.decoder(cols(s.schema, s.valueCols))
	switch {
	case s.keyCols != nil:
		r.kb = newBatch(s.keySchema)
		r.kdec = s.cfg.key.decoder(s.keySchema)
	case s.cfg.upsert:
		// The value has the key's columns; a tombstone's come from its
		// key, decoded aside.
		r.tk = newBatch(s.keySchema)
		r.kdec = s.cfg.key.decoder(s.keySchema)
	}
	r.mb = newBatch(cols(s.schema, s.metaCols))
	for _, b := range []*batch{r.vb, r.kb, r.tk, r.mb} {
		if b != nil {
			b.use(ro.Alloc)
		}
	}
	if pr.stop >= 0 && r.next >= pr.stop {
		r.eof = true
		return r, nil
	}
	s.mu.Lock()
	f := s.fetchers[ro.Subtask]
	if f == nil {
		f = &fetcher{src: s, subtask: ro.Subtask, readers: map[topicPart]*kafkaReader{}}
		s.fetchers[ro.Subtask] = f
	}
	s.mu.Unlock()
	r.f = f
	f.add(r)
	return r, nil
}

func cols(s types.Schema, idx []int) types.Schema {
	out := make(types.Schema, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

type topicPart struct {
	topic string
	part  int32
}

// fetcher is one subtask's Kafka consumer: one client, one fetch loop,
// for every partition the subtask reads. Its readers are called from the
// subtask's goroutine only; mu guards what Close may change from another.
type fetcher struct {
	src     *kafkaSource
	subtask int
	mu      sync.Mutex
	cl      *kgo.Client
	readers map[topicPart]*kafkaReader
	added   map[string]map[int32]kgo.Offset // to add to the client
}

func (f *fetcher) add(r *kafkaReader) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readers[topicPart{r.pr.topic, r.pr.part}] = r
	if f.added == nil {
		f.added = map[string]map[int32]kgo.Offset{}
	}
	if f.added[r.pr.topic] == nil {
		f.added[r.pr.topic] = map[int32]kgo.Offset{}
	}
	f.added[r.pr.topic][r.pr.part] = kgo.NewOffset().At(r.next)
}

// remove stops fetching r's partition; the last reader closes the client.
func (f *fetcher) remove(r *kafkaReader) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tp := topicPart{r.pr.topic, r.pr.part}
	if f.readers[tp] != r {
		return
	}
	delete(f.readers, tp)
	if f.added[tp.topic] != nil {
		delete(f.added[tp.topic], tp.part)
	}
	if f.cl == nil {
		return
	}
	if len(f.readers) > 0 {
		f.cl.RemoveConsumePartitions(map[string][]int32{tp.topic: {tp.part}})
		return
	}
	f.cl.Close()
	f.cl = nil
	f.src.mu.Lock()
	if f.src.fetchers[f.subtask] == f {
		delete(f.src.fetchers, f.subtask)
	}
	f.src.mu.Unlock()
}

// pollWait is how long a poll waits when none of the subtask's partitions
// has a record ready: Next never blocks for long.
const pollWait = 50 * time.Millisecond

// poll hands the fetched records to their readers. It waits up to
// pollWait only if no reader of the subtask has a record queued.
func (f *fetcher) poll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.added) > 0 {
		var todo map[string]map[int32]kgo.Offset
		todo, f.added = f.added, nil
		if f.cl == nil {
			o := []kgo.Opt{kgo.ConsumePartitions(todo), kgo.KeepControlRecords()}
			if f.src.cfg.client.readCommitted {
				o = append(o, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
			}
			cl, err := f.src.cfg.client.newClient(o...)
			if err != nil {
				return err
			}
			f.cl = cl
		} else {
			f.cl.AddConsumePartitions(todo)
		}
	}
	if f.cl == nil {
		return nil
	}
	cl := f.cl
	fs := cl.PollRecords(nil, 0)
	if fs.Empty() && !f.queued() {
		ctx, cancel := context.WithTimeout(context.Background(), pollWait)
		f.mu.Unlock()
		fs = cl.PollRecords(ctx, 0)
		f.mu.Lock()
		cancel()
	}
	var err error
	fs.EachError(func(t string, p int32, e error) {
		if err == nil && !errors.Is(e, context.DeadlineExceeded) && !errors.Is(e, context.Canceled) && !errors.Is(e, kgo.ErrClientClosed) {
			err = fmt.Errorf("kafka source: topic %s partition %d: %w", t, p, e)
		}
	})
	if err != nil {
		return err
	}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if r := f.readers[topicPart{p.Topic, p.Partition}]; r != nil {
			r.queue = append(r.queue, p.Records...)
		}
	})
	return nil
}

func (f *fetcher) queued() bool {
	for _, r := range f.readers {
		if len(r.queue) > 0 {
			return true
		}
	}
	return false
}

// kafkaReader reads one partition. Offset.Pos is the next Kafka offset to
// read plus one (0: not positioned, the startup mode decides) and
// Offset.Line the number of records consumed.
type kafkaReader struct {
	src   *kafkaSource
	f     *fetcher // nil once done
	pr    partRange
	ro    exec.ReadOptions
	queue []*kgo.Record
	next  int64 // offset of the next record
	line  int64
	eof   bool
	err   error
	// kb, vb and mb gather the key's, value's and metadata's columns of
	// the same rows; kb is nil unless the key is decoded.
	kb, vb, mb *batch
	kdec, vdec decoder
	// tk holds the key of an upsert-kafka tombstone when the value has
	// the key's columns (value.fields-include ALL).
	tk *batch
	// marks, for a repartition topic, are its writers' watermarks: the
	// partition ends when they are all at the end of time.
	marks *marks
}

func (r *kafkaReader) Next() (arrow.RecordBatch, error) {
	if r.err != nil {
		return nil, r.err
	}
	bad := 0
	defer func() {
		if bad > 0 && r.ro.Metrics != nil {
			r.ro.Metrics.BadRows.Add(int64(bad))
		}
	}()
	polled := false
	for !r.eof && r.vb.n < r.ro.BatchSize {
		if len(r.queue) == 0 {
			if polled || r.vb.n > 0 {
				break
			}
			if r.err = r.f.poll(); r.err != nil {
				return nil, r.err
			}
			polled = true
			continue
		}
		rec := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		if r.pr.stop >= 0 && rec.Offset >= r.pr.stop {
			r.finish()
			break
		}
		r.next = rec.Offset + 1
		if r.marks != nil && isMark(rec) {
			if r.err = r.marks.take(rec); r.err != nil {
				return nil, r.err
			}
			if r.marks.watermark() == types.MaxWatermark {
				r.finish()
			}
			continue
		}
		if !rec.Attrs.IsControl() {
			r.line++
			skipped, err := r.take(rec)
			if err != nil {
				r.err = err
				return nil, err
			}
			if skipped {
				bad++
			}
		}
		if r.pr.stop >= 0 && r.next >= r.pr.stop {
			r.finish()
		}
	}
	if r.eof && r.vb.n == 0 {
		return nil, io.EOF
	}
	return r.flush(), nil
}

func (r *kafkaReader) finish() {
	r.eof = true
	r.queue = nil
	if r.f != nil {
		r.f.remove(r)
		r.f = nil
	}
}

// take decodes one record into its rows: one, two for a debezium-json
// update, none for a blank value. A tombstone (no value) is a deletion of
// its key in upsert-kafka, a NULL in the raw format, and otherwise no row.
// A malformed key or value is an error naming the topic, partition and
// offset, or, with ignore-parse-errors, skipped (reported).
func (r *kafkaReader) take(rec *kgo.Record) (skipped bool, err error) {
	upsert := r.src.cfg.upsert
	if rec.Value == nil && (upsert && rec.Key == nil || !upsert && r.src.cfg.value.name != "raw") {
		return false, nil
	}
	n := r.vb.n
	if r.kb != nil {
		if rec.Key != nil {
			err = r.kdec.decode(rec.Key, r.kb)
		}
		if err == nil && r.kb.n == n { // no key, or a blank one: NULL key fields
			for i := range r.kb.cols {
				r.kb.cols[i].null()
			}
			r.kb.commit()
		}
		if err != nil {
			return r.bad(rec, err, r.src.cfg.key.ignore, "key")
		}
	}
	part := "value"
	switch {
	case rec.Value == nil && upsert:
		part, err = "key", r.deletion(rec)
	case rec.Value == nil: // the raw format's NULL, as Flink reads it
		r.vb.cols[0].null()
		r.vb.commit()
	default:
		err = r.vdec.decode(rec.Value, r.vb)
	}
	if err != nil || r.vb.n == n {
		if r.kb != nil {
			r.kb.drop(n)
		}
		if err != nil {
			ignore := r.src.cfg.value.ignore
			if part == "key" {
				ignore = r.src.cfg.key.ignore
			}
			return r.bad(rec, err, ignore, part)
		}
		return false, nil
	}
	for range r.vb.n - n {
		if r.kb != nil && r.kb.n < r.vb.n { // a second row of the message
			for i := range r.kb.cols {
				r.kb.cols[i].repeatLast()
			}
			r.kb.commit()
		}
		for i, c := range r.src.metaCols {
			r.meta(&r.mb.cols[i], r.src.meta[c], rec)
		}
		r.mb.commit()
	}
	return false, nil
}

// deletion adds the deletion of an upsert-kafka tombstone's key: its key
// columns, from the record's key, and NULL value columns. A blank key
// deletes nothing.
func (r *kafkaReader) deletion(rec *kgo.Record) error {
	if r.tk == nil {
		for i := range r.vb.cols {
			r.vb.cols[i].null()
		}
		r.vb.commitAs(exec.Delete)
		return nil
	}
	if err := r.kdec.decode(rec.Key, r.tk); err != nil || r.tk.n == 0 {
		return err
	}
	defer r.tk.drop(0)
	for i, c := range r.src.valueCols {
		if k := slices.Index(r.src.cfg.keyCols, c); k >= 0 {
			r.vb.cols[i].copyLast(&r.tk.cols[k])
		} else {
			r.vb.cols[i].null()
		}
	}
	r.vb.commitAs(exec.Delete)
	return nil
}

func (r *kafkaReader) bad(rec *kgo.Record, err error, ignore bool, part string) (bool, error) {
	var re *rowError
	if !errors.As(err, &re) {
		return false, fmt.Errorf("kafka source: topic %s partition %d offset %d: %w", rec.Topic, rec.Partition, rec.Offset, err)
	}
	if ignore {
		return true, nil
	}
	return false, &kafkaRowError{topic: rec.Topic, part: rec.Partition, offset: rec.Offset, in: part, col: re.col, msg: re.msg}
}

// kafkaRowError is a malformed record.
type kafkaRowError struct {
	topic   string
	part    int32
	offset  int64
	in, col string // "key" or "value", and the column if known
	msg     string
}

func (e *kafkaRowError) Error() string {
	where := fmt.Sprintf("topic %s partition %d offset %d: %s", e.topic, e.part, e.offset, e.in)
	if e.col != "" {
		return fmt.Sprintf("%s: column '%s': %s", where, e.col, e.msg)
	}
	return where + ": " + e.msg
}

// Unwrap makes errors.Is(err, exec.ErrBadRow) hold.
func (e *kafkaRowError) Unwrap() error { return exec.ErrBadRow }

// meta appends the metadata key of rec to c.
func (r *kafkaReader) meta(c *column, key string, rec *kgo.Record) {
	switch key {
	case "topic":
		c.str([]byte(rec.Topic))
	case "partition":
		c.int32(rec.Partition)
	case "offset":
		c.int64(rec.Offset)
	case "timestamp":
		c.int64(rec.Timestamp.UnixMilli())
	case "timestamp-type":
		if rec.Attrs.TimestampType() == 1 {
			c.str([]byte("LogAppendTime"))
		} else {
			c.str([]byte("CreateTime"))
		}
	case "leader-epoch":
		if rec.LeaderEpoch < 0 {
			c.null()
		} else {
			c.int32(rec.LeaderEpoch)
		}
	case "key":
		if rec.Key == nil {
			c.null()
		} else {
			c.parse(rec.Key)
		}
	case "headers":
		var b strings.Builder
		b.WriteByte('{')
		for i, h := range rec.Headers {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(appendJSONString(nil, h.Key))
			b.WriteByte(':')
			b.Write(appendJSONString(nil, string(h.Value)))
		}
		b.WriteByte('}')
		c.str([]byte(b.String()))
	}
}

// flush assembles the parts' columns in the table's order.
func (r *kafkaReader) flush() arrow.RecordBatch {
	n := r.vb.n
	arrs := make([]arrow.Array, len(r.src.schema))
	place := func(b *batch, idx []int) {
		if b == nil {
			return
		}
		rec := b.flush()
		for i, j := range idx {
			arrs[j] = rec.Column(i)
			arrs[j].Retain()
		}
		rec.Release()
	}
	kinds := r.vb.kinds // a changelog format's, handed over with the batch
	r.vb.kinds = nil
	place(r.kb, r.src.keyCols)
	place(r.vb, r.src.valueCols)
	place(r.mb, r.src.metaCols)
	out := array.NewRecordBatch(r.src.arrow, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return exec.WithKinds(out, kinds)
}

func (r *kafkaReader) Offset() exec.Offset {
	off := exec.Offset{Pos: r.next + 1, Line: r.line}
	if r.marks != nil {
		off.State = r.marks.String()
	}
	return off
}

func (r *kafkaReader) Close() error {
	if r.f != nil {
		r.f.remove(r)
		r.f = nil
	}
	r.eof = true
	return nil
}
