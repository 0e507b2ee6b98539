package planner

import (
	"errors"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// join binds a regular join: FROM a [INNER | LEFT | RIGHT | FULL [OUTER]]
// JOIN b ON cond. The equalities of cond between a column of each side
// are the join keys; the rest of it is checked on each pair of rows that
// share a key. A join without such an equality (a cross join, a
// non-equi condition) is refused: on unbounded streams it would pair
// every row with every other, in state that only grows. A comma join
// (FROM a, b WHERE ...) is bound with its WHERE by commaJoin.
func (b *binder) join(t *parser.Join) (*relation, error) {
	if u, ok := t.Right.(*parser.Unnest); ok {
		return b.unnestJoin(t, u)
	}
	if ref, ok := t.Right.(*parser.TableRef); ok && ref.AsOf != nil {
		return b.temporalJoin(t, ref)
	}
	var kind JoinKind
	switch t.Kind {
	case parser.JoinInner:
		kind = InnerJoin
	case parser.JoinLeft:
		kind = LeftJoin
	case parser.JoinRight:
		kind = RightJoin
	case parser.JoinFull:
		kind = FullJoin
	case parser.JoinComma:
		// Only a FROM's top-level commas take the query's WHERE.
		return nil, errorf(t.KindPos, ErrUnsupported, "a comma join (FROM a, b) needs an equality of a column of each side in the WHERE of its query, such as a.id = b.id")
	default:
		return nil, errorf(t.KindPos, ErrUnsupported, "%s is not supported on streams: a regular join needs ON with an equality of a column of each side", t.Kind)
	}
	l, err := b.joinSide(t.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.joinSide(t.Right)
	if err != nil {
		return nil, err
	}
	both := &scope{cols: append(append([]column{}, l.scope.cols...), r.scope.cols...)}
	cond, err := bindExpr(&exprCtx{scope: both, clause: "in ON"}, t.On)
	if err != nil {
		return nil, err
	}
	if err := want(t.On, cond, types.Boolean); err != nil {
		return nil, err
	}
	return b.joined(l, r, kind, andTerms(cond), t.KindPos, func() error {
		return errorf(t.On.Pos(), ErrUnsupported, "a regular join needs an equality of a column of each side in ON, such as a.id = b.id (strand has no nested-loop join on streams)")
	})
}

// joinSide binds one input of a join.
func (b *binder) joinSide(t parser.TableExpr) (*relation, error) {
	r, err := b.from(t)
	if err != nil {
		return nil, err
	}
	return r, r.ranked()
}

// joined builds the join of l and r on the conditions terms, bound over
// l's columns then r's: the equalities of a column of each side are its
// keys, the rest its residual condition. noKey is the error of a join
// without a key.
func (b *binder) joined(l, r *relation, kind JoinKind, terms []expr.Expr, at parser.Pos, noKey func() error) (*relation, error) {
	j := &Join{Left: l.node, Right: r.node, Kind: kind, At: at, names: [2]string{relName(l.scope), relName(r.scope)}}
	n := len(l.scope.cols)
	var rest []expr.Expr
	for _, c := range terms {
		if lk, rk, ok := equiKey(c, n); ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, lk), append(j.RightKeys, rk-n)
			continue
		}
		rest = append(rest, c)
	}
	if len(j.LeftKeys) == 0 {
		return nil, noKey()
	}
	if err := windowJoin(j); err != nil {
		return nil, err
	}
	if j.Window == nil && ChangelogMode(l.node).InsertOnly() && ChangelogMode(r.node).InsertOnly() {
		// Bounds of one side's event time by the other's make an
		// interval join, whose state the watermarks free (Flink's
		// interval join takes append-only inputs too).
		if iv, left := intervalOf(rest, n); iv != nil {
			j.Interval, rest = iv, left
		}
	}
	j.Residual = conjunction(rest)
	b.defines(j)
	out := j.Schema()
	sc := &scope{}
	for i, c := range append(append([]column{}, l.scope.cols...), r.scope.cols...) {
		sc.cols = append(sc.cols, column{qual: c.qual, name: c.name, typ: out[i].Type})
	}
	return &relation{node: j, scope: sc, win: joinWin(j)}, nil
}

// conjunction ANDs terms together: nil for none.
func conjunction(terms []expr.Expr) expr.Expr {
	switch len(terms) {
	case 0:
		return nil
	case 1:
		return terms[0]
	}
	return &expr.Call{Fn: expr.And, Args: terms, T: types.TBoolean}
}

// andTerms splits e at its top-level ANDs.
func andTerms(e expr.Expr) []expr.Expr {
	if c, ok := e.(*expr.Call); ok && c.Fn == expr.And {
		var out []expr.Expr
		for _, a := range c.Args {
			out = append(out, andTerms(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}

// equiKey reports whether e is left column = right column (either way
// round) of columns whose equal values encode alike, with the left
// column first; columns at n and above are the right side's.
func equiKey(e expr.Expr, n int) (l, r int, ok bool) {
	c, isCall := e.(*expr.Call)
	if !isCall || c.Fn != expr.Eq || len(c.Args) != 2 {
		return 0, 0, false
	}
	a, aok := keyCol(c.Args[0])
	b, bok := keyCol(c.Args[1])
	if !aok || !bok {
		return 0, 0, false
	}
	if a.Index >= n {
		a, b = b, a
	}
	if a.Index >= n || b.Index < n || !encodesAlike(a.T, b.T) {
		return 0, 0, false
	}
	return a.Index, b.Index, true
}

// keyCol returns the column e is, seeing through the widening cast that
// binding puts on an INT compared with a BIGINT: both encode alike, and
// the cast changes no value. No other cast is seen through: one that
// narrows (BIGINT to INT) or truncates (to VARCHAR(3)) changes the values
// compared.
func keyCol(e expr.Expr) (*expr.Col, bool) {
	if c, ok := e.(*expr.Cast); ok && !c.Try {
		if x, ok := c.X.(*expr.Col); ok && x.T.Kind == types.Int && c.T.Kind == types.BigInt {
			return x, true
		}
	}
	c, ok := e.(*expr.Col)
	return c, ok
}

// encodesAlike reports whether values of a and b that SQL calls equal have
// the same key encoding: the same type, or integers of any width.
func encodesAlike(a, b types.Type) bool {
	integer := func(t types.Type) bool { return t.Kind == types.Int || t.Kind == types.BigInt }
	if integer(a) && integer(b) {
		return true
	}
	a, b = a.Plain().Nullable(), b.Plain().Nullable()
	if a.Kind == types.String && b.Kind == types.String {
		return true
	}
	return a == b
}

// whereTerms splits a WHERE condition at its top-level ANDs.
func whereTerms(e parser.Expr, dst []parser.Expr) []parser.Expr {
	if x, ok := e.(*parser.Binary); ok && x.Op == "AND" {
		return whereTerms(x.Right, whereTerms(x.Left, dst))
	}
	return append(dst, e)
}

// semiJoin binds WHERE col [NOT] IN (SELECT one column ...): IN as a
// semi join, the rows of r whose column equals a row of the subquery,
// once each, as Flink's LeftSemiJoin; NOT IN as an anti join, the rows
// equal to none. NOT IN keeps SQL's three-valued logic: x NOT IN (...) is
// TRUE only if every x <> y is, so where x or y may be NULL the anti join
// is null-aware (Join.NullAware): a NULL y hides every row, and a NULL x
// passes only while the subquery has no rows.
func (b *binder) semiJoin(r *relation, in *parser.InQuery) (*relation, error) {
	sub, err := b.nested(in.Query, in.Start)
	if sel, ok := in.Query.(*parser.Select); ok && errors.Is(err, ErrUnknownColumn) {
		// A name of the outer query: a correlated subquery.
		return b.correlatedIn(r, in, sel, err)
	}
	if err != nil {
		return nil, err
	}
	if err := sub.ranked(); err != nil {
		return nil, err
	}
	if n := len(sub.scope.cols); n != 1 {
		return nil, errorf(in.Query.Pos(), ErrType, "the subquery of IN must return one column, not %d", n)
	}
	col, err := inColumn(r, in)
	if err != nil {
		return nil, err
	}
	st := sub.scope.cols[0].typ
	if !encodesAlike(col.T, st) {
		return nil, errorf(in.Start, ErrType, "cannot compare %s with %s", col.T.Plain(), st.Plain())
	}
	j := &Join{Left: r.node, Right: sub.node, Kind: SemiJoin, LeftKeys: []int{col.Index}, RightKeys: []int{0}, At: in.Start}
	if in.Not {
		j.Kind = AntiJoin
		j.NullAware = !col.T.NotNull || !sub.node.Schema()[0].Type.NotNull
	}
	return b.filtered(r, j), nil
}

// inColumn binds the column of r left of IN (subquery).
func inColumn(r *relation, in *parser.InQuery) (*expr.Col, error) {
	e, err := bindExpr(&exprCtx{scope: r.scope, clause: "in WHERE"}, in.Expr)
	if err != nil {
		return nil, err
	}
	col, ok := keyCol(e)
	if !ok {
		return nil, errorf(in.Expr.Pos(), ErrUnsupported, "IN (subquery) needs a column on its left (compute an expression in a subquery first)")
	}
	return col, nil
}

// filtered is r filtered by the semi or anti join j of r with another
// relation: r's columns, plain.
func (b *binder) filtered(r *relation, j *Join) *relation {
	b.defines(j)
	out := j.Schema()
	sc := &scope{}
	for i, c := range r.scope.cols {
		sc.cols = append(sc.cols, column{qual: c.qual, name: c.name, typ: out[i].Type})
	}
	return &relation{node: j, scope: sc, win: joinWin(j)}
}
