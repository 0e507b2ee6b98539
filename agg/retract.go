package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Retracter is an accumulator that can take rows back: the changelog's
// -U and -D rows undo what their +I and +U rows did. COUNT and the sums
// retract on the state they keep (a count of rows and an exact sum);
// MIN and MAX retract only as the multiset that NewRetracting makes.
type Retracter interface {
	// Retract undoes Update of rows of col in their groups, as Update's
	// arguments. A value the group does not hold is ignored (a
	// retraction of a row the aggregate never saw).
	Retract(col arrow.Array, rows, groups []int32)
}

// retractedFromEmpty: a count or a sum takes back a value only from a
// group that holds values (a count above 0). A changelog that retracts rows the
// aggregate never saw (a CDC stream read from its middle) would
// otherwise drive the count below 0, which the encoding cannot hold: a
// negative count marks a sum wider than 64 or 128 bits (Put), and the
// checkpoint would not restore. A value retracted from a group that
// holds other values cannot be told from one it holds and is subtracted.

func (c *countAcc) Retract(col arrow.Array, rows, groups []int32) {
	for i, r := range rows {
		if g := groups[i]; (col == nil || col.IsValid(int(r))) && c.n[g] > 0 {
			c.n[g]-- // not below 0: retractedFromEmpty
		}
	}
}

func (s *intSumAcc) Retract(col arrow.Array, rows, groups []int32) {
	switch a := col.(type) {
	case *array.Int64:
		unsumInts(s.slots, a.Int64Values(), a, rows, groups)
	case *array.Int32:
		unsumInts(s.slots, a.Int32Values(), a, rows, groups)
	}
}

func unsumInts[V int32 | int64](slots []islot, v []V, a arrow.Array, rows, groups []int32) {
	for i, r := range rows {
		if !a.IsValid(int(r)) {
			continue
		}
		sl, x := &slots[groups[i]], int64(v[r])
		if sl.n == 0 {
			continue // no value to take back (retractedFromEmpty)
		}
		l := sl.lo
		d := l - x
		sl.lo = d
		if (l^x)&(l^d) < 0 {
			sl.wraps -= 1 | x>>63 // -1 past the bottom, +1 past the top
		}
		sl.n--
	}
}

// Retract subtracts exactly (fsum.go), so a group's sum after a value is
// retracted is what it was before the value was added; a group left
// without values is emptied, which frees a full accumulator it used.
func (s *floatSumAcc) Retract(col arrow.Array, rows, groups []int32) {
	switch a := col.(type) {
	case *array.Float64:
		foldFloats(s, a.Float64Values(), a, rows, groups, -1)
	case *array.Float32:
		foldFloats(s, a.Float32Values(), a, rows, groups, -1)
	}
	for _, g := range groups {
		if s.slots[g].n() == 0 {
			s.Reset(g)
		}
	}
}

func (s *decSumAcc) Retract(col arrow.Array, rows, groups []int32) {
	a := col.(*array.Decimal128)
	for i, r := range rows {
		if a.IsValid(int(r)) {
			sl := &s.slots[groups[i]]
			if sl.n == 0 {
				continue // no value to take back (retractedFromEmpty)
			}
			sl.sum.add(a.Value(int(r)).Negate())
			sl.n--
		}
	}
}
