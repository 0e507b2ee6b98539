package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// setOp binds UNION ALL of two queries: the columns pair up by position,
// each pair converted to the type both convert to. UNION (DISTINCT) is
// UNION ALL under a group aggregate of all its columns, as Flink plans
// it. INTERSECT and EXCEPT, which Flink plans as joins and aggregates
// (and, with ALL, a table function that repeats rows), are refused.
func (b *binder) setOp(q *parser.SetOp) (*relation, error) {
	if q.Op != "UNION" {
		what := q.Op
		if q.All {
			what += " ALL"
		}
		return nil, errorf(q.OpPos, ErrUnsupported, "%s is not supported on streams (UNION and UNION ALL are)", what)
	}
	if len(q.With) > 0 {
		b.ctes = append(b.ctes, q.With...)
		defer func() { b.ctes = b.ctes[:len(b.ctes)-len(q.With)] }()
	}
	if len(q.OrderBy) > 0 || q.Limit != nil {
		return nil, errorf(q.OpPos, ErrUnsupported, "ORDER BY and LIMIT of a %s are not supported on streams", unionName(q))
	}
	l, err := b.query(q.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.query(q.Right)
	if err != nil {
		return nil, err
	}
	for _, side := range []*relation{l, r} {
		if err := side.ranked(); err != nil {
			return nil, err
		}
	}
	lc, rc := l.scope.cols, r.scope.cols
	if len(lc) != len(rc) {
		return nil, errorf(q.OpPos, ErrType, "%s of %d columns and %d columns", unionName(q), len(lc), len(rc))
	}
	out := make(types.Schema, len(lc))
	for i := range lc {
		t, ok := commonType(lc[i].typ, rc[i].typ)
		if !ok || (lc[i].typ.Kind == types.String) != (rc[i].typ.Kind == types.String) {
			return nil, errorf(q.OpPos, ErrType, "%s column %d: %s (%s) and %s (%s) have no common type; CAST one", unionName(q), i+1, lc[i].name, lc[i].typ, rc[i].name, rc[i].typ)
		}
		out[i] = types.Field{Name: lc[i].name, Type: t.Plain()}
	}
	u := &Union{Out: out}
	for _, in := range []*relation{l, r} {
		u.Ins = append(u.Ins, castTo(in, out))
	}
	sc := &scope{}
	for _, f := range out {
		sc.cols = append(sc.cols, column{name: f.Name, typ: f.Type})
	}
	if !q.All {
		return b.distinct(&relation{node: u, scope: sc}, q.OpPos, "UNION")
	}
	return &relation{node: u, scope: sc}, nil
}

// castTo projects r's columns to the types of out, or returns r's node
// when they have them already.
func castTo(r *relation, out types.Schema) Node {
	p := &Project{Input: r.node, Out: make(types.Schema, len(out))}
	same := true
	for i, c := range r.scope.cols {
		var e expr.Expr = &expr.Col{Index: i, Name: c.name, T: c.typ}
		if c.typ != out[i].Type {
			same = false
			if !types.Same(c.typ, out[i].Type) || c.typ.Kind == types.Decimal {
				e = &expr.Cast{X: e, T: out[i].Type}
			}
		}
		p.Exprs = append(p.Exprs, e)
		p.Out[i] = types.Field{Name: c.name, Type: out[i].Type}
	}
	if same {
		return r.node
	}
	return p
}

// unionName is the set operation as written, for messages.
func unionName(q *parser.SetOp) string {
	if q.All {
		return q.Op + " ALL"
	}
	return q.Op
}
