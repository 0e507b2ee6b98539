package planner

import (
	"errors"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// existsJoin binds WHERE [NOT] EXISTS (SELECT ... FROM t WHERE cond) as a
// semi join of r with t (EXISTS) or an anti join (NOT EXISTS), as Flink
// decorrelates it: the terms of cond that read a column of the outer
// query are the join's condition, their equalities of an outer column and
// one of t its keys, and the others filter t first. A name of cond is
// looked up in t first, then in the outer query, as SQL scopes nest. The
// subquery's select list says nothing (EXISTS asks only whether a row
// exists). An uncorrelated EXISTS, or one without such an equality, is
// refused: every left row would depend on every right row.
func (b *binder) existsJoin(r *relation, ex *parser.Exists, not bool) (*relation, error) {
	sel, ok := ex.Query.(*parser.Select)
	if !ok || sel.From == nil {
		return nil, errorf(ex.Query.Pos(), ErrUnsupported, "EXISTS needs a SELECT ... FROM ... WHERE subquery correlated with the outer query")
	}
	switch {
	case len(sel.With) > 0 || sel.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || len(sel.OrderBy) > 0 || sel.Limit != nil || len(collectAggs(sel)) > 0:
		return nil, errorf(sel.Start, ErrUnsupported, "EXISTS over a subquery with WITH, DISTINCT, aggregates, GROUP BY, HAVING, ORDER BY or LIMIT is not supported yet")
	case sel.Where == nil:
		return nil, errorf(ex.Start, ErrUnsupported, "EXISTS needs its subquery correlated with the outer query by an equality in its WHERE, such as o.uid = u.uid (an uncorrelated EXISTS would depend on every row)")
	}
	if j, ok := sel.From.(*parser.Join); ok && j.Kind == parser.JoinComma {
		return nil, errorf(j.KindPos, ErrUnsupported, "a comma join in an EXISTS subquery is not supported yet (use JOIN ... ON)")
	}
	sub, err := b.joinSide(sel.From)
	if err != nil {
		return nil, err
	}
	// Over the outer columns then the subquery's, the outer ones seen
	// only where the subquery has no such name.
	both := &scope{cols: append(append([]column{}, r.scope.cols...), sub.scope.cols...), shadowed: len(r.scope.cols)}
	var own, on []expr.Expr
	for _, w := range whereTerms(sel.Where, nil) {
		if subquery(w) {
			return nil, errorf(w.Pos(), ErrUnsupported, "a subquery inside an EXISTS subquery is not supported yet")
		}
		e, err := bindExpr(&exprCtx{scope: sub.scope, clause: "in WHERE"}, w)
		if errors.Is(err, ErrUnknownColumn) {
			if e, err = bindExpr(&exprCtx{scope: both, clause: "in WHERE"}, w); err == nil {
				if err := want(w, e, types.Boolean); err != nil {
					return nil, err
				}
				on = append(on, e)
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		if err := want(w, e, types.Boolean); err != nil {
			return nil, err
		}
		own = append(own, e)
	}
	if len(on) == 0 {
		return nil, errorf(ex.Start, ErrUnsupported, "EXISTS needs its subquery correlated with the outer query by an equality in its WHERE, such as o.uid = u.uid (an uncorrelated EXISTS would depend on every row)")
	}
	right := sub.node
	if cond := conjunction(own); cond != nil {
		right = &Filter{Input: right, Cond: cond}
	}
	kind := SemiJoin
	if not {
		kind = AntiJoin
	}
	j := &Join{Left: r.node, Right: right, Kind: kind, At: ex.Start}
	n := len(r.scope.cols)
	var rest []expr.Expr
	for _, c := range on {
		if lk, rk, ok := equiKey(c, n); ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, lk), append(j.RightKeys, rk-n)
			continue
		}
		rest = append(rest, c)
	}
	if len(j.LeftKeys) == 0 {
		return nil, errorf(sel.Where.Pos(), ErrUnsupported, "EXISTS needs an equality of a column of the subquery and one of the outer query in its WHERE, such as o.uid = u.uid (strand has no nested-loop join on streams)")
	}
	j.Residual = conjunction(rest)
	return b.filtered(r, j), nil
}

// errNoSubquery says that a WHERE term is no subquery predicate.
var errNoSubquery = errors.New("no subquery")

// subqueryTerm binds the WHERE term c of r, a subquery predicate, as a
// semi or anti join of r; errNoSubquery for any other term.
func (b *binder) subqueryTerm(r *relation, c parser.Expr) (*relation, error) {
	switch c := c.(type) {
	case *parser.InQuery:
		return b.semiJoin(r, c)
	case *parser.Exists:
		return b.existsJoin(r, c, false)
	case *parser.Unary:
		if ex, ok := c.Expr.(*parser.Exists); ok && c.Op == "NOT" {
			return b.existsJoin(r, ex, true)
		}
	}
	return nil, errNoSubquery
}
