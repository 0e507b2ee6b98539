package connector

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/types"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Repartition is the topic through which cluster members shuffle the rows
// of a keyed operator whose key the sources' splits are not partitioned
// by (the Kafka Streams model). It has one partition per key group: every
// member writes each row to the partition of its key's group, and reads
// back the partitions of the key groups it owns (exec.Members).
//
// The writer is the exactly-once kafka sink: rows between two barriers
// are one transaction, committed when the member's checkpoint completes,
// and the reader reads with read_committed, so a member that crashes and
// restores its checkpoint writes again exactly what was aborted. Records
// are the operator's input row as JSON.
//
// Watermarks travel in the topic too. At each barrier, and when its input
// ends, a writer whose watermark advanced writes a mark to every
// partition (a record without a value, with headers naming the writer,
// member/subtask/subtasks, and its watermark). A partition's watermark is
// the least over every writer of every member, and the smallest until
// each has written one; it ends once every writer's mark is at the end of
// time. A writer's rows after its mark are not late at that mark (the
// sources decided lateness), so no row of a partition is behind the
// partition's watermark. The marks a reader has seen are part of its
// split state in the checkpoint, as the offset is.
type Repartition struct {
	cfg     kafkaConfig
	schema  types.Schema
	keys    []int
	parts   int
	members exec.Members
	bounded bool

	once sync.Once
	err  error
}

// RepartitionConfig describes a repartition topic.
type RepartitionConfig struct {
	// Props are the Kafka client's properties.* options (the brokers),
	// taken from the table the shuffled rows come from.
	Props map[string]string
	Topic string
	// Schema is the rows', Keys the key columns they are shuffled by.
	Schema types.Schema
	Keys   []int
	// Partitions is the number of key groups.
	Partitions int
	Members    exec.Members
	// Bounded says the rows end (every source before it is bounded).
	Bounded bool
}

// Headers of a repartition topic's watermark marks.
const (
	markWatermark = "strand-watermark"
	markWriter    = "strand-writer" // member/subtask/subtasks
)

// NewRepartition checks the options and returns the topic's sink and
// source.
func NewRepartition(rc RepartitionConfig) (*Repartition, error) {
	opts := map[string]string{"connector": "kafka", "topic": rc.Topic, "format": "json",
		"scan.startup.mode": "earliest-offset", "sink.delivery-guarantee": "exactly-once",
		"sink.transactional-id-prefix": rc.Topic + rc.Members.Suffix(), "sink.partitioner": "fixed"}
	for k, v := range rc.Props {
		switch k {
		case "properties.group.id", "properties.isolation.level", "properties.auto.offset.reset":
		default:
			if strings.HasPrefix(k, "properties.") {
				opts[k] = v
			}
		}
	}
	// JSON fields by position: the rows' column names need not be unique.
	schema := make(types.Schema, len(rc.Schema))
	for i, f := range rc.Schema {
		schema[i] = types.Field{Name: "c" + strconv.Itoa(i), Type: f.Type.Plain()}
	}
	c, err := parseKafka(Table{Name: rc.Topic, Schema: schema, Options: opts})
	if err != nil {
		return nil, fmt.Errorf("repartition topic %s: %w", rc.Topic, err)
	}
	return &Repartition{cfg: c, schema: schema, keys: rc.Keys, parts: rc.Partitions, members: rc.Members, bounded: rc.Bounded}, nil
}

// ensure creates the topic, once, if it does not exist yet.
func (r *Repartition) ensure() error {
	r.once.Do(func() {
		cl, err := r.cfg.client.newClient()
		if err != nil {
			r.err = err
			return
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		resp, err := kadm.NewClient(cl).CreateTopic(ctx, int32(r.parts), -1, nil, r.cfg.topics[0])
		if err == nil {
			err = resp.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			r.err = fmt.Errorf("repartition topic %s: %w", r.cfg.topics[0], err)
		}
	})
	return r.err
}

// Owns reports whether this member reads the topic's split s: the
// partition of a key group it owns.
func (r *Repartition) Owns(s exec.Split) bool { return r.members.OwnsKeyGroup(s.Index, r.parts) }

// Sink is the writing end.
func (r *Repartition) Sink() exec.Sink {
	return &repartSink{kafkaSink: newKafkaSink(Table{Name: r.cfg.topics[0], Schema: r.schema}, r.cfg), r: r}
}

// Source is the reading end.
func (r *Repartition) Source() exec.Source {
	return &repartSource{kafkaSource: newKafkaSource(Table{Name: r.cfg.topics[0], Schema: r.schema}, r.cfg), r: r}
}

type repartSink struct {
	*kafkaSink
	r *Repartition
}

func (s *repartSink) Open(out types.Schema, subtask, n int) (exec.SinkWriter, error) {
	if err := s.r.ensure(); err != nil {
		return nil, err
	}
	w, err := s.kafkaSink.Open(s.r.schema, subtask, n)
	if err != nil {
		return nil, err
	}
	kw := w.(*kafkaWriter)
	return &repartWriter{kafkaWriter: kw, r: s.r, hasher: exec.KeyHasher{Keys: s.r.keys}, n: n,
		wm: types.MinWatermark, sent: types.MinWatermark}, nil
}

// repartWriter is one subtask's writer: rows to their key group's
// partition, and its watermark marks.
type repartWriter struct {
	*kafkaWriter
	r        *Repartition
	hasher   exec.KeyHasher
	n        int   // the writing vertex's parallelism
	wm, sent int64 // the input's watermark, and the last one marked
}

var (
	_ exec.Watermarker = (*repartWriter)(nil)
	_ exec.SinkWriter  = (*repartWriter)(nil)
)

func (w *repartWriter) Write(b arrow.RecordBatch) error {
	rows := int(b.NumRows())
	if rows == 0 {
		return nil
	}
	hs, err := w.hasher.Hashes(b, rows)
	if err != nil {
		return fmt.Errorf("repartition topic %s: %w", w.s.topic, err)
	}
	route := slices.Grow(w.route[:0], rows)[:rows]
	for i, h := range hs {
		route[i] = int32(h % uint64(w.r.parts))
	}
	w.route = route
	return w.kafkaWriter.Write(b)
}

// Watermark implements exec.Watermarker: the end of the input is marked
// at once, so that readers end; other watermarks at the next barrier.
func (w *repartWriter) Watermark(wm int64) error {
	w.wm = max(w.wm, wm)
	if w.wm == types.MaxWatermark {
		return w.mark()
	}
	return nil
}

// PreCommit marks the watermark, if it advanced, in the transaction the
// barrier ends.
func (w *repartWriter) PreCommit(id int64) ([]checkpoint.PendingFile, error) {
	if err := w.mark(); err != nil {
		return nil, err
	}
	return w.kafkaWriter.PreCommit(id)
}

// mark writes the watermark to every partition if it advanced.
func (w *repartWriter) mark() error {
	if w.wm <= w.sent {
		return nil
	}
	if w.cl == nil {
		if err := w.begin(); err != nil {
			return err
		}
	}
	hs := []kgo.RecordHeader{
		{Key: markWatermark, Value: strconv.AppendInt(nil, w.wm, 10)},
		{Key: markWriter, Value: fmt.Appendf(nil, "%d/%d/%d", w.r.members.Index, w.subtask, w.n)},
	}
	for p := range w.r.parts {
		w.cl.Produce(context.Background(), &kgo.Record{Partition: int32(p), Headers: hs}, w.promise)
	}
	w.sent = w.wm
	return w.failed()
}

type repartSource struct {
	*kafkaSource
	r *Repartition
}

func (s *repartSource) Bounded() bool { return s.r.bounded }

func (s *repartSource) Splits() ([]exec.Split, error) {
	if err := s.r.ensure(); err != nil {
		return nil, err
	}
	return s.kafkaSource.Splits()
}

func (s *repartSource) Open(split exec.Split, off exec.Offset, ro exec.ReadOptions) (exec.SplitReader, error) {
	m, err := parseMarks(off.State, s.r.members.Count)
	if err != nil {
		return nil, fmt.Errorf("repartition topic %s: split %s: %w", s.r.cfg.topics[0], split.ID, err)
	}
	r, err := s.kafkaSource.Open(split, off, ro)
	if err != nil {
		return nil, err
	}
	kr := r.(*kafkaReader)
	kr.marks = m
	return repartReader{kr}, nil
}

// repartReader reads one partition, its watermark from the marks.
type repartReader struct{ *kafkaReader }

func (r repartReader) Watermark() int64 { return r.marks.watermark() }

// marks are the watermarks the writers marked in one partition.
type marks struct {
	members int
	// subtasks[m] is member m's number of writers, 0 until one is seen;
	// wms[m][s] its subtask s's watermark.
	subtasks []int
	wms      []map[int]int64
}

func newMarks(members int) *marks {
	m := &marks{members: max(members, 1), subtasks: make([]int, max(members, 1)), wms: make([]map[int]int64, max(members, 1))}
	for i := range m.wms {
		m.wms[i] = map[int]int64{}
	}
	return m
}

// isMark reports whether rec is a watermark mark.
func isMark(rec *kgo.Record) bool {
	return rec.Value == nil && len(rec.Headers) == 2 && rec.Headers[0].Key == markWatermark
}

// take records the mark rec.
func (m *marks) take(rec *kgo.Record) error {
	wm, err := strconv.ParseInt(string(rec.Headers[0].Value), 10, 64)
	if err != nil {
		return fmt.Errorf("topic %s partition %d offset %d: bad watermark mark %q", rec.Topic, rec.Partition, rec.Offset, rec.Headers[0].Value)
	}
	return m.set(string(rec.Headers[1].Value), wm)
}

// set records writer's (member/subtask/subtasks) watermark wm.
func (m *marks) set(writer string, wm int64) error {
	var mem, sub, n int
	if _, err := fmt.Sscanf(writer, "%d/%d/%d", &mem, &sub, &n); err != nil || mem < 0 || mem >= m.members || sub < 0 || sub >= n {
		return fmt.Errorf("watermark mark of writer %q, not one of %d members' writers", writer, m.members)
	}
	m.subtasks[mem] = n
	m.wms[mem][sub] = max(m.wms[mem][sub], wm)
	return nil
}

// watermark is the least watermark over every writer, the smallest until
// each has marked one.
func (m *marks) watermark() int64 {
	wm := types.MaxWatermark
	for mem, n := range m.subtasks {
		if n == 0 || len(m.wms[mem]) < n {
			return types.MinWatermark
		}
		for _, w := range m.wms[mem] {
			wm = min(wm, w)
		}
	}
	return wm
}

// String encodes the marks for the checkpoint: writer=watermark, by
// commas, in order.
func (m *marks) String() string {
	var parts []string
	for mem, n := range m.subtasks {
		for _, sub := range slices.Sorted(maps.Keys(m.wms[mem])) {
			parts = append(parts, fmt.Sprintf("%d/%d/%d=%d", mem, sub, n, m.wms[mem][sub]))
		}
	}
	return strings.Join(parts, ",")
}

// parseMarks decodes String's encoding.
func parseMarks(s string, members int) (*marks, error) {
	m := newMarks(members)
	if s == "" {
		return m, nil
	}
	for _, p := range strings.Split(s, ",") {
		writer, v, ok := strings.Cut(p, "=")
		wm, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("bad watermark marks %q in the checkpoint", s)
		}
		if err := m.set(writer, wm); err != nil {
			return nil, err
		}
	}
	return m, nil
}
