package connector

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// A nexmark table without 'event-type' has the shape of Flink's nexmark
// DDL (ddl_gen.sql): every event is one row, with
//
//	event_type INT                 0 person, 1 auction, 2 bid
//	person     ROW<id, name, ...>  the person's fields, NULL unless event_type = 0
//	auction    ROW<id, ...>        NULL unless event_type = 1
//	bid        ROW<auction, ...>   NULL unless event_type = 2
//
// in any order and with any subset of the columns and of each ROW's
// fields (named as the flat tables' columns, of the same types). The
// values are the flat tables': event n of the sequence is the same event
// in both shapes. When a query reads only some fields, the planner
// narrows the ROW types the source is given, and it makes only those;
// when its filter requires event_type = k (Table.Equal), the source makes
// only the events of kind k, as the flat table of that kind does, and the
// filter then keeps them all.

// flinkCol is a column of a table of Flink's shape.
type flinkCol struct {
	eventType bool       // the event_type column
	kind      nexKind    // else the ROW of this kind,
	fields    []nexField // with these fields, in declared order
}

// flinkShaped reports whether a nexmark table without 'event-type' is of
// Flink's shape: it has the event_type column or a ROW column. (A flat
// table then misses its option.)
func flinkShaped(s types.Schema) bool {
	for _, f := range s {
		if strings.EqualFold(f.Name, flinkEventType) || f.Type.Kind == types.Row {
			return true
		}
	}
	return false
}

// flinkEventType is Flink's column of event kinds.
const flinkEventType = "event_type"

func (c *nexConfig) flinkColumns(t Table) error {
	c.flink = true
	c.cols = make([]flinkCol, len(t.Schema))
	for i, col := range t.Schema {
		if strings.EqualFold(col.Name, flinkEventType) {
			if col.Type.Kind != types.Int {
				return &ColumnError{Column: col.Name, Msg: fmt.Sprintf("column '%s' of nexmark table %s must be INT, not %s", col.Name, t.Name, col.Type.Plain().Nullable())}
			}
			c.cols[i] = flinkCol{eventType: true}
			continue
		}
		k := -1
		for kind, name := range nexKindNames {
			if strings.EqualFold(col.Name, name) {
				k = kind
			}
		}
		if k < 0 || col.Type.Kind != types.Row {
			return &ColumnError{Column: col.Name, Msg: fmt.Sprintf("column '%s' of nexmark table %s is not one of Flink's nexmark columns: event_type INT, person ROW<...>, auction ROW<...>, bid ROW<...> (or give 'event-type' for a table of one kind)", col.Name, t.Name)}
		}
		fc := flinkCol{kind: nexKind(k)}
		for _, f := range col.Type.Fields() {
			nf, ok := nexFieldOf(fc.kind, f.Name)
			if !ok {
				return &ColumnError{Column: col.Name, Msg: fmt.Sprintf("field '%s' of column '%s' of table %s is not a field of nexmark %s events (fields: %s)", f.Name, col.Name, t.Name, nexKindNames[k], strings.Join(nexColumns(fc.kind), ", "))}
			}
			if want := nexFields[nf].t; !nexTypeOK(want, f.Type) {
				return &ColumnError{Column: col.Name, Msg: fmt.Sprintf("field '%s' of column '%s' of nexmark table %s must be %s, not %s", f.Name, col.Name, t.Name, nexTypeNames[want], f.Type.Nullable())}
			}
			fc.fields = append(fc.fields, nf)
		}
		c.cols[i] = fc
	}
	for name, v := range t.Equal {
		if strings.EqualFold(name, flinkEventType) && v >= 0 && v <= int64(nexBid) {
			c.only, c.onlySet = nexKind(v), true
		}
	}
	return nil
}

// nexTypeOK reports whether a column or field of type t can hold a
// generated field of type want.
func nexTypeOK(want nexType, t types.Type) bool {
	switch want {
	case nBigInt:
		return t.Kind == types.BigInt
	case nString:
		return t.Kind == types.String
	}
	return t.IsTimestamp()
}

// flinkOptions checks the options of Flink's nexmark source that strand
// has no use for: it accepts them where they change nothing strand does
// and refuses the rest, never ignoring one. strand's generator makes
// events as fast as the query reads them (or events-per-second lets it),
// at one rate of event time.
func (c *nexConfig) flinkOptions(o *opts) error {
	next, err := o.integer("next-event.rate", c.rate, 1, 1_000_000_000)
	if err != nil {
		return err
	}
	if next != c.rate {
		v, _ := o.get("next-event.rate")
		return badValue("next-event.rate", v, fmt.Sprintf("strand's generator spaces events at one rate, so it must equal first-event.rate (%d)", c.rate))
	}
	// With one rate, the shape and period of its changes change nothing.
	if _, err := o.choice("rate.shape", "", "square", "sine"); err != nil {
		return err
	}
	if v, ok := o.get("rate.period"); ok {
		if _, err := types.ParseDuration(v); err != nil {
			return badValue("rate.period", v, "must be a duration such as '10 min'")
		}
	}
	for _, b := range []struct {
		key  string
		ok   bool // the value strand has
		why  string
		deft bool
	}{
		{"rate.limited", false, "strand's generator does not tie event times to the clock: the rate spaces their event times, and 'events-per-second' throttles it", false},
		{"max-emit-speed", true, "strand's generator does not tie event times to the clock: the rate spaces their event times, and 'events-per-second' throttles it", true},
		{"keep-alive", false, "a bounded nexmark source ends after events.num events", false},
		{"extended-bid-mode", false, "strand has no extended bid mode", false},
		{"simulation-mode", false, "strand has no simulation mode", false},
	} {
		v, err := o.boolean(b.key, b.deft)
		if err != nil {
			return err
		}
		if v != b.ok {
			s, _ := o.get(b.key)
			return badValue(b.key, s, b.why)
		}
	}
	if stop, err := o.integer("stop-at", -1, -1, 1<<62); err != nil {
		return err
	} else if stop != -1 {
		s, _ := o.get("stop-at")
		return badValue("stop-at", s, "strand does not stop a source short of its end: bound it with events.num")
	}
	return nil
}

// flinkSpan is the offsets [lo, hi) within an epoch of the events a
// table of Flink's shape makes: all, or one kind's.
func (c *nexConfig) flinkSpan() (int64, int64) {
	if c.onlySet {
		return c.span(c.only)
	}
	return 0, c.tp
}

// allFields lists the generated fields a table reads, in either shape.
func (c *nexConfig) allFields() []nexField {
	out := c.fields
	for _, col := range c.cols {
		out = append(out, col.fields...)
	}
	return out
}

// flinkBatch makes the columns of a table of Flink's shape for the batch
// of n events in r.ev.
func (r *nexReader) flinkBatch(cols []arrow.Array, n int) {
	s := r.src
	c := &s.gen.cfg
	alloc := r.ro.Alloc
	for i, col := range c.cols {
		dt := s.arrow.Field(i).Type
		if col.eventType {
			vb := expr.NewBufferNoZero(alloc, n*4)
			kinds := arrow.Int32Traits.CastFromBytes(vb.Bytes())
			for j, e := range r.ev.n {
				if c.onlySet {
					kinds[j] = int32(c.only)
				} else {
					kinds[j] = int32(c.kindOf(e))
				}
			}
			d := array.NewData(dt, n, []*memory.Buffer{nil, vb}, nil, 0, 0)
			cols[i] = array.MakeFromData(d)
			d.Release()
			vb.Release()
			continue
		}
		cols[i] = r.flinkRow(dt.(*arrow.StructType), col, n)
	}
}

// flinkRow makes a ROW column: its fields for the events of its kind,
// NULL for the others.
func (r *nexReader) flinkRow(dt *arrow.StructType, col flinkCol, n int) arrow.Array {
	c := &r.src.gen.cfg
	all := r.ev
	pos := r.pos[:0]
	switch {
	case !c.onlySet:
		for j, e := range all.n {
			if c.kindOf(e) == col.kind {
				pos = append(pos, int32(j))
			}
		}
	case c.only == col.kind:
		if cap(pos) < n {
			pos = make([]int32, n)
		}
		pos = pos[:n] // only its length is read below
	}
	r.pos = pos
	alloc := r.ro.Alloc
	switch len(pos) {
	case 0:
		return array.MakeArrayOfNull(alloc, dt, n)
	case n: // the whole batch is of this kind: no NULLs to place
		kids := make([]arrow.ArrayData, len(col.fields))
		for k, f := range col.fields {
			a := r.column(dt.Field(k).Type, f, n)
			kids[k] = a.Data()
			defer a.Release()
		}
		d := array.NewData(dt, n, []*memory.Buffer{nil}, kids, 0, 0)
		defer d.Release()
		return array.MakeFromData(d)
	}
	// Make the fields for the events of this kind, then spread them out.
	sub := &r.sub
	sub.n, sub.ep, sub.of, sub.ts = sub.n[:0], sub.ep[:0], sub.of[:0], sub.ts[:0]
	for _, j := range pos {
		sub.n = append(sub.n, all.n[j])
		sub.ep = append(sub.ep, all.ep[j])
		sub.of = append(sub.of, all.of[j])
		sub.ts = append(sub.ts, all.ts[j])
	}
	r.ev, r.chanIdx = *sub, r.chanIdx[:0]
	defer func() { r.ev, r.chanIdx = all, r.chanIdx[:0] }()
	valid := expr.NewBufferNoZero(alloc, int(bitutil.BytesForBits(int64(n))))
	bits := valid.Bytes()
	clear(bits)
	for _, j := range pos {
		bitutil.SetBit(bits, int(j))
	}
	defer valid.Release()
	nulls := n - len(pos)
	kids := make([]arrow.ArrayData, len(col.fields))
	for k, f := range col.fields {
		a := r.column(dt.Field(k).Type, f, len(pos))
		spread := spreadOut(alloc, a, pos, n, valid, nulls)
		a.Release()
		kids[k] = spread
		defer spread.Release()
	}
	d := array.NewData(dt, n, []*memory.Buffer{valid}, kids, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// spreadOut places the values of a (an int64 or string array without
// NULLs) at rows pos of n rows, the others NULL (valid, nulls).
func spreadOut(alloc memory.Allocator, a arrow.Array, pos []int32, n int, valid *memory.Buffer, nulls int) arrow.ArrayData {
	d := a.Data()
	bufs := d.Buffers()
	switch a.DataType().ID() {
	case arrow.STRING:
		ob := expr.NewBufferNoZero(alloc, (n+1)*4)
		src := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())
		dst := arrow.Int32Traits.CastFromBytes(ob.Bytes())[:n+1]
		at, k := int32(0), 0
		for j := 0; j < n; j++ {
			dst[j] = at
			if k < len(pos) && int(pos[k]) == j {
				at = src[k+1]
				k++
			}
		}
		dst[n] = at
		defer ob.Release()
		return array.NewData(a.DataType(), n, []*memory.Buffer{valid, ob, bufs[2]}, nil, nulls, 0)
	}
	vb := expr.NewBufferNoZero(alloc, n*8)
	src := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())
	dst := arrow.Int64Traits.CastFromBytes(vb.Bytes())
	clear(dst)
	for k, j := range pos {
		dst[j] = src[k]
	}
	defer vb.Release()
	return array.NewData(a.DataType(), n, []*memory.Buffer{valid, vb}, nil, nulls, 0)
}
