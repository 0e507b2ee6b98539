package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// commaJoin binds FROM a, b [, c ...] WHERE cond as Flink plans it: inner
// joins, left to right as written, whose conditions come from the WHERE.
// Each ANDed term of cond goes to the first join that has every table it
// reads: a term of one table filters that table before the joins, one
// linking the tables joined so far with the next is a condition of that
// join (an equality of a column of each side a key, the rest checked on
// each pair), and a term of no table, or a subquery (IN, EXISTS), stays
// in the WHERE, returned for after the joins. A table that no equality
// links to those before it is refused at its comma: joined without a key,
// every row would pair with every other in state that only grows.
func (b *binder) commaJoin(t *parser.Join, where parser.Expr) (*relation, parser.Expr, error) {
	var items []parser.TableExpr
	var commas []parser.Pos // commas[i]: the comma before items[i]
	var flatten func(t parser.TableExpr, at parser.Pos)
	flatten = func(t parser.TableExpr, at parser.Pos) {
		if j, ok := t.(*parser.Join); ok && j.Kind == parser.JoinComma {
			flatten(j.Left, at)
			flatten(j.Right, j.KindPos)
			return
		}
		items, commas = append(items, t), append(commas, at)
	}
	flatten(t, parser.Pos{})
	sides := make([]*relation, len(items))
	all := &scope{}
	starts := make([]int, len(items)+1) // starts[i]: items[i]'s first column in all
	for i, it := range items {
		r, err := b.joinSide(it)
		if err != nil {
			return nil, nil, err
		}
		sides[i] = r
		starts[i] = len(all.cols)
		all.cols = append(all.cols, r.scope.cols...)
	}
	starts[len(items)] = len(all.cols)
	item := func(col int) int {
		i := 0
		for starts[i+1] <= col {
			i++
		}
		return i
	}

	// Each term, bound over every item's columns, and the first and last
	// items it reads (-1 for none).
	type term struct {
		e         expr.Expr
		src       parser.Expr
		first, at int
	}
	var terms []term
	var rest []parser.Expr
	if where != nil {
		for _, w := range whereTerms(where, nil) {
			if subquery(w) {
				rest = append(rest, w)
				continue
			}
			e, err := bindExpr(&exprCtx{scope: all, clause: "in WHERE"}, w)
			if err != nil {
				return nil, nil, err
			}
			if err := want(w, e, types.Boolean); err != nil {
				return nil, nil, err
			}
			tm := term{e: e, src: w, first: -1, at: -1}
			expr.Walk(e, func(x expr.Expr) bool {
				if c, ok := x.(*expr.Col); ok {
					i := item(c.Index)
					if tm.first < 0 || i < tm.first {
						tm.first = i
					}
					tm.at = max(tm.at, i)
				}
				return true
			})
			if tm.at < 0 {
				rest = append(rest, w)
				continue
			}
			terms = append(terms, tm)
		}
	}
	// Terms of one item filter it where it is read.
	for i, s := range sides {
		var own []expr.Expr
		for _, tm := range terms {
			if tm.first == i && tm.at == i {
				own = append(own, shiftCols(tm.e, starts[i], all))
			}
		}
		if cond := conjunction(own); cond != nil {
			sides[i] = &relation{node: &Filter{Input: s.node, Cond: cond}, scope: s.scope, win: s.win}
		}
	}
	cur := sides[0]
	for i := 1; i < len(sides); i++ {
		var on []expr.Expr
		for _, tm := range terms {
			if tm.at == i && tm.first < i {
				on = append(on, tm.e)
			}
		}
		var err error
		cur, err = b.joined(cur, sides[i], InnerJoin, on, commas[i], func() error {
			return errorf(commas[i], ErrUnsupported, "a comma join (FROM a, b) needs an equality of a column of each side in WHERE, such as a.id = b.id (strand has no nested-loop join on streams)")
		})
		if err != nil {
			return nil, nil, err
		}
	}
	var left parser.Expr
	for _, w := range rest {
		if left == nil {
			left = w
			continue
		}
		left = &parser.Binary{Start: left.Pos(), OpPos: w.Pos(), Op: "AND", Left: left, Right: w}
	}
	return cur, left, nil
}

// subquery reports whether a WHERE term is a subquery predicate, which
// the WHERE binds as a semi or anti join: [NOT] IN (SELECT ...),
// [NOT] EXISTS (...).
func subquery(e parser.Expr) bool {
	if u, ok := e.(*parser.Unary); ok && u.Op == "NOT" {
		e = u.Expr
	}
	switch e.(type) {
	case *parser.InQuery, *parser.Exists:
		return true
	}
	return false
}

// shiftCols rebinds e, which reads only the columns of all from off on,
// over those columns alone.
func shiftCols(e expr.Expr, off int, all *scope) expr.Expr {
	by := make([]expr.Expr, len(all.cols))
	for i := off; i < len(all.cols); i++ {
		by[i] = &expr.Col{Index: i - off, Name: all.cols[i].name, T: all.cols[i].typ}
	}
	return substitute(e, by)
}
