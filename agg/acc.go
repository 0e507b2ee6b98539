package agg

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/types"
)

// ErrCorrupt is wrapped by the error of Get when its input is not an
// accumulator's state (a damaged checkpoint or spill).
var ErrCorrupt = errors.New("agg: malformed accumulator state")

// Acc is one aggregate's state for every group of a set of groups, one
// slot per group number (0, 1, ...), kept in typed columns so that an
// update is one tight loop over a batch's rows. Groups are numbered by the
// caller (a window's hash table, a group aggregate's); an Acc knows
// nothing of keys, windows or memory budgets: it reports what it holds,
// and the caller charges it.
//
// An Acc is used by one goroutine. A slot's state is that of a group
// without rows when it is first grown, after Reset, and after Get of the
// state of a group without rows.
type Acc interface {
	// Grow makes room for groups 0..n-1: the new slots are empty. It
	// never shrinks.
	Grow(n int)
	// Update folds rows of col into the slots of their groups: rows[i]
	// goes to groups[i], and rows and groups have the same length. NULLs
	// in col are skipped (a FILTER is the caller's: it passes only the
	// rows that pass it); col is nil for COUNT(*). Update cannot fail:
	// overflow is found when the result is taken, so that it depends on
	// the rows alone, not on the order of updates and merges.
	Update(col arrow.Array, rows, groups []int32)
	// AppendTo appends the results of groups, in that order, to b, a
	// builder of the Call's Out type. It fails, wrapping ErrOverflow, when
	// a result does not fit its type; b then holds the results before it.
	AppendTo(b array.Builder, groups []int32) error
	// Put appends group g's state to dst and returns the extended slice.
	// The encoding is self-delimiting and stable across versions (state
	// written by an older strand reads the same).
	Put(dst []byte, g int32) []byte
	// Get reads a state Put wrote from the front of src into group g,
	// which must exist, replacing g's state, and returns the rest of src.
	// It fails, wrapping ErrCorrupt, if src does not start with one.
	Get(src []byte, g int32) ([]byte, error)
	// Reset makes group g empty.
	Reset(g int32)
	// Merge folds group h's state into group g's, as if g had also seen
	// h's rows; h is unchanged. For a DISTINCT aggregate merging counts a
	// value twice if both saw it: the caller merges the distinct values
	// and updates once per value instead.
	Merge(g, h int32)
	// MergeFrom is Merge from group h of src, an Acc that New made for
	// the same call and input type: a window fires by merging the slices
	// it covers, each with accumulators of its own.
	MergeFrom(g int32, src Acc, h int32)
	// MergeRows is MergeFrom of group h[i] of src into group g[i], for
	// every i (g and h have the same length): one call, and one loop,
	// for the groups a window's firing merges from one slice.
	MergeRows(g []int32, src Acc, h []int32)
	// Size is the bytes one group's slot takes in the columns; Heap the
	// bytes the slots hold outside them (the strings of MIN and MAX),
	// which change with the values kept. The caller charges both to its
	// memory budget.
	Size() int
	Heap() int
}

// New returns an empty accumulator (no slots) for call c over an argument
// of type in (ignored for COUNT(*)). c.Out must be ResultType(c.Kind, in).
func New(a Call, in types.Type) (Acc, error) { return newAcc(a, in, false) }

// NewRetracting is New for an input that may take rows back: the
// accumulator it returns is also a Retracter, a MIN or MAX one that keeps
// the group's values with their multiplicities (multiset.go).
func NewRetracting(a Call, in types.Type) (Acc, error) { return newAcc(a, in, true) }

func newAcc(a Call, in types.Type, retract bool) (Acc, error) {
	switch a.Kind {
	case CountStar, Count:
		return &countAcc{}, nil
	case Sum, Avg:
		switch {
		case in.IsIntegral():
			return &intSumAcc{ovf: ovf{name: a.name(), out: a.Out}, avg: a.Kind == Avg}, nil
		case in.Kind == types.Float || in.Kind == types.Double:
			return &floatSumAcc{avg: a.Kind == Avg}, nil
		case in.Kind == types.Decimal:
			return newDecSum(a, in)
		}
	case Min, Max:
		return newExtreme(in, a.Kind == Max, retract)
	}
	return nil, fmt.Errorf("no accumulator for %v(%v)", a.Kind, in)
}

// Grow extends s with zero values to length n, doubling its capacity
// when it must grow: the typed slot slices of accumulators and panes.
func Grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	out := make([]T, n, max(n, 2*cap(s)))
	copy(out, s)
	return out
}
