package exec

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// SessionTVF is the SESSION window table function without an aggregate
// right over it (Flink 1.19's session window TVF): it emits each row with
// window_start, window_end and window_time of the session it ends up in,
// once that session fires. Which session a row is in depends on the rows
// after it, so the rows wait: their sessions are a window.Sessions without
// aggregates, keyed by the PARTITION BY columns (the hash exchange in front
// routes by them), and the rows themselves are in the operator's state
// store, per key group of their key, under state "R":
//
//	key:   the partition key (normalized) | ts (8 bytes, sign flipped) | seq (8 bytes)
//	value: the row, every column's normalized key
//
// A session [start, end) of a key fires (Sessions.Fire) with the key's
// rows from its start to its end: its rows are the first of the key in the
// store, since those of the key's earlier sessions went when they fired,
// and they go with one range deletion. The rows of a session come out in
// time order (rows of equal time in the order they arrived). Late rows
// (time before the watermark, the sessions' rule) and rows with a NULL
// time are counted and dropped. The output's watermark is held back as
// the session aggregate's is (SessionHold).
//
// State: the sessions (spilling as a session aggregate's do) and the rows
// in the same store: the checkpointed one, or a private one in the run's
// scratch space. A checkpoint flushes the sessions and snapshots the
// store; a restore loads the sessions and writes the rows of the
// subtask's key groups into the new store.
type SessionTVF struct {
	UID       string
	In        types.Schema
	TimeCol   int
	Partition []int
	Gap       int64
	Out       types.Schema

	sessionRun
	alloc  memory.Allocator
	batch  int
	maxPar int
	lo, hi int
	wm     int64
	seq    uint64
	store  *state.Store
	tmp    string
	writes *state.Batch
	sorted *state.Sorted

	keyEnc, rowEnc memseg.KeyEncoder
	types          []memseg.Type
	key, row       []byte
	scratch        []byte
	out            *array.RecordBuilder
	rows           int
}

// sessionRows names the rows a SessionTVF holds.
const sessionRows = "R"

// NewSessionTVF returns the operator, checking that every column can be
// kept.
func NewSessionTVF(uid string, in types.Schema, timeCol int, partition []int, gap int64, out types.Schema) (*SessionTVF, error) {
	t := &SessionTVF{UID: uid, In: in, TimeCol: timeCol, Partition: partition, Gap: gap, Out: out, wm: types.MinWatermark}
	for _, f := range in {
		mt, err := memseg.TypeOf(f.Type.Arrow())
		if err != nil {
			return nil, fmt.Errorf("a SESSION window TVF keeps its rows until their sessions fire: column %s: %w", f.Name, err)
		}
		t.types = append(t.types, mt)
	}
	if _, err := window.NewSessions(t.spec(4096), memory.DefaultAllocator); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *SessionTVF) spec(batch int) window.Spec {
	return window.Spec{Window: window.Assigner{Kind: window.Session, Size: t.Gap, Slide: t.Gap}, In: t.In, TimeCol: t.TimeCol, Keys: t.Partition, BatchSize: batch}
}

// MinSegments is the fewest segments of managed memory its sessions take
// (OpSpec.MemorySegments).
func (t *SessionTVF) MinSegments() int {
	spec := t.spec(0)
	return spec.MinSegments()
}

// Fingerprint identifies the operator's state: its input's column types,
// time column, partitioning and gap.
func (t *SessionTVF) Fingerprint() string {
	h := fnv.New64a()
	for _, f := range t.In {
		fmt.Fprintf(h, "%v;", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(h, "time %d; part %v; gap %d", t.TimeCol, t.Partition, t.Gap)
	return fmt.Sprintf("session-tvf1;%016x", h.Sum64())
}

// Open implements Opener.
func (t *SessionTVF) Open(ctx *TaskContext) error {
	t.alloc, t.batch, t.maxPar = ctx.Alloc, ctx.BatchSize, ctx.MaxParallelism
	if t.batch <= 0 {
		t.batch = 4096
	}
	s, err := window.NewSessions(t.spec(t.batch), ctx.Alloc)
	if err != nil {
		return err
	}
	t.sessionRun = sessionRun{agg: s, metrics: ctx.Metrics, sub: ctx.counters(), store: &t.store}
	t.gauge.sub = t.sub
	if ctx.Memory != nil {
		s.UseMemory(ctx.Memory)
	}
	t.lo, t.hi = KeyGroups(ctx.Subtask, ctx.MaxParallelism, ctx.Parallelism)
	if t.store, t.tmp, err = OpenStore(ctx, t.UID); err != nil {
		return err
	}
	t.writes = t.store.NewBatch()
	s.UseStore(func() (*state.Store, error) { return t.store, nil }, t.UID, t.maxPar)
	if ctx.Checkpoint == nil {
		return nil
	}
	s.Track()
	rv, err := ctx.Restored(t.UID, t.Fingerprint(), t.lo, t.hi)
	if err != nil || rv == nil {
		return err
	}
	err = rv.Scan("", func(kg uint16, name string, key, value []byte) error {
		if name != sessionRows {
			return s.Load(kg, name, key, value)
		}
		if len(key) < 16 {
			return fmt.Errorf("%w: a session row's key of %d bytes", memseg.ErrCorrupt, len(key))
		}
		t.seq = max(t.seq, binary.BigEndian.Uint64(key[len(key)-8:])+1)
		t.writes.Set(t.UID, kg, sessionRows, key, value)
		return CommitLarge(t.writes)
	})
	if err != nil {
		return err
	}
	if err := s.Restored(); err != nil {
		return err
	}
	return t.writes.Commit()
}

func (t *SessionTVF) kg(key []byte) uint16 { return uint16(KeyGroup(key, t.maxPar)) }

// Process implements Operator: it keeps the rows that are not late and
// places them in their sessions.
func (t *SessionTVF) Process(b arrow.RecordBatch, _ Emitter) error {
	if err := t.keyEnc.Reset(b, t.Partition); err != nil {
		return err
	}
	all := make([]int, len(t.In))
	for i := range all {
		all[i] = i
	}
	if err := t.rowEnc.Reset(b, all); err != nil {
		return err
	}
	ts := b.Column(t.TimeCol).(*array.Timestamp)
	for i, v := range ts.TimestampValues() {
		if ts.IsNull(i) || int64(v) < t.wm {
			continue // Add counts it
		}
		t.row = t.keyEnc.Append(t.row[:0], i)
		kg := t.kg(t.row)
		t.key = rowTime(t.key[:0], t.row, int64(v))
		t.key = binary.BigEndian.AppendUint64(t.key, t.seq)
		t.seq++
		t.row = t.rowEnc.Append(t.row[:0], i)
		t.writes.Set(t.UID, kg, sessionRows, t.key, t.row)
		if err := CommitLarge(t.writes); err != nil {
			return err
		}
	}
	if err := t.writes.Commit(); err != nil {
		return err
	}
	return t.add(b)
}

// rowTime appends to dst the key of key's rows from time ts on: ts
// sign-flipped big-endian, so that they sort in time order.
func rowTime(dst, key []byte, ts int64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, key...), uint64(ts)^1<<63)
}

// OnWatermark implements WatermarkHandler: the sessions that end before
// wm fire with their rows.
func (t *SessionTVF) OnWatermark(wm int64, out Emitter) error {
	t.wm = max(t.wm, wm)
	defer t.countSpills()
	err := t.agg.Fire(wm, func(key []byte, start, end int64) error {
		return t.fire(key, start, end, out)
	})
	if err == nil {
		err = t.flush(out)
	}
	if cerr := t.writes.Commit(); err == nil {
		err = cerr
	}
	return err
}

// Held implements WatermarkHolder.
func (t *SessionTVF) Held(wm int64) int64 { return HoldSessions(wm) }

// fire emits the rows of key's session [start, end) and deletes them.
func (t *SessionTVF) fire(key []byte, start, end int64, out Emitter) error {
	kg := t.kg(key)
	it, err := t.store.NewIter(t.UID, kg, sessionRows, key)
	if err != nil {
		return err
	}
	n := len(key)
	var last []byte
	// The rows of the key's sessions that fired before this one in the
	// same watermark are deleted in writes, not yet in the store.
	for ok := it.SeekGE(rowTime(t.key[:0], key, start)); ok; ok = it.Next() {
		k := it.Key()
		if len(k) != n+16 {
			it.Close()
			return fmt.Errorf("%w: a session row's key of %d bytes", memseg.ErrCorrupt, len(k))
		}
		if ts := int64(binary.BigEndian.Uint64(k[n:]) ^ 1<<63); ts >= end {
			break
		}
		v, err := it.Value()
		if err == nil {
			err = t.emitRow(v, start, end, out)
		}
		if err != nil {
			it.Close()
			return err
		}
		last = append(last[:0], k...)
	}
	if err := it.Close(); err != nil {
		return err
	}
	if last == nil {
		return fmt.Errorf("%w: a session from %d to %d without rows", memseg.ErrCorrupt, start, end)
	}
	t.writes.DeleteRange(t.UID, kg, sessionRows, key, append(last, 0))
	return CommitLarge(t.writes)
}

// emitRow appends a row, decoded from its normalized columns, with its
// session's window columns.
func (t *SessionTVF) emitRow(v []byte, start, end int64, out Emitter) error {
	if t.out == nil {
		t.out = array.NewRecordBuilder(t.alloc, t.Out.Arrow())
	}
	var err error
	for i, mt := range t.types {
		if v, err = memseg.DecodeColumn(t.out.Field(i), mt, memseg.Order{}, v, &t.scratch); err != nil {
			return err
		}
	}
	if len(v) != 0 {
		return fmt.Errorf("%w: %d trailing bytes in a session row", memseg.ErrCorrupt, len(v))
	}
	n := len(t.types)
	t.out.Field(n).(*array.TimestampBuilder).Append(arrow.Timestamp(start))
	t.out.Field(n + 1).(*array.TimestampBuilder).Append(arrow.Timestamp(end))
	t.out.Field(n + 2).(*array.TimestampBuilder).Append(arrow.Timestamp(end - 1))
	if t.rows++; t.rows == t.batch {
		return t.flush(out)
	}
	return nil
}

func (t *SessionTVF) flush(out Emitter) error {
	if t.rows == 0 {
		return nil
	}
	t.rows = 0
	return out.Emit(t.out.NewRecordBatch())
}

// Snapshot implements Snapshotter: the rows are in the store once the
// writes are committed, and the sessions that changed are flushed to it.
func (t *SessionTVF) Snapshot(id int64) (OperatorSnapshot, error) {
	if err := t.writes.Commit(); err != nil {
		return OperatorSnapshot{}, err
	}
	sn, err := snapshotSessions(t.agg, t.store, &t.sorted, id)
	if err != nil {
		return OperatorSnapshot{}, err
	}
	return OperatorSnapshot{UID: t.UID, Fingerprint: t.Fingerprint(), KeyGroupLo: t.lo, KeyGroupHi: t.hi, State: sn}, nil
}

// Close implements Closer.
func (t *SessionTVF) Close() error {
	if t.out != nil {
		t.out.Release()
		t.out = nil
	}
	if t.agg != nil {
		t.agg.Release()
		t.agg = nil
	}
	return closeStore(&t.store, &t.tmp)
}
