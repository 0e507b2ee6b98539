package over

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// fire emits the rows of partition part (key group kg) whose time is at
// most wm, each with the aggregates over its frame, and drops from the
// state what no later row's frame needs.
func (o *Over) fire(kg uint16, part []byte, wm int64, out exec.Emitter) error {
	w, uid := o.state.writes, o.spec.UID
	emitted, err := o.load(kg, part)
	if err != nil {
		return err
	}
	o.arena, o.ents, o.rows = o.arena[:0], o.ents[:0], o.rows[:0]
	err = w.ScanPrefix(uid, kg, rowsName, part, func(k, v []byte) error {
		ts, null, _, err := memseg.DecodeInt64(k[len(part):], memseg.Order{})
		if err != nil || null {
			return fmt.Errorf("%w: over row %x", memseg.ErrCorrupt, k)
		}
		if ts > wm {
			return errEnough
		}
		c, err := count(v)
		if err != nil {
			return err
		}
		e := entry{off: len(o.arena), ts: ts, count: c}
		o.arena = append(o.arena, k...)
		e.end = len(o.arena)
		o.ents = append(o.ents, e)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	cols := o.in.Fields()
	for i, e := range o.ents {
		for range e.count {
			if err := o.key.Decode(o.arena[e.off:e.end], cols); err != nil {
				return err
			}
			o.rows = append(o.rows, i)
		}
	}
	in := o.in.NewRecordBatch()
	defer in.Release()
	if err := o.frames(in, emitted, out); err != nil {
		return err
	}
	last := emitted
	if n := len(o.rows); n > 0 {
		last = max(last, o.ts(n-1))
	}
	o.drop(kg, last)
	return o.save(kg, part, last)
}

// ts is the time of row r of the partition firing.
func (o *Over) ts(r int) int64 { return o.ents[o.rows[r]].ts }

// frames runs the frame over the rows of in, the partition's rows up to
// the watermark in order, and emits each row later than emitted (the
// rows before it are a bounded frame's kept rows) with its aggregates.
func (o *Over) frames(in arrow.RecordBatch, emitted int64, out exec.Emitter) error {
	n, p := len(o.rows), o.spec.Preceding
	// peers returns the end of the rows of row g's time.
	peers := func(g int) int {
		h := g + 1
		for h < n && o.ts(h) == o.ts(g) {
			h++
		}
		return h
	}
	switch {
	case !o.bounded && o.spec.Rows:
		for r := range n {
			o.update(in, r, false)
			if err := o.emit(r, out); err != nil {
				return err
			}
		}
	case !o.bounded:
		for g := 0; g < n; {
			h := peers(g)
			for r := g; r < h; r++ {
				o.update(in, r, false)
			}
			if err := o.emitRange(g, h, out); err != nil {
				return err
			}
			g = h
		}
	case o.spec.Rows:
		lo := 0
		for r := range n {
			o.update(in, r, false)
			if int64(r-lo) > p {
				o.update(in, lo, true)
				lo++
			}
			if o.ts(r) > emitted {
				if err := o.emit(r, out); err != nil {
					return err
				}
			}
		}
	default:
		lo := 0
		for g := 0; g < n; {
			h := peers(g)
			for r := g; r < h; r++ {
				o.update(in, r, false)
			}
			for start := before(o.ts(g), p); o.ts(lo) < start; lo++ {
				o.update(in, lo, true)
			}
			if o.ts(g) > emitted {
				if err := o.emitRange(g, h, out); err != nil {
					return err
				}
			}
			g = h
		}
	}
	return nil
}

// before is t - d, or the smallest time when that is before it.
func before(t, d int64) int64 {
	if t < math.MinInt64+d {
		return math.MinInt64
	}
	return t - d
}

// update folds row r of in into the accumulators, or takes it back.
func (o *Over) update(in arrow.RecordBatch, r int, retract bool) {
	o.one[0][0] = int32(r)
	for j, acc := range o.accs {
		var col arrow.Array
		if a := o.spec.Aggs[j].Arg; a >= 0 {
			col = in.Column(a)
		}
		if retract {
			acc.(agg.Retracter).Retract(col, o.one[0], o.one[1])
		} else {
			acc.Update(col, o.one[0], o.one[1])
		}
	}
}

// emitRange emits rows g..h-1, peers, with the same aggregates.
func (o *Over) emitRange(g, h int, out exec.Emitter) error {
	for r := g; r < h; r++ {
		if err := o.emit(r, out); err != nil {
			return err
		}
	}
	return nil
}

// emit appends row r with the accumulators' results to the output, and
// emits a full batch.
func (o *Over) emit(r int, out exec.Emitter) error {
	e := o.ents[o.rows[r]]
	cols := o.out.Fields()
	nIn := len(o.spec.In)
	if err := o.key.Decode(o.arena[e.off:e.end], cols[:nIn]); err != nil {
		return err
	}
	for j, acc := range o.accs {
		if err := acc.AppendTo(cols[nIn+j], o.one[1]); err != nil {
			return fmt.Errorf("over: %w", err)
		}
	}
	if o.outN++; o.outN >= o.batch {
		return o.flush(out)
	}
	return nil
}

// flush emits the rows built so far.
func (o *Over) flush(out exec.Emitter) error {
	if o.outN == 0 {
		return nil
	}
	o.outN = 0
	return out.Emit(o.out.NewRecordBatch())
}

// drop deletes the rows no later frame needs, last being the time of the
// partition's last emitted rows: all of them for an unbounded frame
// (the accumulators hold them), all but the last Preceding for ROWS, and
// those at or before last - Preceding for RANGE.
func (o *Over) drop(kg uint16, last int64) {
	w, uid := o.state.writes, o.spec.UID
	excess := uint64(math.MaxUint64) // rows to drop, in order
	if o.bounded && o.spec.Rows {
		excess = uint64(max(int64(len(o.rows))-o.spec.Preceding, 0))
	}
	for _, e := range o.ents {
		if o.bounded && !o.spec.Rows && e.ts > before(last, o.spec.Preceding) || excess == 0 {
			return
		}
		k := o.arena[e.off:e.end]
		if e.count > excess {
			o.val = binary.AppendUvarint(o.val[:0], e.count-excess)
			w.Set(uid, kg, rowsName, k, o.val)
			return
		}
		w.Delete(uid, kg, rowsName, k)
		excess -= e.count
	}
}

// load reads the partition's accumulators (an unbounded frame's; a
// bounded one's start empty, and are filled from its kept rows) and the
// time of its last emitted rows, math.MinInt64 for none.
func (o *Over) load(kg uint16, part []byte) (int64, error) {
	for _, acc := range o.accs {
		acc.Reset(0)
	}
	v, ok, err := o.state.writes.Get(o.spec.UID, kg, accName, part)
	if err != nil || !ok {
		return math.MinInt64, err
	}
	if len(v) < 8 {
		return 0, fmt.Errorf("%w: over accumulators %x", memseg.ErrCorrupt, v)
	}
	emitted := int64(binary.BigEndian.Uint64(v))
	rest := v[8:]
	if !o.bounded {
		for _, acc := range o.accs {
			if rest, err = acc.Get(rest, 0); err != nil {
				return 0, fmt.Errorf("over: %w", err)
			}
		}
	}
	if len(rest) != 0 {
		return 0, fmt.Errorf("%w: %d bytes after the over accumulators", memseg.ErrCorrupt, len(rest))
	}
	return emitted, nil
}

// save writes the partition's last emitted time and, for an unbounded
// frame, its accumulators.
func (o *Over) save(kg uint16, part []byte, last int64) error {
	o.buf = binary.BigEndian.AppendUint64(o.buf[:0], uint64(last))
	if !o.bounded {
		for _, acc := range o.accs {
			o.buf = acc.Put(o.buf, 0)
		}
	}
	o.state.writes.Set(o.spec.UID, kg, accName, part, o.buf)
	return nil
}

// count decodes a row entry's value, its number of copies.
func count(v []byte) (uint64, error) {
	c, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) || c == 0 {
		return 0, fmt.Errorf("%w: over row count %x", memseg.ErrCorrupt, v)
	}
	return c, nil
}

// Snapshot implements exec.Snapshotter.
func (o *Over) Snapshot(id int64) (exec.OperatorSnapshot, error) { return o.state.snapshot(id) }

// Close implements exec.Closer.
func (o *Over) Close() error {
	if o.out != nil {
		o.out.Release()
		o.in.Release()
		o.out, o.in = nil, nil
	}
	return o.state.close()
}
