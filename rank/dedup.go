package rank

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// DedupSpec is a deduplication: ROW_NUMBER() OVER (PARTITION BY
// Partition ORDER BY time ASC|DESC) = 1 with the row number not selected,
// keeping the first or the last row of each partition.
type DedupSpec struct {
	// UID identifies the operator's state.
	UID       string
	In        types.Schema
	Partition []int
	// TimeCol is the event-time column the rows are ordered by, or -1 for
	// processing time: the order in which rows arrive.
	TimeCol  int
	KeepLast bool
	// TTL is the state's time-to-live and clock; not part of the
	// fingerprint, so a restore may change it.
	TTL exec.StateTTL
}

// dedupFormat versions the state layout below.
const dedupFormat = "dedup/2"

// Fingerprint identifies the layout and meaning of a deduplication's
// state: the kept rows' columns, the partitioning, and which row is kept
// by which order.
func (s *DedupSpec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s last=%t time=%d\n", dedupFormat, s.KeepLast, s.TimeCol)
	for _, f := range s.In {
		fmt.Fprintf(&b, "col %s\n", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(&b, "part %v\n", s.Partition)
	return fmt.Sprintf("dedup;%016x", memseg.Hash([]byte(b.String())))
}

// appendOnly reports whether the deduplication only ever inserts: it keeps
// the first row by processing time, which no later row can precede.
func (s *DedupSpec) appendOnly() bool { return !s.KeepLast && s.TimeCol < 0 }

// keptName names a deduplication's state: an entry per partition, key the
// partition key. Its value, after its TTL stamp (state.TTL), is empty for an append-only deduplication (the
// partition has had its row), else the kept row's time (8 bytes,
// big-endian; 0 by processing time) and its topnKey.
const keptName = "kept"

// Dedup is a deduplication outside windows: see the package
// documentation.
type Dedup struct {
	spec  DedupSpec
	key   *topnKey
	state keyed
	out   *changes
	buf   []byte
	val   []byte
	// cache holds the kept rows in managed memory (state.Cache) when the
	// state has no TTL; with one, the rows are read and written in the
	// store directly, where the sweeps (expiring) rewrite them.
	cache *state.Cache
	expiring
}

// NewDedup checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewDedup(spec DedupSpec) (*Dedup, error) {
	if spec.TimeCol >= len(spec.In) {
		return nil, fmt.Errorf("deduplicate: time column %d out of range", spec.TimeCol)
	}
	k, err := newKey(spec.In, -1, spec.Partition, nil)
	if err != nil {
		return nil, err
	}
	return &Dedup{spec: spec, key: k}, nil
}

// Open implements exec.Opener.
func (d *Dedup) Open(ctx *exec.TaskContext) error {
	d.out = newChanges(ctx.Alloc, d.key, d.spec.In, d.spec.In, ctx.BatchSize)
	if err := d.state.open(ctx, d.spec.UID, d.spec.Fingerprint(), keptName); err != nil {
		return err
	}
	if err := d.openTTL(ctx, &d.state, d.spec.TTL, keptName); err != nil {
		return err
	}
	mem := ctx.Memory
	if d.clock.TTL.On() {
		mem = nil
	}
	d.cache = state.NewCache(d.state.store, d.state.writes, mem, ctx.MemoryShare, d.spec.UID, d.state.lo, d.state.hi, keptName)
	return nil
}

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the watermark sweeps a key group of expired partitions.
func (d *Dedup) OnWatermark(wm int64, _ exec.Emitter) error {
	return d.watermarkTTL(&d.state, wm)
}

// Process implements exec.Operator: each row, in order, either replaces
// its partition's kept row, which it then retracts (-U) and replaces (+U),
// or is dropped. A partition's first row is inserted (+I). The rows
// emitted as they came are copied from b; only the retracted ones are
// decoded from their keys.
func (d *Dedup) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if err := d.key.Bind(b); err != nil {
		return err
	}
	var times *array.Timestamp
	if d.spec.TimeCol >= 0 {
		var ok bool
		if times, ok = b.Column(d.spec.TimeCol).(*array.Timestamp); !ok {
			return fmt.Errorf("deduplicate: time column is %s", b.Column(d.spec.TimeCol).DataType())
		}
	}
	c := d.cache
	if err := d.bindTTL(&d.state, b); err != nil {
		return err
	}
	if err := d.out.bind(b); err != nil {
		return err
	}
	defer d.out.unbind()
	for r := range int(b.NumRows()) {
		var p int
		d.buf, p = d.key.AppendSplit(d.buf[:0], r)
		part := d.buf[:p]
		kg := d.state.group(part)
		old, found, err := c.Get(kg, 0, part, p)
		if err != nil {
			return err
		}
		if !found {
			d.state.gauge.Keys(1)
		}
		// An expired partition starts again.
		old, at, ok, err := d.read(old, found, r)
		if err != nil {
			return err
		}
		d.val = d.stamp(d.val[:0], at, r)
		if d.spec.appendOnly() {
			if ok {
				continue
			}
			if err := c.Set(kg, 0, part, p, d.val); err != nil {
				return err
			}
			if err := d.out.addInput(exec.Insert, r, out); err != nil {
				return err
			}
			continue
		}
		var ts int64
		if times != nil {
			ts = math.MinInt64 // a NULL time is earlier than any other
			if times.IsValid(r) {
				ts = int64(times.Value(r))
			}
		}
		if ok {
			if len(old) < 8 {
				return fmt.Errorf("%w: deduplicate entry of %d bytes", memseg.ErrCorrupt, len(old))
			}
			if !d.replaces(ts, int64(binary.BigEndian.Uint64(old))) {
				continue
			}
			d.out.addRef(exec.UpdateBefore, d.out.key(old[8:]), 0)
			d.out.addRef(exec.UpdateAfter, exec.InputRow(r), 0)
		} else {
			d.out.addRef(exec.Insert, exec.InputRow(r), 0)
		}
		d.val = binary.BigEndian.AppendUint64(d.val, uint64(ts))
		d.val = append(d.val, d.buf...)
		if err := c.Set(kg, 0, part, p, d.val); err != nil {
			return err
		}
		if err := d.out.flushFull(out); err != nil {
			return err
		}
	}
	if err := d.out.flush(out); err != nil {
		return err
	}
	d.state.gauge.Measure()
	return d.state.writes.Commit()
}

// replaces reports whether a row of time ts replaces a kept row of time
// kept, as Flink's deduplication decides: by processing time the last row
// always does (and the first never); by event time a row replaces the
// last one at the same time or earlier, and the first one only if it is
// strictly earlier, so that of rows with equal times the one that came
// first is kept first and the one that came last is kept last.
func (d *Dedup) replaces(ts, kept int64) bool {
	switch {
	case d.spec.TimeCol < 0:
		return d.spec.KeepLast
	case d.spec.KeepLast:
		return ts >= kept
	}
	return ts < kept
}

// Snapshot implements exec.Snapshotter.
func (d *Dedup) Snapshot(id int64) (exec.OperatorSnapshot, error) {
	if err := d.cache.WriteBack(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	return d.state.snapshot(id)
}

// Close implements exec.Closer.
func (d *Dedup) Close() error {
	if d.out != nil {
		d.out.release()
	}
	if d.cache != nil {
		d.cache.Release()
	}
	return d.state.close()
}
