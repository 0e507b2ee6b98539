package planner

import (
	"slices"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/rank"
)

// UpdateFastKey returns the unique key of the Rank's input (its
// columns) when the Top-N can take Flink's UpdateFast strategy, as
// Flink's RankProcessStrategy.analyzeRankProcessStrategies decides: the
// input updates rows (it is not insert-only) without deleting them, it
// has an upsert key that contains the partition columns, and every
// ORDER BY column only moves a row towards the top: a column of the key
// (constant), or an aggregate of insert-only input that only grows,
// COUNT or MAX, ordered descending, or only shrinks, MIN, ordered
// ascending; a MIN or MAX that can be NULL with NULLS LAST, since its
// first value moves a row from NULL to that value. strand knows such keys and such aggregates behind
// projections of a group aggregate; SUM, whose direction depends on its
// values' signs, is not monotonic, as in Flink without value bounds. Only
// ROW_NUMBER takes it (Flink has no streaming RANK at all).
func (r *Rank) UpdateFastKey() ([]int, bool) {
	m := ChangelogMode(r.Input)
	if r.Func != rank.RowNumber || m.InsertOnly() || m.Kinds&Deletes != 0 {
		return nil, false
	}
	g, cols := groupAggUnder(r.Input)
	if g == nil || len(g.Keys) == 0 || !ChangelogMode(g.Input).InsertOnly() {
		// A global aggregate's one row has no key to index it by.
		return nil, false
	}
	var key []int
	for k := range g.Keys {
		i := slices.Index(cols, k)
		if i < 0 {
			return nil, false // a key column projected away
		}
		key = append(key, i)
	}
	for _, p := range r.Partition {
		if !slices.Contains(key, p) {
			return nil, false
		}
	}
	for _, o := range r.Order {
		c := cols[o.Col]
		switch {
		case c < 0:
			return nil, false
		case c < len(g.Keys):
			// A key column is constant for its row.
		default:
			a := g.Aggs[c-len(g.Keys)]
			up := a.Kind == agg.Count || a.Kind == agg.CountStar || a.Kind == agg.Max
			down := a.Kind == agg.Min
			if !(up && o.Desc || down && !o.Desc) {
				return nil, false
			}
			// A MIN or MAX is NULL until its group's first value: where
			// NULLs sort first, that value moves the row down.
			if !a.Out.NotNull && !o.NullsLast {
				return nil, false
			}
		}
	}
	return key, true
}

// groupAggUnder finds the group aggregate n's rows come from through
// projections, and for each of n's columns the aggregate's output column
// it is, -1 for a computed one. A filter stops it: over updates it can
// turn an update into a deletion, which an upsert input would not carry.
func groupAggUnder(n Node) (*GroupAgg, []int) {
	switch n := n.(type) {
	case *GroupAgg:
		cols := make([]int, len(n.Schema()))
		for i := range cols {
			cols[i] = i
		}
		return n, cols
	case *Project:
		g, in := groupAggUnder(n.Input)
		if g == nil {
			return nil, nil
		}
		cols := make([]int, len(n.Exprs))
		for i, e := range n.Exprs {
			cols[i] = -1
			if c, ok := e.(*expr.Col); ok {
				cols[i] = in[c.Index]
			}
		}
		return g, cols
	}
	return nil, nil
}
