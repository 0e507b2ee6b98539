package groupagg

import (
	"bytes"
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
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
	valEnc  []func(dst []byte, row int) []byte
	key     []byte
	dkey    []byte

	keyBld, aggBld []array.Builder
	keySchema      *arrow.Schema
	aggSchema      *arrow.Schema
	out            *arrow.Schema
	sel, keyIdx    []int32
	aggIdx         []int32
	kinds          []exec.RowKind
	scratch        []byte
	ea, eb         []byte
}

// part is one input batch's rows in a segment: per aggregate, the rows
// (and their slots) to fold in and to take back.
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
	s.keySchema = arrow.NewSchema(s.out.Fields()[:nk], nil)
	s.aggSchema = arrow.NewSchema(s.out.Fields()[nk:], nil)
	for _, f := range s.keySchema.Fields() {
		s.keyBld = append(s.keyBld, array.NewBuilder(a.alloc, f.Type))
	}
	for _, f := range s.aggSchema.Fields() {
		s.aggBld = append(s.aggBld, array.NewBuilder(a.alloc, f.Type))
	}
	s.filters = make([]*array.Boolean, len(a.spec.Aggs))
	s.valEnc = make([]func([]byte, int) []byte, len(a.distinct))
}

func (s *segment) release() {
	for _, b := range append(s.keyBld, s.aggBld...) {
		b.Release()
	}
	s.keyBld, s.aggBld = nil, nil
}

func (s *segment) newPart(b arrow.RecordBatch) *part {
	if s.np == len(s.parts) {
		n := len(s.a.spec.Aggs)
		s.parts = append(s.parts, part{updRows: make([][]int32, n), updGroups: make([][]int32, n), retRows: make([][]int32, n), retGroups: make([][]int32, n)})
	}
	p := &s.parts[s.np]
	s.np++
	p.b = b
	for i := range p.updRows {
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
	for i, d := range a.distinct {
		enc, err := memseg.ColumnEncoder(b.Column(d.col), memseg.Order{})
		if err != nil {
			return err
		}
		s.valEnc[i] = enc
	}
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
		for i, c := range a.spec.Aggs {
			if c.Distinct && c.Arg >= 0 || !passes(s.filters[i], r) {
				continue
			}
			p.take(i, retract, int32(r), g)
		}
		for i := range a.distinct {
			if err := s.distinctRow(p, i, b, r, g, retract); err != nil {
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

// distinctRow counts row r's value of DISTINCT column i in its group.
func (s *segment) distinctRow(p *part, i int, b arrow.RecordBatch, r int, g int32, retract bool) error {
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
	s.dkey = s.valEnc[i](append(s.dkey[:0], s.key...), r)
	kg := uint16(exec.KeyGroup(s.key, a.maxPar))
	acc, err := a.distinctEntry(i, kg, s.dkey)
	if err != nil {
		return err
	}
	for j, ai := range d.aggs {
		if !passes(s.filters[ai], r) {
			continue
		}
		c := binary.LittleEndian.Uint64(acc[8+8*j:])
		switch {
		case !retract:
			if c++; c == 1 {
				p.take(ai, false, int32(r), g)
			}
		case c > 0:
			if c--; c == 0 {
				p.take(ai, true, int32(r), g)
			}
		}
		binary.LittleEndian.PutUint64(acc[8+8*j:], c)
	}
	acc[0] |= entryDirty
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
	for i, ac := range a.accs {
		if err := ac.AppendTo(s.aggBld[i], s.sel); err != nil {
			return err
		}
	}
	parts := s.parts[:s.np]
	for i, ac := range a.accs {
		for _, p := range parts {
			if len(p.updRows[i]) > 0 {
				ac.Update(col(p.b, a.spec.Aggs[i].Arg), p.updRows[i], p.updGroups[i])
			}
		}
	}
	// Take-backs after every fold-in: a MIN/MAX multiset then never
	// loses a value a later row of the segment brought back.
	for i := range a.rets {
		for _, p := range parts {
			if len(p.retRows[i]) > 0 {
				a.rets[i].Retract(col(p.b, a.spec.Aggs[i].Arg), p.retRows[i], p.retGroups[i])
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
	for _, g := range s.touched {
		key := a.table.KeyAt(a.addrs[g])
		for k, t := range a.keyTypes {
			var err error
			if key, err = memseg.DecodeColumn(s.keyBld[k], t, memseg.Order{}, key, &s.scratch); err != nil {
				return err
			}
		}
	}
	keyCols := make([]arrow.Array, len(s.keyBld))
	for k, bl := range s.keyBld {
		keyCols[k] = bl.NewArray()
		defer keyCols[k].Release()
	}
	s.keyIdx, s.aggIdx, s.kinds = s.keyIdx[:0], s.aggIdx[:0], nil
	add := func(k exec.RowKind, j, row int) {
		s.keyIdx, s.aggIdx, s.kinds = append(s.keyIdx, int32(j)), append(s.aggIdx, int32(row)), append(s.kinds, k)
	}
	bi, ai := 0, nb
	for j, g := range s.touched {
		before, after := s.cnt0[g] > 0, a.cnt[g] > 0
		switch {
		case before && after:
			if !s.same(encs, bi, ai) {
				add(exec.UpdateBefore, j, bi)
				add(exec.UpdateAfter, j, ai)
			}
		case after:
			add(exec.Insert, j, ai)
		case before:
			add(exec.Delete, j, bi)
			for _, ac := range a.accs {
				ac.Reset(g) // no trace of the group's last rows is kept
			}
		}
		if before {
			bi++
		}
		if after {
			ai++
		}
	}
	if len(s.kinds) == 0 {
		return nil
	}
	keys := array.NewRecordBatch(s.keySchema, keyCols, int64(len(s.touched)))
	defer keys.Release()
	vals := array.NewRecordBatch(s.aggSchema, aggCols, int64(aggCols0(aggCols, ai)))
	defer vals.Release()
	kt := expr.Take(a.alloc, keys, s.keyIdx)
	defer kt.Release()
	vt := expr.Take(a.alloc, vals, s.aggIdx)
	defer vt.Release()
	cols := append(append([]arrow.Array{}, kt.Columns()...), vt.Columns()...)
	res := array.NewRecordBatch(s.out, cols, int64(len(s.kinds)))
	kinds := s.kinds
	s.kinds = nil // handed over with the batch
	return out.Emit(exec.WithKinds(res, kinds))
}

// aggCols0 is the rows of the result columns: n, also without any
// aggregate column.
func aggCols0(cols []arrow.Array, n int) int {
	if len(cols) > 0 {
		return cols[0].Len()
	}
	return n
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
