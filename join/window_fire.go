package join

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// group is the join key of a window being joined and its left rows: the
// rows of a window come sorted by key group, join key, side (left first)
// and row, so each key's left rows are held while its right rows pass.
type group struct {
	open  bool
	kg    uint16
	key   []byte
	null  bool // the key has a NULL: nothing matches it
	all   bool // every left row has matched (no residual condition)
	arena []byte
	left  []leftRow
	pass  []bool
	scr   []byte
	prev  []byte // the store entry being counted
}

// leftRow is a left row of the group: its row key in the arena, its
// copies, and whether a right row has matched it.
type leftRow struct {
	off, end int
	count    uint64
	matched  bool
}

// fire joins the rows of window p, emits the result and frees them. A
// window whose rows are all in memory is sorted there; one with rows in
// the store (spilled, or restored) has its rows in memory written there
// too, and is read back key group by key group, in the same order.
func (j *WindowJoin) fire(p *pane, out exec.Emitter) error {
	if p.stored == nil {
		if p.mem == nil {
			return nil
		}
		err := j.fireMemory(p, out)
		p.mem.Release()
		p.mem = nil
		return err
	}
	var mem []*pane
	if p.mem != nil {
		mem = append(mem, p)
	}
	if err := j.store1(mem...); err != nil {
		return err
	}
	we := memseg.AppendInt64(nil, p.end, memseg.Order{})
	for i := 0; i <= j.hi-j.lo; i++ {
		if !p.has(i) {
			continue
		}
		kg := uint16(j.lo + i)
		if err := j.fireStored(kg, we, out); err != nil {
			return err
		}
		j.writes.DeletePrefix(j.uid, kg, windowRows, we)
		j.writes.Delete(j.uid, kg, windowList, we)
	}
	return j.finish(out)
}

// fireMemory joins a window whose rows are all in memory.
func (j *WindowJoin) fireMemory(p *pane, out exec.Emitter) error {
	for rs := p.records(); rs.advance(); {
		if err := j.entry(rs.kg(), rs.rec[2:], rs.n, out); err != nil {
			return err
		}
	}
	return j.finish(out)
}

// records reads a pane's records from memory in order, equal records as
// one with their count. They alias the pane's memory.
type records struct {
	it   *memseg.BufferIter
	rec  []byte // key group | join key | side | row key; nil at the end
	n    uint64 // rec's copies
	next []byte // the record after rec's copies, nil at the end
}

// records sorts p's records and returns a reader of them.
func (p *pane) records() *records {
	p.mem.Sort()
	r := &records{it: p.mem.Iter()}
	if r.it.Next() {
		r.next = r.it.Key()
	}
	return r
}

// advance moves to the next record and reports whether there is one.
func (r *records) advance() bool {
	r.rec, r.n = r.next, 0
	if r.rec == nil {
		return false
	}
	for r.next = nil; r.next == nil; {
		r.n++
		if !r.it.Next() {
			break
		}
		if k := r.it.Key(); !bytes.Equal(k, r.rec) {
			r.next = k
		}
	}
	return true
}

func (r *records) kg() uint16 { return binary.BigEndian.Uint16(r.rec) }

// fireStored joins the rows of key group kg of the window whose end is
// encoded as we, as the store holds them: the entries of a row written at
// different times (their sequence numbers differ) are one row with the
// sum of their counts.
func (j *WindowJoin) fireStored(kg uint16, we []byte, out exec.Emitter) error {
	it, err := j.store.NewIter(j.uid, kg, windowRows, we)
	if err != nil {
		return err
	}
	defer it.Close()
	g := &j.g
	g.prev = g.prev[:0]
	n := uint64(0)
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()
		v, err := it.Value()
		if err != nil {
			return err
		}
		c, k := binary.Uvarint(v)
		if k <= 0 || k != len(v) || c == 0 || len(key) < len(we)+seqWidth {
			return fmt.Errorf("%w: window join entry %x: %x", memseg.ErrCorrupt, key, v)
		}
		rest := key[len(we) : len(key)-seqWidth]
		if n > 0 && bytes.Equal(rest, g.prev) {
			n += c
			continue
		}
		if n > 0 {
			if err := j.entry(kg, g.prev, n, out); err != nil {
				return err
			}
		}
		g.prev, n = append(g.prev[:0], rest...), c
	}
	if n > 0 {
		if err := j.entry(kg, g.prev, n, out); err != nil {
			return err
		}
	}
	return it.Close()
}

// seqWidth is the width of an entry's sequence number.
const seqWidth = 8

// entry takes the next row of a firing window, in order: n copies of the
// record rest (join key | side | row key) of key group kg. A left row is
// held with its group; a right row is joined with the group's left rows
// at once.
func (j *WindowJoin) entry(kg uint16, rest []byte, n uint64, out exec.Emitter) error {
	g := &j.g
	klen, null, err := j.keyLen(rest)
	if err != nil {
		return err
	}
	if klen >= len(rest) || rest[klen] > 1 {
		return fmt.Errorf("%w: window join row %x", memseg.ErrCorrupt, rest)
	}
	key, side, row := rest[:klen], rest[klen], rest[klen+1:]
	if !g.open || kg != g.kg || !bytes.Equal(key, g.key) {
		if err := j.finish(out); err != nil {
			return err
		}
		g.open, g.kg, g.null, g.all = true, kg, null, false
		g.key = append(g.key[:0], key...)
		g.arena, g.left = g.arena[:0], g.left[:0]
	}
	if side == 0 {
		l := leftRow{off: len(g.arena), count: n}
		g.arena = append(g.arena, row...)
		l.end = len(g.arena)
		g.left = append(g.left, l)
		return nil
	}
	return j.right(row, n, out)
}

// keyLen returns the length of the join key at the start of rest and
// whether a column of it is NULL.
func (j *WindowJoin) keyLen(rest []byte) (int, bool, error) {
	b := rest
	null := false
	var err error
	for _, t := range j.keyTypes {
		if len(b) > 0 && b[0] == nullMarker {
			null = true
		}
		if b, err = memseg.DecodeColumn(nil, t, memseg.Order{}, b, &j.g.scr); err != nil {
			return 0, false, err
		}
	}
	return len(rest) - len(b), null, nil
}

// shrink gives the heap back after a large group: one key's rows of a
// window can be many (a join keyed by the windows alone holds a whole
// window's left rows), and are not kept for the next.
func (g *group) shrink() {
	if cap(g.arena) > groupHeap {
		g.arena, g.left, g.pass = nil, nil, nil
	}
}

// groupHeap is the most heap a group keeps for the next one.
const groupHeap = 1 << 20

func (g *group) row(i int) []byte { return g.arena[g.left[i].off:g.left[i].end:g.left[i].end] }

// right joins n copies of a right row with the group's left rows: each
// pair that passes the residual condition is emitted (unless the join
// emits left rows only) and marks its left row matched; a right row
// without a match is emitted padded if the right side is outer.
func (j *WindowJoin) right(row []byte, n uint64, out exec.Emitter) error {
	g := &j.g
	filtering := j.spec.Kind.filtering()
	matched := false
	switch {
	case g.null || len(g.left) == 0:
	case j.residual == nil:
		matched, g.all = true, true
		if filtering {
			break
		}
		for i, l := range g.left {
			if err := j.emit(g.row(i), row, l.count*n, out); err != nil {
				return err
			}
		}
	default:
		if err := j.match(row); err != nil {
			return err
		}
		for i := range g.left {
			if !g.pass[i] {
				continue
			}
			matched = true
			g.left[i].matched = true
			if !filtering {
				if err := j.emit(g.row(i), row, g.left[i].count*n, out); err != nil {
					return err
				}
			}
		}
	}
	if !matched && j.spec.Kind.outer(1) {
		return j.emit(nil, row, n, out)
	}
	return nil
}

// match evaluates the residual condition over the pairs of the right row
// with each left row of the group, a batch at a time, into g.pass.
func (j *WindowJoin) match(right []byte) error {
	g := &j.g
	g.pass = g.pass[:0]
	for lo := 0; lo < len(g.left); lo += j.batchSize {
		hi := min(lo+j.batchSize, len(g.left))
		for i := lo; i < hi; i++ {
			if err := j.cands.add(exec.Insert, g.row(i), right); err != nil {
				return err
			}
		}
		b := j.cands.batch()
		mask, err := j.residual.Eval(j.ectx, b)
		b.Release()
		if err != nil {
			return fmt.Errorf("join condition: %w", err)
		}
		m := mask.(*array.Boolean)
		for i := range hi - lo {
			g.pass = append(g.pass, m.IsValid(i) && m.Value(i))
		}
		mask.Release()
	}
	return nil
}

// finish ends the group: its left rows that matched (a semi join's), that
// did not (an anti join's), or that did not on an outer left side
// (padded) are emitted.
func (j *WindowJoin) finish(out exec.Emitter) error {
	g := &j.g
	if !g.open {
		return nil
	}
	g.open = false
	defer g.shrink()
	kind := j.spec.Kind
	if kind != Semi && kind != Anti && !kind.outer(0) {
		return nil
	}
	for i, l := range g.left {
		matched := l.matched || g.all
		if kind == Semi && !matched || kind != Semi && matched {
			continue
		}
		if err := j.emit(g.row(i), nil, l.count, out); err != nil {
			return err
		}
	}
	return nil
}

// emit adds times copies of the joined row of left and right (nil:
// NULL-padded).
func (j *WindowJoin) emit(left, right []byte, times uint64, out exec.Emitter) error {
	return j.out.repeat(exec.Insert, left, right, times, j.batchSize, out)
}
