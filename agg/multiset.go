package agg

import (
	"encoding/binary"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// multiset is a MIN or MAX that can retract, as Flink's
// MinWithRetractAggFunction: each group keeps its distinct values in
// order, each with how many rows hold it, so that when the extreme is
// taken back the next one is at hand. A group's state grows with its
// distinct values (a sorted slice: an insert of a new value moves the
// larger ones), which is what retraction costs; an append-only input
// uses extreme, one value per group.
type multiset[T any] struct {
	values[T]
	max  bool
	held int // bytes the sets hold on the heap
	sets [][]counted[T]
}

// counted is a value and the number of rows that hold it.
type counted[T any] struct {
	v T
	n int64
}

func (m *multiset[T]) Grow(n int) { m.sets = Grow(m.sets, n) }

// find returns where x is, or would be, in set s.
func (m *multiset[T]) find(s []counted[T], x T) (int, bool) {
	return slices.BinarySearchFunc(s, x, func(c counted[T], x T) int {
		switch {
		case m.less(c.v, x):
			return -1
		case m.less(x, c.v):
			return 1
		}
		return 0
	})
}

// add adds n rows of value x to group g.
func (m *multiset[T]) add(g int32, x T, n int64) {
	s := m.sets[g]
	i, ok := m.find(s, x)
	if ok {
		s[i].n += n
		return
	}
	m.held += m.itemBytes(x)
	m.sets[g] = slices.Insert(s, i, counted[T]{v: x, n: n})
}

func (m *multiset[T]) itemBytes(x T) int {
	n := m.width + 8
	if m.bytes != nil {
		n += m.bytes(x)
	}
	return n
}

func (m *multiset[T]) Update(col arrow.Array, rows, groups []int32) {
	for i, r := range rows {
		if col.IsValid(int(r)) {
			m.add(groups[i], m.read(col, int(r)), 1)
		}
	}
}

func (m *multiset[T]) Retract(col arrow.Array, rows, groups []int32) {
	for i, r := range rows {
		if !col.IsValid(int(r)) {
			continue
		}
		g := groups[i]
		s := m.sets[g]
		j, ok := m.find(s, m.read(col, int(r)))
		if !ok {
			continue
		}
		if s[j].n--; s[j].n <= 0 {
			m.held -= m.itemBytes(s[j].v)
			m.sets[g] = slices.Delete(s, j, j+1)
		}
	}
}

func (m *multiset[T]) AppendTo(b array.Builder, groups []int32) error {
	for _, g := range groups {
		s := m.sets[g]
		switch {
		case len(s) == 0:
			b.AppendNull()
		case m.max:
			m.build(b, s[len(s)-1].v)
		default:
			m.build(b, s[0].v)
		}
	}
	return nil
}

// Put writes the number of distinct values, then each value and its
// count, in order.
func (m *multiset[T]) Put(dst []byte, g int32) []byte {
	s := m.sets[g]
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	for _, c := range s {
		dst = binary.AppendUvarint(m.enc(dst, c.v), uint64(c.n))
	}
	return dst
}

func (m *multiset[T]) Get(src []byte, g int32) ([]byte, error) {
	m.Reset(g)
	k, n := binary.Uvarint(src)
	if n <= 0 || k > uint64(len(src)) {
		return nil, ErrCorrupt
	}
	src = src[n:]
	s := make([]counted[T], 0, k)
	for range k {
		v, rest, err := m.dec(src)
		if err != nil {
			return nil, err
		}
		c, n := binary.Uvarint(rest)
		if n <= 0 || c == 0 || len(s) > 0 && !m.less(s[len(s)-1].v, v) {
			return nil, ErrCorrupt
		}
		s = append(s, counted[T]{v: v, n: int64(c)})
		m.held += m.itemBytes(v)
		src = rest[n:]
	}
	m.sets[g] = s
	return src, nil
}

func (m *multiset[T]) Reset(g int32) {
	for _, c := range m.sets[g] {
		m.held -= m.itemBytes(c.v)
	}
	m.sets[g] = nil
}

func (m *multiset[T]) Merge(g, h int32) {
	for _, c := range m.sets[h] {
		m.add(g, c.v, c.n)
	}
}

func (m *multiset[T]) MergeFrom(g int32, src Acc, h int32) {
	for _, c := range src.(*multiset[T]).sets[h] {
		m.add(g, c.v, c.n)
	}
}

func (m *multiset[T]) MergeRows(g []int32, src Acc, h []int32) {
	for i, x := range g {
		m.MergeFrom(x, src, h[i])
	}
}

func (m *multiset[T]) Size() int { return 24 }
func (m *multiset[T]) Heap() int { return m.held }
