package memseg

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"testing"
)

// sortCase is a random table of rows of every type with a random sort key.
type sortCase struct {
	schema *Schema
	cols   []KeyCol // key columns
	fields []int    // their fields
	layout *Layout
	rows   [][]val
}

func newSortCase(r *rand.Rand, nrows int) sortCase {
	var c sortCase
	types := append([]Type(nil), allTypes...)
	r.Shuffle(len(types), func(i, j int) { types[i], types[j] = types[j], types[i] })
	c.schema, _ = NewSchema(types...)
	for _, f := range r.Perm(len(types))[:1+r.IntN(4)] {
		c.fields = append(c.fields, f)
		c.cols = append(c.cols, KeyCol{Type: types[f], Order: randOrder(r), Width: r.IntN(10)})
	}
	c.layout, _ = NewLayout(c.cols...)
	// Few distinct values per column, so that ties and equal prefixes are
	// common and later key columns decide.
	pool := make([][]val, len(types))
	for i, t := range types {
		for range 1 + r.IntN(12) {
			pool[i] = append(pool[i], randVal(r, t))
		}
	}
	long := []byte("a string far longer than any prefix of the layout, so that it truncates")
	for range nrows {
		row := make([]val, len(types))
		for i, t := range types {
			row[i] = pool[i][r.IntN(len(pool[i]))]
			if (t == String || t == Bytes) && !row[i].null && r.IntN(4) == 0 {
				n := r.IntN(len(long))
				row[i].s = append(long[:n:n], row[i].s...)
			}
		}
		c.rows = append(c.rows, row)
	}
	return c
}

func (c *sortCase) key(dst []byte, row []val) []byte {
	for i, f := range c.fields {
		dst = encode(dst, row[f], c.cols[i].Order)
	}
	return dst
}

// want sorts the rows by the model's SQL comparison and returns the keys
// and (row-encoded) values in that order.
func (c *sortCase) want() (keys, values [][]byte) {
	rows := slices.Clone(c.rows)
	sort.SliceStable(rows, func(i, j int) bool {
		for k, f := range c.fields {
			if r := sqlCompare(rows[i][f], rows[j][f], c.cols[k].Order); r != 0 {
				return r < 0
			}
		}
		return false
	})
	w := NewRowWriter(c.schema)
	for _, row := range rows {
		keys = append(keys, c.key(nil, row))
		values = append(values, bytes.Clone(writeRow(w, row)))
	}
	return keys, values
}

// add feeds every row to add.
func (c *sortCase) add(t *testing.T, add func(k, v []byte) error) {
	w := NewRowWriter(c.schema)
	var k []byte
	for _, row := range c.rows {
		k = c.key(k[:0], row)
		if err := add(k, writeRow(w, row)); err != nil {
			t.Fatal(err)
		}
	}
}

// check compares a sorted output with the reference: the same keys in the
// same order, and within each run of equal keys the same values (in any
// order: the sorts are not stable). It also checks that each value is the
// row its key came from.
func (c *sortCase) check(t *testing.T, keys, values [][]byte) {
	t.Helper()
	wk, wv := c.want()
	if len(keys) != len(wk) {
		t.Fatalf("%d records, want %d", len(keys), len(wk))
	}
	for i := range keys {
		if !bytes.Equal(keys[i], wk[i]) {
			t.Fatalf("layout %v: record %d: key %x, want %x", c.cols, i, keys[i], wk[i])
		}
		row := c.schema.Row(values[i])
		var k []byte
		for j, f := range c.fields {
			k = row.AppendKey(k, f, c.cols[j].Order)
		}
		if !bytes.Equal(k, keys[i]) {
			t.Fatalf("record %d: value does not belong to key %x", i, keys[i])
		}
	}
	for i := 0; i < len(keys); {
		j := i
		for j < len(keys) && bytes.Equal(keys[j], keys[i]) {
			j++
		}
		got, want := slices.Clone(values[i:j]), slices.Clone(wv[i:j])
		slices.SortFunc(got, bytes.Compare)
		slices.SortFunc(want, bytes.Compare)
		for k := range got {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("records %d..%d: the values of key %x differ", i, j, keys[i])
			}
		}
		i = j
	}
}

func TestSortBufferProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	// Under the race detector 15 trials: every segment size and raw
	// prefixes still come up (trial%4, trial%5).
	for trial := range scaled(60, 15) {
		c := newSortCase(r, 1+r.IntN(3000))
		m := newManager(t, 1<<30, 256<<(trial%4)) // small segments: many of them
		layout := c.layout
		if trial%5 == 0 {
			layout = nil // raw prefixes
		}
		b, err := NewSortBuffer(m, layout)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 { // a second round reuses the segments
			b.Reset()
			c.add(t, b.Add)
			b.Sort()
			var keys, values [][]byte
			for it := b.Iter(); it.Next(); {
				keys = append(keys, bytes.Clone(it.Key()))
				values = append(values, bytes.Clone(it.Value()))
			}
			if round == 0 {
				for i := range b.Len() {
					k, v := b.Record(i)
					if !bytes.Equal(k, keys[i]) || !bytes.Equal(v, values[i]) {
						t.Fatalf("Record(%d) differs from the iterator", i)
					}
				}
			}
			c.check(t, keys, values)
		}
		b.Release()
		if m.Used() != 0 {
			t.Fatalf("Used = %d after Release", m.Used())
		}
	}
}

func TestSorterProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	for trial := range scaled(30, 10) {
		c := newSortCase(r, 1+r.IntN(4000))
		// 1 KiB segments and 24 to 64 KiB budgets: many runs, and with
		// the smallest budgets more runs than read buffers.
		m := newManager(t, int64(24+r.IntN(40))<<10, 1<<10)
		layout := c.layout
		if trial%5 == 0 {
			layout = nil
		}
		s, err := NewSorter(m, layout, dir)
		if err != nil {
			t.Fatal(err)
		}
		c.add(t, s.Add)
		it, err := s.Iter()
		if err != nil {
			t.Fatal(err)
		}
		var keys, values [][]byte
		for it.Next() {
			keys = append(keys, bytes.Clone(it.Key()))
			values = append(values, bytes.Clone(it.Value()))
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		c.check(t, keys, values)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if m.Used() != 0 {
			t.Fatalf("Used = %d after Close", m.Used())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("%d files left in the spill directory", len(ents))
		}
	}
}

func TestSortBufferFull(t *testing.T) {
	m := newManager(t, 4<<10, 1<<10)
	l, _ := NewLayout(KeyCol{Type: Int64})
	b, err := NewSortBuffer(m, l)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]byte, 100)
	n := 0
	for ; ; n++ {
		err := b.Add(AppendInt64(nil, int64(-n), Order{}), v)
		if errors.Is(err, ErrNoMemory) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != n || n == 0 {
		t.Fatalf("Len %d after %d adds", b.Len(), n)
	}
	b.Sort()
	for i := range n {
		k, _ := b.Record(i)
		if got, _, _, _ := DecodeInt64(k, Order{}); got != int64(i-n+1) {
			t.Fatalf("record %d: %d", i, got)
		}
	}
	if err := b.Add([]byte{1, 2}, nil); err == nil {
		t.Error("a key that does not fit the layout was accepted")
	}
	b.Release()
	if m.Used() != 0 {
		t.Fatalf("Used = %d", m.Used())
	}
}

func TestSortLargeRecords(t *testing.T) {
	m := newManager(t, 32<<10, 1<<10)
	dir := t.TempDir()
	s, err := NewSorter(m, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 1))
	want := map[string]int{}
	for i := range 3000 {
		k := fmt.Appendf(nil, "%08d", r.IntN(1000))
		v := make([]byte, 10)
		if i%50 == 0 {
			v = make([]byte, 3000) // larger than a segment
		}
		v[0] = byte(i)
		want[string(k)+string(v)]++
		if err := s.Add(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if s.Runs() == 0 {
		t.Fatal("nothing spilled")
	}
	it, err := s.Iter()
	if err != nil {
		t.Fatal(err)
	}
	var prev []byte
	for it.Next() {
		if bytes.Compare(it.Key(), prev) < 0 {
			t.Fatal("out of order")
		}
		prev = append(prev[:0], it.Key()...)
		want[string(it.Key())+string(it.Value())]--
	}
	if it.Err() != nil {
		t.Fatal(it.Err())
	}
	for k, n := range want {
		if n != 0 {
			t.Fatalf("record %q: count off by %d", k[:8], n)
		}
	}
}

func TestSorterCorruptRun(t *testing.T) {
	m := newManager(t, 16<<10, 1<<10)
	dir := t.TempDir()
	s, err := NewSorter(m, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := s.Add(fmt.Appendf(nil, "%06d", i*7919%2000), []byte("value")); err != nil {
			t.Fatal(err)
		}
	}
	if s.Runs() < 2 {
		t.Fatalf("%d runs", s.Runs())
	}
	f := s.runs[0].f
	if _, err := f.WriteAt([]byte{0xEE}, 100); err != nil {
		t.Fatal(err)
	}
	it, err := s.Iter()
	if err == nil {
		for it.Next() {
		}
		err = it.Err()
	}
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("checksum mismatch")) {
		t.Fatalf("corrupt run read with error %v", err)
	}
	if m.Used() != 0 && !errors.Is(s.Add(nil, nil), err) {
		t.Fatalf("failed sorter holds %d bytes", m.Used())
	}
	s.Close()
	if m.Used() != 0 {
		t.Fatalf("Used = %d after Close", m.Used())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%d files left", len(ents))
	}
}
