package planner

import (
	"fmt"

	"github.com/strandsql/strand/exec/expr"
)

// Optimize rewrites a plan with the rules below until none applies. It
// returns a new tree; the input is not modified.
//
//   - A Project whose expressions are plain column references of a Project
//     below it is merged into that one (and vice versa), so that view and
//     subquery layers cost nothing.
//   - A Project that returns its input unchanged is removed.
//   - A Filter above a Project of plain columns moves below it, next to
//     the scan, so that it runs before any computation. It never moves
//     below a TopN, whose rows it filters after they are numbered.
//   - A Filter above a join moves the conditions that read one side only
//     below it, onto that side, unless the join pads that side's rows
//     (pushIntoJoin).
//   - A Project above a join (and a Filter between) projects the join's
//     inputs onto the columns used above it and by the join (pruneJoin),
//     and one above an Over the Over's input (pruneOver).
//   - A TopN or Rank whose row numbers nobody reads (the Project above,
//     and any Filter between, do not use them) does not compute them:
//     Flink's "no ranking output" optimization, which turns a Rank of the
//     first row by a time attribute into a deduplication.
//
// Then upsert sources get their ChangelogNormalize and sinks with a
// primary key their materializer or upsert mode (planSinks).
func Optimize(n Node) Node {
	for {
		m, changed := rewrite(n)
		if !changed {
			return planSinks(m)
		}
		n = m
	}
}

func rewrite(n Node) (Node, bool) {
	changed := false
	kids := n.Inputs()
	newKids := make([]Node, len(kids))
	for i, k := range kids {
		var c bool
		newKids[i], c = rewrite(k)
		changed = changed || c
	}
	if changed {
		n = withInputs(n, newKids)
	}
	switch n := n.(type) {
	case *Project:
		if isIdentity(n) {
			return n.Input, true
		}
		if m, ok := dropRowNum(n); ok {
			return m, true
		}
		if m, ok := fieldsBelowJoin(n); ok {
			return m, true
		}
		if m, ok := pruneJoin(n); ok {
			return m, true
		}
		if m, ok := pruneOver(n); ok {
			return m, true
		}
		if in, ok := n.Input.(*Project); ok {
			if allCols(n.Exprs) {
				exprs := make([]expr.Expr, len(n.Exprs))
				for i, e := range n.Exprs {
					exprs[i] = in.Exprs[e.(*expr.Col).Index]
				}
				return &Project{Input: in.Input, Exprs: exprs, Out: n.Out}, true
			}
			if allCols(in.Exprs) {
				exprs := make([]expr.Expr, len(n.Exprs))
				for i, e := range n.Exprs {
					exprs[i] = substitute(e, in.Exprs)
				}
				return &Project{Input: in.Input, Exprs: exprs, Out: n.Out}, true
			}
		}
	case *Filter:
		if j, ok := n.Input.(*Join); ok {
			if m, ok := pushIntoJoin(n, j); ok {
				return m, true
			}
		}
		if in, ok := n.Input.(*Project); ok && allCols(in.Exprs) {
			f := &Filter{Input: in.Input, Cond: substitute(n.Cond, in.Exprs)}
			return &Project{Input: f, Exprs: in.Exprs, Out: in.Out}, true
		}
	}
	return n, changed
}

// dropRowNum turns off the row numbers of a TopN or Rank under p (and a
// Filter) when neither reads them. The numbers are the TopN's last column, so no
// other column moves.
func dropRowNum(p *Project) (Node, bool) {
	var f *Filter
	in := p.Input
	if x, ok := in.(*Filter); ok {
		f, in = x, x.Input
	}
	var numbered Node // in without its row numbers
	switch t := in.(type) {
	case *TopN:
		if !t.RowNum {
			return nil, false
		}
		c := *t
		c.RowNum, numbered = false, &c
	case *Rank:
		if !t.RowNum {
			return nil, false
		}
		c := *t
		c.RowNum, numbered = false, &c
	default:
		return nil, false
	}
	rn := len(in.Inputs()[0].Schema())
	uses := refsAtOrAbove
	for _, e := range p.Exprs {
		if uses(e, rn) {
			return nil, false
		}
	}
	if f != nil && uses(f.Cond, rn) {
		return nil, false
	}
	out := numbered
	if f != nil {
		out = &Filter{Input: out, Cond: f.Cond}
	}
	return &Project{Input: out, Exprs: p.Exprs, Out: p.Out}, true
}

func withInputs(n Node, in []Node) Node {
	switch n := n.(type) {
	case *Filter:
		return &Filter{Input: in[0], Cond: n.Cond}
	case *Project:
		return &Project{Input: in[0], Exprs: n.Exprs, Out: n.Out}
	case *WindowTVF:
		c := *n
		c.Input = in[0]
		return &c
	case *WindowAgg:
		c := *n
		c.Input = in[0]
		return &c
	case *TopN:
		c := *n
		c.Input = in[0]
		return &c
	case *Rank:
		c := *n
		c.Input = in[0]
		return &c
	case *Sink:
		c := *n
		c.Input = in[0]
		return &c
	case *Normalize:
		return &Normalize{Input: in[0], Key: n.Key}
	case *Materialize:
		c := *n
		c.Input = in[0]
		return &c
	case *Join:
		c := *n
		c.Left, c.Right = in[0], in[1]
		return &c
	case *Union:
		return &Union{Ins: in, Out: n.Out}
	case *GroupAgg:
		c := *n
		c.Input = in[0]
		return &c
	case *Expand:
		c := *n
		c.Input = in[0]
		return &c
	case *Over:
		c := *n
		c.Input = in[0]
		return &c
	case *Unnest:
		c := *n
		c.Input = in[0]
		return &c
	case *Scan:
		return n
	case *SinkSet:
		return n.withSinks(in)
	}
	// A node kind this switch does not know would keep its old children
	// after a rewrite below it: a planner bug, never a user's.
	panic(fmt.Sprintf("planner: withInputs does not know %T", n))
}

func allCols(es []expr.Expr) bool {
	for _, e := range es {
		if _, ok := e.(*expr.Col); !ok {
			return false
		}
	}
	return true
}

func isIdentity(p *Project) bool {
	in := p.Input.Schema()
	if len(p.Exprs) != len(in) {
		return false
	}
	for i, e := range p.Exprs {
		c, ok := e.(*expr.Col)
		if !ok || c.Index != i || in[i].Name != p.Out[i].Name || in[i].Type != p.Out[i].Type {
			return false
		}
	}
	return true
}

// substitute replaces column references in e by the expressions they name.
func substitute(e expr.Expr, by []expr.Expr) expr.Expr {
	switch e := e.(type) {
	case *expr.Col:
		return by[e.Index]
	case *expr.Cast:
		return &expr.Cast{X: substitute(e.X, by), T: e.T, Try: e.Try}
	case *expr.Case:
		out := &expr.Case{Else: substitute(e.Else, by), T: e.T}
		for _, w := range e.Whens {
			out.Whens = append(out.Whens, expr.When{Cond: substitute(w.Cond, by), Then: substitute(w.Then, by)})
		}
		return out
	case *expr.Call:
		args := make([]expr.Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = substitute(a, by)
		}
		return &expr.Call{Fn: e.Fn, Args: args, T: e.T}
	}
	return e
}
