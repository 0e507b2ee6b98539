package planner

import (
	"strings"

	"github.com/strandsql/strand/groupagg"
	"github.com/strandsql/strand/parser"
)

// distinctGroups rewrites SELECT DISTINCT items FROM ... (no GROUP BY, no
// aggregates) as SELECT items FROM ... GROUP BY items, as Calcite does for
// Flink: a group aggregate without aggregates over every selected
// column, which over a window TVF's rows grouped by window_start and
// window_end is a window aggregate, as in Flink. A * expands to the
// columns of from it names. It returns the rewritten SELECT.
func distinctGroups(q *parser.Select, from *relation) *parser.Select {
	d := *q
	d.Distinct, d.Items, d.GroupBy = false, nil, nil
	for _, it := range q.Items {
		st, ok := it.Expr.(*parser.Star)
		if !ok {
			d.Items = append(d.Items, it)
			d.GroupBy = append(d.GroupBy, it.Expr)
			continue
		}
		qual := strings.Join(st.Qualifier, ".")
		for _, c := range from.scope.cols {
			if qual != "" && !strings.EqualFold(c.qual, qual) {
				continue
			}
			parts := []string{c.name}
			if c.qual != "" {
				parts = []string{c.qual, c.name}
			}
			id := &parser.Ident{Start: st.Start, Parts: parts}
			d.Items = append(d.Items, &parser.SelectItem{Expr: id})
			d.GroupBy = append(d.GroupBy, id)
		}
	}
	return &d
}

// distinct keeps one copy of each row of r: a group aggregate over all of
// its columns without aggregates, as Flink plans SELECT DISTINCT over an
// aggregate and UNION (without ALL). Its changelog is the aggregate's: a
// row's first copy inserts it, and over an input that takes rows back the
// last copy's retraction deletes it. at is the DISTINCT or UNION, for
// errors about the aggregate.
func (b *binder) distinct(r *relation, at parser.Pos, what string) (*relation, error) {
	if err := r.ranked(); err != nil {
		return nil, err
	}
	keys := make([]int, len(r.scope.cols))
	for i := range keys {
		keys[i] = i
	}
	g := &GroupAgg{Input: r.node, Keys: keys, At: at, What: what}
	spec := groupagg.Spec{In: r.node.Schema(), Keys: keys}
	g.out = spec.Out()
	b.defines(g)
	return &relation{node: g, scope: scopeOf(g.out, "")}, nil
}
