package over

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// The operator's state names (doc.go).
const (
	rowsName   = "rows"
	timersName = "timers"
	accName    = "acc"
)

// Over is an OVER aggregation: see the package documentation.
type Over struct {
	spec    Spec
	key     *exec.RowKey
	state   keyed
	bounded bool
	alloc   memory.Allocator
	batch   int

	// accs hold one group, the frame of the row being emitted.
	accs []agg.Acc
	// next is the earliest time of a timer, math.MinInt64 when it is not
	// known (after a restore): a watermark before it fires nothing.
	next int64

	out   *array.RecordBuilder
	outN  int
	in    *array.RecordBuilder // the rows of the partition firing, for the accumulators
	buf   []byte
	tk    []byte
	val   []byte
	arena []byte
	ents  []entry
	rows  []int // the entry of each row of in, copies of a row one after another
	parts [][]byte
	one   [2][]int32 // rows and groups for one row of in: {{r}, {0}}
}

// entry is one distinct row of a partition as the state holds it: its key
// in the arena, its time and how many copies there are.
type entry struct {
	off, end int
	ts       int64
	count    uint64
}

// New checks spec and returns the operator; it is an OpSpec's constructor.
func New(spec Spec) (*Over, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	k, err := exec.NewRowKey(spec.In, -1, spec.Partition, []exec.SortKey{{Col: spec.Time}})
	if err != nil {
		return nil, fmt.Errorf("over: %w", err)
	}
	o := &Over{spec: spec, key: k, bounded: spec.Preceding != Unbounded, next: math.MinInt64}
	for _, a := range spec.Aggs {
		t := spec.In[max(a.Arg, 0)].Type
		var acc agg.Acc
		if o.bounded {
			acc, err = agg.NewRetracting(a, t)
		} else {
			acc, err = agg.New(a, t)
		}
		if err != nil {
			return nil, fmt.Errorf("over: %s: %w", a.Name, err)
		}
		acc.Grow(1)
		o.accs = append(o.accs, acc)
	}
	o.one = [2][]int32{{0}, {0}}
	return o, nil
}

// Open implements exec.Opener.
func (o *Over) Open(ctx *exec.TaskContext) error {
	o.alloc, o.batch = ctx.Alloc, ctx.BatchSize
	if o.alloc == nil {
		o.alloc = memory.DefaultAllocator
	}
	if o.batch <= 0 {
		o.batch = 4096
	}
	o.out = array.NewRecordBuilder(o.alloc, o.spec.Out().Arrow())
	o.in = array.NewRecordBuilder(o.alloc, o.spec.In.Arrow())
	return o.state.open(ctx, o.spec.UID, o.spec.Fingerprint(), rowsName, timersName, accName)
}

// Process implements exec.Operator: each row waits in its partition's
// state, with a timer at its time, for the watermark to reach it.
func (o *Over) Process(b arrow.RecordBatch, _ exec.Emitter) error {
	if err := o.key.Bind(b); err != nil {
		return err
	}
	times, ok := b.Column(o.spec.Time).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("over: time column is %s", b.Column(o.spec.Time).DataType())
	}
	kinds := exec.Kinds(b)
	w, uid := o.state.writes, o.spec.UID
	for r := range int(b.NumRows()) {
		if kinds != nil && kinds[r] != exec.Insert {
			return fmt.Errorf("over: a %v row: an OVER aggregation takes insert-only input", kinds[r])
		}
		if times.IsNull(r) {
			// The source skips rows without an event time (bad rows).
			return fmt.Errorf("over: a row with a NULL %s", o.spec.In[o.spec.Time].Name)
		}
		ts := int64(times.Value(r))
		var p int
		o.buf, p = o.key.AppendSplit(o.buf[:0], r)
		part := o.buf[:p]
		kg := o.state.group(part)
		var n uint64
		if v, ok, err := w.Get(uid, kg, rowsName, o.buf); err != nil {
			return err
		} else if ok {
			if n, err = count(v); err != nil {
				return err
			}
		}
		o.val = binary.AppendUvarint(o.val[:0], n+1)
		w.Set(uid, kg, rowsName, o.buf, o.val)
		o.tk = append(memseg.AppendInt64(o.tk[:0], ts, memseg.Order{}), part...)
		w.Set(uid, kg, timersName, o.tk, nil)
		if o.next != math.MinInt64 {
			o.next = min(o.next, ts)
		}
		if err := exec.CommitLarge(w); err != nil {
			return err
		}
	}
	return w.Commit()
}

// fired is the time up to which the rows fire at watermark wm: those
// before it, and at the end of the input every row.
func fired(wm int64) int64 {
	if wm == types.MaxWatermark || wm == math.MinInt64 {
		return wm
	}
	return wm - 1
}

// Held implements exec.WatermarkHolder: the rows at wm have not been
// emitted yet, so the output's watermark is behind them.
func (o *Over) Held(wm int64) int64 { return fired(wm) }

// errEnough stops a scan.
var errEnough = errors.New("enough")

// OnWatermark implements exec.WatermarkHandler: every partition with a
// timer before wm emits its rows before wm, in time order. A row at wm
// is on time (see the package documentation): it waits for a later
// watermark.
func (o *Over) OnWatermark(wm int64, out exec.Emitter) error {
	wm = fired(wm)
	if wm < o.next {
		return nil
	}
	next := int64(math.MaxInt64)
	w, uid := o.state.writes, o.spec.UID
	for g := o.state.lo; g <= o.state.hi; g++ {
		kg := uint16(g)
		o.parts = o.parts[:0]
		err := w.ScanPrefix(uid, kg, timersName, nil, func(k, _ []byte) error {
			ts, null, part, err := memseg.DecodeInt64(k, memseg.Order{})
			if err != nil || null {
				return fmt.Errorf("%w: over timer %x", memseg.ErrCorrupt, k)
			}
			if ts > wm {
				next = min(next, ts)
				return errEnough
			}
			o.parts = append(o.parts, slices.Clone(k), part)
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return err
		}
		// Timers and partitions alternate: delete the timers, then
		// fire each partition once, in key order.
		var parts [][]byte
		for i := 0; i < len(o.parts); i += 2 {
			w.Delete(uid, kg, timersName, o.parts[i])
			parts = append(parts, o.parts[i][len(o.parts[i])-len(o.parts[i+1]):])
		}
		slices.SortFunc(parts, bytes.Compare)
		for _, part := range slices.CompactFunc(parts, bytes.Equal) {
			if err := o.fire(kg, part, wm, out); err != nil {
				return err
			}
		}
		if err := exec.CommitLarge(w); err != nil {
			return err
		}
	}
	o.next = next
	if err := o.flush(out); err != nil {
		return err
	}
	return w.Commit()
}
