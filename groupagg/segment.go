package groupagg

import (
	"bytes"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// A segment is a run of input rows whose effects are applied at once:
// for each group it touches, the result before the run and after it are
// compared, and one change goes downstream (+I, -U/+U, -D, or none when
// the result did not change). Without mini-batching a segment ends before
// a row whose group it already touched, so each row's change is its own,
// as in Flink; a mini-batch is one segment.
type segment struct {
	a *Agg
	// id numbers the segments; mark[g] is the last one that touched slot
	// g, and cnt0[g] its rows when that segment first touched it.
	id      int32
	mark    []int32
	cnt0    []int64
	touched []int32
	parts   []part
	np      int

	filters []*array.Boolean
	// list[i] is the rows list of aggregate i in a part: the aggregates
	// that take a row by one FILTER (or none), DISTINCT ones aside, share
	// one, so a row is listed once for them all; listFilter is each
	// list's FILTER column (-1: none), or -2 for a DISTINCT aggregate's.
	list       []int
	listFilter []int
	lfilters   []*array.Boolean
	valEnc     []func(dst []byte, row int) []byte
	key        []byte
	dkey       []byte

	// aggBld receives each segment's results before and after; outBld
	// the changes, keys then results, emitted as one batch per input
	// batch (or mini-batch), or when batchSize rows are pending.
	aggBld, outBld []array.Builder
	copiers        []copier
	out            *arrow.Schema
	sel            []int32
	kinds          []exec.RowKind
	scratch        []byte
	ea, eb         []byte
}

// part is one input batch's rows in a segment: per rows list
// (segment.list), the rows (and their slots) to fold in and to take
// back.
type part struct {
	b                  arrow.RecordBatch
	updRows, updGroups [][]int32
	retRows, retGroups [][]int32
}

// distinctCol is an argument column of DISTINCT aggregates: per group and
// value, the state keeps one count per aggregate of aggs (they differ by
// FILTER), the rows of the group with that value that the aggregate
// takes; a value is folded in when its count becomes 1 and taken back
// when it drops to 0.
type distinctCol struct {
	col  int
	name string
	aggs []int
}

func (s *segment) init(a *Agg) {
	s.a, s.id = a, 1
	out := a.spec.Out()
	nk := len(a.spec.Keys)
	s.out = out.Arrow()
	for i, f := range s.out.Fields() {
		s.outBld = append(s.outBld, array.NewBuilder(a.alloc, f.Type))
		if i >= nk {
			s.aggBld = append(s.aggBld, array.NewBuilder(a.alloc, f.Type))
			s.copiers = append(s.copiers, copierOf(f.Type))
		}
	}
	s.filters = make([]*array.Boolean, len(a.spec.Aggs))
	byFilter := map[int]int{}
	for _, c := range a.spec.Aggs {
		l, ok := byFilter[c.Filter]
		switch {
		case c.Distinct && c.Arg >= 0:
			l = len(s.listFilter)
			s.listFilter = append(s.listFilter, -2)
		case !ok:
			l = len(s.listFilter)
			byFilter[c.Filter] = l
			s.listFilter = append(s.listFilter, c.Filter)
		}
		s.list = append(s.list, l)
	}
	s.lfilters = make([]*array.Boolean, len(s.listFilter))
	s.valEnc = make([]func([]byte, int) []byte, len(a.distinct))
}

func (s *segment) release() {
	for _, b := range append(s.outBld, s.aggBld...) {
		b.Release()
	}
	s.outBld, s.aggBld = nil, nil
}

func (s *segment) newPart(b arrow.RecordBatch) *part {
	if s.np == len(s.parts) {
		n := len(s.listFilter)
		s.parts = append(s.parts, part{updRows: make([][]int32, n), updGroups: make([][]int32, n), retRows: make([][]int32, n), retGroups: make([][]int32, n)})
	}
	p := &s.parts[s.np]
	s.np++
	p.b = b
	n := int(b.NumRows())
	for i := range p.updRows {
		// A list takes up to a row each: sized at once, not by doubling.
		if cap(p.updRows[i]) < n {
			p.updRows[i], p.updGroups[i] = make([]int32, 0, n), make([]int32, 0, n)
		}
		p.updRows[i], p.updGroups[i] = p.updRows[i][:0], p.updGroups[i][:0]
		p.retRows[i], p.retGroups[i] = p.retRows[i][:0], p.retGroups[i][:0]
	}
	return p
}

// add takes the rows of b into the segment; with split, it ends the
// segment (emitting its changes) before a row of a group it touched.
func (s *segment) add(b arrow.RecordBatch, split bool, out exec.Emitter) error {
	a := s.a
	if err := a.keyEnc.Reset(b, a.spec.Keys); err != nil {
		return err
	}
	for i, c := range a.spec.Aggs {
		s.filters[i] = nil
		if c.Filter >= 0 {
			s.filters[i] = b.Column(c.Filter).(*array.Boolean)
		}
	}
	for l, f := range s.listFilter {
		s.lfilters[l] = nil
		if f >= 0 {
			s.lfilters[l] = b.Column(f).(*array.Boolean)
		}
	}
	for i, d := range a.distinct {
		enc, err := memseg.ColumnEncoder(b.Column(d.col), memseg.Order{})
		if err != nil {
			return err
		}
		s.valEnc[i] = enc
	}
	if err := a.clock.Bind(b); err != nil {
		return err
	}
	a.sweep.Wrote(int(b.NumRows()))
	kinds := exec.Kinds(b)
	p := s.newPart(b)
	for r := range int(b.NumRows()) {
		s.key = a.keyEnc.Append(s.key[:0], r)
		g, err := a.slot(a, s.key)
		if err != nil {
			return err
		}
		s.mark = growTo(s.mark, a.n)
		s.cnt0 = growTo(s.cnt0, a.n)
		if s.mark[g] == s.id && split {
			if err := s.end(out); err != nil {
				return err
			}
			p = s.newPart(b)
		}
		now := a.clock.At(r)
		a.expire(a, g, s.mark[g] == s.id, now)
		if s.mark[g] != s.id {
			s.mark[g], s.cnt0[g] = s.id, a.cnt[g]
			s.touched = append(s.touched, g)
		}
		retract := kinds != nil && kinds[r].Retracts()
		if retract {
			if a.cnt[g] == 0 {
				continue // a retraction of a row never counted, as Flink drops it
			}
			a.cnt[g]--
		} else {
			a.cnt[g]++
		}
		a.dirty[g] = true
		for l, f := range s.listFilter {
			if f == -2 || !passes(s.lfilters[l], r) {
				continue
			}
			p.take(l, retract, int32(r), g)
		}
		for i := range a.distinct {
			if err := s.distinctRow(p, i, b, r, g, retract, now); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *part) take(i int, retract bool, r, g int32) {
	if retract {
		p.retRows[i], p.retGroups[i] = append(p.retRows[i], r), append(p.retGroups[i], g)
		return
	}
	p.updRows[i], p.updGroups[i] = append(p.updRows[i], r), append(p.updGroups[i], g)
}

// distinctRow counts row r's value of DISTINCT column i in its group,
// at time now.
func (s *segment) distinctRow(p *part, i int, b arrow.RecordBatch, r int, g int32, retract bool, now int64) error {
	a := s.a
	d := &a.distinct[i]
	if b.Column(d.col).IsNull(r) {
		return nil // DISTINCT aggregates skip NULLs, as the others do
	}
	taken := false
	for _, ai := range d.aggs {
		taken = taken || passes(s.filters[ai], r)
	}
	if !taken {
		return nil
	}
	s.dkey = s.valEnc[i](binary.BigEndian.AppendUint32(s.dkey[:0], uint32(g)), r)
	acc, err := a.distinctEntry(i, g, s.dkey, now)
	if err != nil {
		return err
	}
	for j, ai := range d.aggs {
		if !passes(s.filters[ai], r) {
			continue
		}
		c := binary.LittleEndian.Uint64(acc[distHeader+8*j:])
		switch {
		case !retract:
			if c++; c == 1 {
				p.take(s.list[ai], false, int32(r), g)
			}
		case c > 0:
			if c--; c == 0 {
				p.take(s.list[ai], true, int32(r), g)
			}
		}
		binary.LittleEndian.PutUint64(acc[distHeader+8*j:], c)
	}
	return nil
}

// end applies the segment's rows to the accumulators and emits the
// change of each group it touched, in the order it first touched them.
func (s *segment) end(out exec.Emitter) error {
	a := s.a
	defer func() {
		s.id++
		s.touched = s.touched[:0]
		for i := range s.parts[:s.np] {
			s.parts[i].b = nil
		}
		s.np = 0
	}()
	if len(s.touched) == 0 {
		return nil
	}
	// The results before: of the groups that had rows.
	s.sel = s.sel[:0]
	for _, g := range s.touched {
		if s.cnt0[g] > 0 {
			s.sel = append(s.sel, g)
		}
	}
	nb := len(s.sel)
	// Each group has up to two results and two changes: reserving them
	// at once spares the builders' doubling (each a zeroed allocation and
	// a copy).
	for _, bl := range s.aggBld {
		bl.Reserve(2 * len(s.touched))
	}
	for _, bl := range s.outBld {
		bl.Reserve(2 * len(s.touched))
	}
	for i, ac := range a.accs {
		if err := ac.AppendTo(s.aggBld[i], s.sel); err != nil {
			return err
		}
	}
	parts := s.parts[:s.np]
	for i, ac := range a.accs {
		for _, p := range parts {
			if l := s.list[i]; len(p.updRows[l]) > 0 {
				ac.Update(col(p.b, a.spec.Aggs[i].Arg), p.updRows[l], p.updGroups[l])
			}
		}
	}
	// Take-backs after every fold-in: a MIN/MAX multiset then never
	// loses a value a later row of the segment brought back.
	for i := range a.rets {
		for _, p := range parts {
			if l := s.list[i]; len(p.retRows[l]) > 0 {
				a.rets[i].Retract(col(p.b, a.spec.Aggs[i].Arg), p.retRows[l], p.retGroups[l])
			}
		}
	}
	s.sel = s.sel[:0]
	for _, g := range s.touched {
		if a.cnt[g] > 0 {
			s.sel = append(s.sel, g)
		}
	}
	for i, ac := range a.accs {
		if err := ac.AppendTo(s.aggBld[i], s.sel); err != nil {
			return err
		}
	}
	aggCols := make([]arrow.Array, len(s.aggBld))
	encs := make([]func([]byte, int) []byte, len(s.aggBld))
	for i, bl := range s.aggBld {
		aggCols[i] = bl.NewArray()
		defer aggCols[i].Release()
		enc, err := memseg.ColumnEncoder(aggCols[i], memseg.Order{})
		if err != nil {
			return err
		}
		encs[i] = enc
	}
	nk := len(a.keyTypes)
	add := func(k exec.RowKind, g int32, row int) error {
		key := a.table.KeyAt(a.addrs[g])
		for c, t := range a.keyTypes {
			var err error
			if key, err = memseg.DecodeColumn(s.outBld[c], t, memseg.Order{}, key, &s.scratch); err != nil {
				return err
			}
		}
		for c, cp := range s.copiers {
			cp(s.outBld[nk+c], aggCols[c], row)
		}
		s.kinds = append(s.kinds, k)
		return nil
	}
	bi, ai := 0, nb
	for _, g := range s.touched {
		before, after := s.cnt0[g] > 0, a.cnt[g] > 0
		var err error
		switch {
		case before && after:
			if !s.same(encs, bi, ai) {
				if err = add(exec.UpdateBefore, g, bi); err == nil {
					err = add(exec.UpdateAfter, g, ai)
				}
			}
		case after:
			err = add(exec.Insert, g, ai)
		case before:
			err = add(exec.Delete, g, bi)
			for _, ac := range a.accs {
				ac.Reset(g) // no trace of the group's last rows is kept
			}
		}
		if !after {
			a.clearDistinct(g)
		}
		if err != nil {
			return err
		}
		if before {
			bi++
		}
		if after {
			ai++
		}
	}
	if len(s.kinds) >= a.batchSize {
		return s.flush(out)
	}
	return nil
}

// flush emits the pending changes as one batch.
func (s *segment) flush(out exec.Emitter) error {
	if len(s.kinds) == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(s.outBld))
	for i, b := range s.outBld {
		cols[i] = b.NewArray()
	}
	res := array.NewRecordBatch(s.out, cols, int64(len(s.kinds)))
	for _, c := range cols {
		c.Release()
	}
	kinds := s.kinds
	s.kinds = nil // handed over with the batch
	return out.Emit(exec.WithKinds(res, kinds))
}

// same reports whether rows x and y of the result columns are equal.
func (s *segment) same(encs []func([]byte, int) []byte, x, y int) bool {
	for _, enc := range encs {
		s.ea, s.eb = enc(s.ea[:0], x), enc(s.eb[:0], y)
		if !bytes.Equal(s.ea, s.eb) {
			return false
		}
	}
	return true
}

func growTo[T any](s []T, n int) []T {
	for len(s) < n {
		var zero T
		s = append(s, zero)
	}
	return s
}
