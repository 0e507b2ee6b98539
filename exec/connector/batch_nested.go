package connector

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// Nested columns in a batch: a ROW keeps one column per field, each with
// one entry per row (a NULL row has NULL fields); an ARRAY keeps its
// elements in one column and a MAP its keys and values in two, with
// offs[i] the first element of row i, as Arrow lists do.

// nest makes c, of a nested type, ready to take rows.
func (c *column) nest() {
	c.st = sNest
	var kt []types.Type
	switch c.t.Kind {
	case types.Row:
		for _, f := range c.t.Fields() {
			kt = append(kt, f.Type)
		}
	case types.Array:
		kt = []types.Type{c.t.Elem()}
		c.offs.push(c.alloc, 0)
	default:
		kt = []types.Type{c.t.Key(), c.t.Elem()}
		c.offs.push(c.alloc, 0)
	}
	b := newBatch(kt2schema(kt))
	c.kids = b.cols
	for k := range c.kids {
		c.kids[k].use(c.alloc)
	}
}

func kt2schema(ts []types.Type) types.Schema {
	s := make(types.Schema, len(ts))
	for i, t := range ts {
		s[i] = types.Field{Name: "f", Type: t.Nullable()}
	}
	return s
}

func (c *column) nullNested() {
	if c.t.Kind == types.Row {
		for k := range c.kids {
			c.kids[k].null()
		}
		return
	}
	c.offs.push(c.alloc, c.offs.v[len(c.offs.v)-1])
}

// filled marks the row just filled (its fields or elements appended) as
// not NULL.
func (c *column) filled() {
	c.mark(true)
	if c.t.Kind != types.Row {
		c.offs.push(c.alloc, int32(c.kids[0].n))
	}
}

func (c *column) truncateNested(n int) {
	if c.t.Kind == types.Row {
		for k := range c.kids {
			c.kids[k].truncate(n)
		}
		return
	}
	c.offs.v = c.offs.v[:n+1]
	for k := range c.kids {
		c.kids[k].truncate(int(c.offs.v[n]))
	}
}

func (c *column) buildNested(n int, bitmap *memory.Buffer, nulls int) arrow.Array {
	if bitmap != nil {
		defer bitmap.Release()
	}
	kidLen := n
	if c.t.Kind != types.Row {
		kidLen = int(c.offs.v[n])
	}
	kids := make([]arrow.ArrayData, len(c.kids))
	for k := range c.kids {
		c.kids[k].truncate(kidLen)
		a := c.kids[k].build()
		kids[k] = a.Data()
		defer a.Release()
	}
	bufs := []*memory.Buffer{bitmap}
	if c.t.Kind != types.Row {
		ob := c.offs.buffer(c.alloc)
		c.offs.push(c.alloc, 0)
		defer ob.Release()
		bufs = append(bufs, ob)
	}
	if c.t.Kind == types.Map {
		entries := c.dt.(*arrow.MapType).Elem()
		e := array.NewData(entries, kidLen, []*memory.Buffer{nil}, kids, 0, 0)
		defer e.Release()
		kids = []arrow.ArrayData{e}
	}
	d := array.NewData(c.dt, n, bufs, kids, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
