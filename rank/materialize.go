package rank

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Materialize is Flink's SinkUpsertMaterializer: the planner puts it in
// front of a sink with a PRIMARY KEY whose input is a retract stream keyed
// otherwise (no upsert key of the input lies within the primary key), so
// that the sink receives upserts by its own key. It keeps, per sink key,
// the rows of that key that are live, in arrival order: an insertion (+I,
// +U) appends its row and emits it, as +I if the key had no row and +U
// otherwise; a retraction (-U, -D) removes the first equal row and, if
// that left the key without rows, emits -D of it, or, if it was the last
// one, +U of the row now last; retracting any other row emits nothing, nor
// does retracting a row the key does not hold. Its output is +I, +U and -D
// by the sink key. Rows are compared whole, as Flink does when its input
// has no upsert key: every updating operator of strand retracts whole rows
// (-U before +U), so comparing by an upsert key would find the same row.
//
// Which row of a key is live, when several are (the query makes two rows
// of one sink key), depends on the order in which they arrive, which can
// differ between runs and parallelisms when they come from different
// upstream subtasks, as in Flink; a key whose rows retract each other in
// order ends with the same row whatever the timing.
//
// State: an entry per sink key (key group of the key, which the hash
// exchange in front routes by), whose value is, after its TTL stamp
// (state.TTL), the live rows as a list of (uvarint length, topnKey)
// pairs. A key with very many live rows costs a read and write of the
// whole list per change, as Flink's list state does.
//
// With a state TTL (MaterializeSpec.TTL) a key's rows expire ttl after the
// key was last written, as Flink's SinkUpsertMaterializer keeps them in
// TTL'd value state: a key whose rows expired is forgotten, so its next
// insertion is +I and a retraction of it is dropped (Flink logs that the
// state was cleared by its TTL and drops it too); what the sink holds for
// the key stays. The clock and sweeps are Dedup's (expiring).
type Materialize struct {
	spec  MaterializeSpec
	key   *topnKey
	state keyed
	out   *changes
	buf   []byte
	list  []byte
	val   []byte
	expiring
}

// MaterializeSpec is a SinkUpsertMaterializer over rows In keyed by Key,
// the sink's primary key.
type MaterializeSpec struct {
	UID string
	In  types.Schema
	Key []int
	// TTL is the state's time-to-live and clock; not part of the
	// fingerprint, so a restore may change it.
	TTL exec.StateTTL
}

// materializeFormat versions the state layout.
const materializeFormat = "materialize/2"

// liveName names the state: per sink key, its live rows.
const liveName = "rows"

// Fingerprint identifies the layout of the state.
func (s *MaterializeSpec) Fingerprint() string {
	var b strings.Builder
	b.WriteString(materializeFormat + "\n")
	for _, f := range s.In {
		fmt.Fprintf(&b, "col %s\n", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(&b, "key %v\n", s.Key)
	return fmt.Sprintf("materialize;%016x", memseg.Hash([]byte(b.String())))
}

// NewMaterialize checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewMaterialize(spec MaterializeSpec) (*Materialize, error) {
	if len(spec.Key) == 0 {
		return nil, fmt.Errorf("sink materializer: no key")
	}
	k, err := newKey(spec.In, -1, spec.Key, nil)
	if err != nil {
		return nil, err
	}
	return &Materialize{spec: spec, key: k}, nil
}

// Open implements exec.Opener.
func (m *Materialize) Open(ctx *exec.TaskContext) error {
	m.out = newChanges(ctx.Alloc, m.key, m.spec.In, m.spec.In, ctx.BatchSize)
	if err := m.state.open(ctx, m.spec.UID, m.spec.Fingerprint(), liveName); err != nil {
		return err
	}
	return m.openTTL(ctx, &m.state, m.spec.TTL, liveName)
}

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the watermark sweeps expired keys.
func (m *Materialize) OnWatermark(wm int64, _ exec.Emitter) error {
	return m.watermarkTTL(&m.state, wm)
}

// Process implements exec.Operator.
func (m *Materialize) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if err := m.key.Bind(b); err != nil {
		return err
	}
	if err := m.bindTTL(&m.state, b); err != nil {
		return err
	}
	if err := m.out.bind(b); err != nil {
		return err
	}
	defer m.out.unbind()
	kinds := exec.Kinds(b)
	w, uid := m.state.writes, m.spec.UID
	for r := range int(b.NumRows()) {
		var p int
		m.buf, p = m.key.AppendSplit(m.buf[:0], r)
		part := m.buf[:p]
		kg := m.state.group(part)
		old, found, err := w.Get(uid, kg, liveName, part)
		if err != nil {
			return err
		}
		// An expired key's rows are forgotten.
		old, at, live, err := m.read(old, found, r)
		if err != nil {
			return err
		}
		m.list = m.list[:0]
		if live {
			m.list = append(m.list, old...)
		}
		if kinds == nil || !kinds[r].Retracts() {
			kind := exec.UpdateAfter
			if len(m.list) == 0 {
				kind = exec.Insert
			}
			if !found {
				m.state.gauge.Keys(1)
			}
			m.list = binary.AppendUvarint(m.list, uint64(len(m.buf)))
			m.list = append(m.list, m.buf...)
			if err := m.out.addInput(kind, r, out); err != nil {
				return err
			}
			m.put(kg, part, at, r)
		} else if err := m.retract(kg, part, at, r, out); err != nil {
			return err
		} else if found && !live && len(m.list) == 0 {
			w.Delete(uid, kg, liveName, part)
			m.state.gauge.Keys(-1)
		}
		if err := m.state.commitSome(); err != nil {
			return err
		}
	}
	if err := m.out.flush(out); err != nil {
		return err
	}
	return w.Commit()
}

// put writes m.list as the rows of key part, which row r writes and
// which was last written at at.
func (m *Materialize) put(kg uint16, part []byte, at int64, r int) {
	m.val = append(m.stamp(m.val[:0], at, r), m.list...)
	m.state.writes.Set(m.spec.UID, kg, liveName, part, m.val)
}

// retract takes the row m.buf out of m.list, the rows of key part, for
// row r.
func (m *Materialize) retract(kg uint16, part []byte, at int64, r int, out exec.Emitter) error {
	w, uid := m.state.writes, m.spec.UID
	from, end, last := -1, 0, 0 // the row's bytes, and where the last row starts
	for i := 0; i < len(m.list); {
		n, k := binary.Uvarint(m.list[i:])
		if k <= 0 || uint64(len(m.list)-i-k) < n {
			return fmt.Errorf("%w: sink materializer list of %d bytes", memseg.ErrCorrupt, len(m.list))
		}
		row := m.list[i+k : i+k+int(n)]
		if from < 0 && bytes.Equal(row, m.buf) {
			from, end = i, i+k+int(n)
		}
		last = i
		i += k + int(n)
	}
	switch {
	case from < 0: // not held: dropped, as Flink drops it
		return nil
	case from == 0 && end == len(m.list):
		w.Delete(uid, kg, liveName, part)
		m.state.gauge.Keys(-1)
		return m.out.addInput(exec.Delete, r, out) // the row m.buf is
	}
	wasLast := from == last
	m.list = append(m.list[:from], m.list[end:]...)
	m.put(kg, part, at, r)
	if !wasLast {
		return nil
	}
	// Emit the row now last.
	var lastRow []byte
	for i := 0; i < len(m.list); {
		n, k := binary.Uvarint(m.list[i:])
		lastRow = m.list[i+k : i+k+int(n)]
		i += k + int(n)
	}
	return m.out.add(exec.UpdateAfter, lastRow, 0, out)
}

// Snapshot implements exec.Snapshotter.
func (m *Materialize) Snapshot(id int64) (exec.OperatorSnapshot, error) { return m.state.snapshot(id) }

// Close implements exec.Closer.
func (m *Materialize) Close() error {
	if m.out != nil {
		m.out.release()
	}
	return m.state.close()
}

// DropUpdateBefore is the operator in front of an upsert sink whose input
// is keyed by the sink's primary key: it drops the -U rows, so the sink
// receives +I, +U and -D by its key, as Flink's planner asks the input
// for updates without their before rows (ONLY_UPDATE_AFTER).
type DropUpdateBefore struct {
	alloc memory.Allocator
	sel   []int32
}

// Open implements exec.Opener.
func (d *DropUpdateBefore) Open(ctx *exec.TaskContext) error {
	d.alloc = ctx.Alloc
	return nil
}

// Process implements exec.Operator.
func (d *DropUpdateBefore) Process(b arrow.RecordBatch, out exec.Emitter) error {
	kinds := exec.Kinds(b)
	d.sel = d.sel[:0]
	for i, k := range kinds {
		if k != exec.UpdateBefore {
			d.sel = append(d.sel, int32(i))
		}
	}
	if kinds == nil || len(d.sel) == len(kinds) {
		b.Retain()
		return out.Emit(b)
	}
	if len(d.sel) == 0 {
		return nil
	}
	return out.Emit(exec.WithKinds(expr.Take(d.alloc, b, d.sel), exec.TakeKinds(b, d.sel)))
}
