package planner

import "github.com/strandsql/strand/parser"

// walkAST calls fn for e and each expression below it, parents first; fn
// returning false skips a node's children. Subqueries are not entered.
func walkAST(e parser.Expr, fn func(parser.Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	var kids []parser.Expr
	switch e := e.(type) {
	case *parser.Unary:
		kids = []parser.Expr{e.Expr}
	case *parser.Binary:
		kids = []parser.Expr{e.Left, e.Right}
	case *parser.Call:
		kids = append(append(kids, e.Args...), e.Filter)
	case *parser.Cast:
		kids = []parser.Expr{e.Expr}
	case *parser.Case:
		kids = []parser.Expr{e.Operand, e.Else}
		for _, w := range e.Whens {
			kids = append(kids, w.Cond, w.Result)
		}
	case *parser.IsNull:
		kids = []parser.Expr{e.Expr}
	case *parser.IsBool:
		kids = []parser.Expr{e.Expr}
	case *parser.Between:
		kids = []parser.Expr{e.Expr, e.Lo, e.Hi}
	case *parser.InList:
		kids = append([]parser.Expr{e.Expr}, e.List...)
	case *parser.Like:
		kids = []parser.Expr{e.Expr, e.Pattern, e.Escape}
	case *parser.Extract:
		kids = []parser.Expr{e.Expr}
	case *parser.FloorCeil:
		kids = []parser.Expr{e.Expr}
	case *parser.Substring:
		kids = []parser.Expr{e.Expr, e.From, e.For}
	case *parser.Trim:
		kids = []parser.Expr{e.Chars, e.Expr}
	case *parser.Position:
		kids = []parser.Expr{e.Substr, e.Expr}
	}
	for _, k := range kids {
		walkAST(k, fn)
	}
}
