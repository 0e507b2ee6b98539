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
	right, on, err := b.correlated(r, sel, "EXISTS", func() error {
		return errorf(ex.Start, ErrUnsupported, "EXISTS needs its subquery correlated with the outer query by an equality in its WHERE, such as o.uid = u.uid (an uncorrelated EXISTS would depend on every row)")
	})
	if err != nil {
		return nil, err
	}
	kind := SemiJoin
	if not {
		kind = AntiJoin
	}
	j := &Join{Left: r.node, Right: right.node, Kind: kind, At: ex.Start}
	return b.correlate(r, j, on, nil, func() error {
		return errorf(sel.Where.Pos(), ErrUnsupported, "EXISTS needs an equality of a column of the subquery and one of the outer query in its WHERE, such as o.uid = u.uid (strand has no nested-loop join on streams)")
	})
}

// correlated binds the FROM and WHERE of a subquery (of EXISTS or IN, as
// what) correlated with the outer query r, as Flink decorrelates it: the
// terms of its WHERE that read a column of r are returned as on, over r's
// columns then the subquery's, and the others filter the subquery's rows
// first. A name of the WHERE is looked up in the subquery first, then in
// r, as SQL scopes nest. A subquery whose WHERE reads no column of r
// returns the error uncorrelated makes.
func (b *binder) correlated(r *relation, sel *parser.Select, what string, uncorrelated func() error) (right *relation, on []expr.Expr, err error) {
	switch {
	case len(sel.With) > 0 || sel.Distinct || len(sel.GroupBy) > 0 || sel.Having != nil || len(sel.OrderBy) > 0 || sel.Limit != nil || len(collectAggs(sel)) > 0:
		return nil, nil, errorf(sel.Start, ErrUnsupported, "%s over a subquery with WITH, DISTINCT, aggregates, GROUP BY, HAVING, ORDER BY or LIMIT is not supported yet", what)
	case sel.Where == nil:
		return nil, nil, uncorrelated()
	}
	if j, ok := sel.From.(*parser.Join); ok && j.Kind == parser.JoinComma {
		return nil, nil, errorf(j.KindPos, ErrUnsupported, "a comma join in an %s subquery is not supported yet (use JOIN ... ON)", what)
	}
	sub, err := b.joinSide(sel.From)
	if err != nil {
		return nil, nil, err
	}
	// Over the outer columns then the subquery's, the outer ones seen
	// only where the subquery has no such name.
	both := &scope{cols: append(append([]column{}, r.scope.cols...), sub.scope.cols...), shadowed: len(r.scope.cols)}
	var own []expr.Expr
	for _, w := range whereTerms(sel.Where, nil) {
		if subquery(w) {
			return nil, nil, errorf(w.Pos(), ErrUnsupported, "a subquery inside an %s subquery is not supported yet", what)
		}
		e, err := bindExpr(&exprCtx{scope: sub.scope, clause: "in WHERE"}, w)
		if errors.Is(err, ErrUnknownColumn) {
			if e, err = bindExpr(&exprCtx{scope: both, clause: "in WHERE"}, w); err == nil {
				if err := want(w, e, types.Boolean); err != nil {
					return nil, nil, err
				}
				on = append(on, e)
				continue
			}
		}
		if err != nil {
			return nil, nil, err
		}
		if err := want(w, e, types.Boolean); err != nil {
			return nil, nil, err
		}
		own = append(own, e)
	}
	if len(on) == 0 {
		return nil, nil, uncorrelated()
	}
	if cond := conjunction(own); cond != nil {
		sub = &relation{node: &Filter{Input: sub.node, Cond: cond}, scope: sub.scope}
	}
	return sub, on, nil
}

// correlate makes the correlated conditions on of r's semi or anti join
// j its keys (the equalities of an outer column and one of the subquery)
// and its residual condition, with more terms of the same, and returns r
// filtered by it, a window join where it joins windows alike; noKey is the
// error of a join left without a key.
func (b *binder) correlate(r *relation, j *Join, on, more []expr.Expr, noKey func() error) (*relation, error) {
	n := len(r.scope.cols)
	var rest []expr.Expr
	for _, c := range on {
		if lk, rk, ok := equiKey(c, n); ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, lk), append(j.RightKeys, rk-n)
			continue
		}
		rest = append(rest, c)
	}
	j.Residual = conjunction(append(rest, more...))
	if len(j.LeftKeys) == 0 {
		return nil, noKey()
	}
	if err := windowJoin(j); err != nil {
		return nil, err
	}
	return b.filtered(r, j), nil
}

// correlatedIn binds x [NOT] IN (SELECT y FROM t WHERE cond) whose cond
// reads columns of the outer query r (correlated, as existsJoin's): a
// semi (IN) or anti (NOT IN) join of r with t on cond's terms and x = y.
// NOT IN keeps SQL's three-valued logic: where x or y may be NULL, a right
// row matches when x = y or either is NULL (Flink's rewrite), so a left
// row passes only when the rows its correlation selects are none, or all
// differ from a non-NULL x and none is NULL.
//
// It is called when binding the subquery alone found a column unknown
// (nested): a subquery whose WHERE reads no outer column returns that
// error, since the unknown column is then no outer one.
func (b *binder) correlatedIn(r *relation, in *parser.InQuery, sel *parser.Select, nested error) (*relation, error) {
	if len(sel.Items) != 1 {
		return nil, errorf(in.Query.Pos(), ErrType, "the subquery of IN must return one column, not %d", len(sel.Items))
	}
	if _, star := sel.Items[0].Expr.(*parser.Star); star || sel.From == nil {
		return nil, errorf(in.Query.Pos(), ErrType, "the subquery of IN must return one column")
	}
	sub, on, err := b.correlated(r, sel, "IN", func() error { return nested })
	if err != nil {
		return nil, err
	}
	xc, err := inColumn(r, in)
	if err != nil {
		return nil, err
	}
	y, err := bindExpr(&exprCtx{scope: sub.scope, clause: "in SELECT"}, sel.Items[0].Expr)
	if err != nil {
		return nil, err
	}
	yc, ok := keyCol(y)
	if !ok {
		return nil, errorf(sel.Items[0].Expr.Pos(), ErrUnsupported, "a correlated IN subquery must select a column (compute an expression in a nested subquery first)")
	}
	if !encodesAlike(xc.T, yc.T) {
		return nil, errorf(in.Start, ErrType, "cannot compare %s with %s", xc.T.Plain(), yc.T.Plain())
	}
	n := len(r.scope.cols)
	j := &Join{Left: r.node, Right: sub.node, Kind: SemiJoin, At: in.Start}
	var more []expr.Expr
	right := &expr.Col{Index: n + yc.Index, Name: yc.Name, T: yc.T}
	switch {
	case !in.Not:
		j.LeftKeys, j.RightKeys = []int{xc.Index}, []int{yc.Index}
	case xc.T.NotNull && yc.T.NotNull:
		j.Kind = AntiJoin
		j.LeftKeys, j.RightKeys = []int{xc.Index}, []int{yc.Index}
	default:
		j.Kind = AntiJoin
		more = append(more, call(expr.Or, types.TBoolean,
			call(expr.Eq, types.TBoolean.WithNotNull(false), xc, right),
			call(expr.IsNull, types.TBoolean.WithNotNull(true), xc),
			call(expr.IsNull, types.TBoolean.WithNotNull(true), right)))
	}
	return b.correlate(r, j, on, more, func() error {
		return errorf(sel.Where.Pos(), ErrUnsupported, "NOT IN with a correlated subquery over columns that may be NULL needs an equality of a column of the subquery and one of the outer query in its WHERE, such as o.uid = u.uid (strand has no nested-loop join on streams)")
	})
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
