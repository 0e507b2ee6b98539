package agg

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/memseg"
)

type countAcc struct {
	n   []int64
	mem *memseg.Manager // see NewIn
	// warmed keeps warm's reads (warm.go).
	warmed uint64
}

func (c *countAcc) Grow(n int) { c.n = growIn(c.mem, c.n, n) }

func (c *countAcc) freeCols() {
	freeIn(c.mem, c.n)
	c.n = nil
}

func (c *countAcc) Update(col arrow.Array, rows, groups []int32) {
	c.warmed += warm(c.n, len(groups))
	if col == nil || col.NullN() == 0 {
		for _, g := range groups {
			c.n[g]++
		}
		return
	}
	for i, r := range rows {
		if col.IsValid(int(r)) {
			c.n[groups[i]]++
		}
	}
}

func (c *countAcc) Reset(g int32)    { c.n[g] = 0 }
func (c *countAcc) Merge(g, h int32) { c.n[g] += c.n[h] }

func (c *countAcc) MergeFrom(g int32, src Acc, h int32) { c.n[g] += src.(*countAcc).n[h] }

func (c *countAcc) MergeRows(g []int32, src Acc, h []int32) {
	o := src.(*countAcc).n
	h = h[:len(g)]
	for i, x := range g {
		c.n[x] += o[h[i]]
	}
}

func (c *countAcc) Size() int { return 8 }
func (c *countAcc) Heap() int { return 0 }

func (c *countAcc) Put(dst []byte, g int32) []byte { return binary.AppendVarint(dst, c.n[g]) }

func (c *countAcc) Get(src []byte, g int32) ([]byte, error) {
	v, n := binary.Varint(src)
	if n <= 0 {
		return nil, ErrCorrupt
	}
	c.n[g] = v
	return src[n:], nil
}

func (c *countAcc) AppendTo(b array.Builder, groups []int32) error {
	c.warmed += warm(c.n, len(groups))
	ib := b.(*array.Int64Builder)
	ib.Reserve(len(groups))
	for _, g := range groups {
		ib.UnsafeAppend(c.n[g])
	}
	return nil
}

// Touch implements Toucher.
func (c *countAcc) Touch(groups []int32) uint64 { return touch(c.n, groups) }
