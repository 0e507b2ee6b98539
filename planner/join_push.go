package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// pushIntoJoin is the optimizer rule that moves the conditions of a
// Filter above a join that read one side only below it, onto that side,
// as Flink's FlinkFilterJoinRule does: the join then keeps only the rows
// that can pass, in less state. A condition moves only onto a side whose
// rows the join does not pad with NULLs: below a LEFT JOIN onto its left
// side, since a right row filtered out before the join would make a
// padded row the filter above never saw. A semi join's output is its left
// side's rows, so its conditions all move there.
func pushIntoJoin(f *Filter, j *Join) (Node, bool) {
	n := len(j.Left.Schema())
	var stay, left, right []expr.Expr
	for _, c := range andTerms(f.Cond) {
		lo, hi := colRange(c)
		switch {
		case lo < 0:
			stay = append(stay, c) // reads no column: leave it where it was written
		case hi < n && !j.Kind.RightOuter():
			left = append(left, onSide(c, 0, j.Left))
		case lo >= n && !j.Kind.LeftOuter() && j.Temporal == nil:
			// Not below a temporal join: a filtered-out version would
			// let the one before it match.
			right = append(right, onSide(c, n, j.Right))
		default:
			stay = append(stay, c)
		}
	}
	if len(left) == 0 && len(right) == 0 {
		return nil, false
	}
	c := *j
	if cond := conjunction(left); cond != nil {
		c.Left = &Filter{Input: j.Left, Cond: cond}
	}
	if cond := conjunction(right); cond != nil {
		c.Right = &Filter{Input: j.Right, Cond: cond}
	}
	if cond := conjunction(stay); cond != nil {
		return &Filter{Input: &c, Cond: cond}, true
	}
	return &c, true
}

// colRange returns the lowest and highest column e reads, -1 for none.
func colRange(e expr.Expr) (lo, hi int) {
	lo, hi = -1, -1
	expr.Walk(e, func(x expr.Expr) bool {
		if c, ok := x.(*expr.Col); ok {
			if lo < 0 || c.Index < lo {
				lo = c.Index
			}
			hi = max(hi, c.Index)
		}
		return true
	})
	return lo, hi
}

// onSide rebinds e, over the join's output, over side's columns, the
// join's output from column off on: the same columns, with the side's own
// types (a time attribute the join's output made plain).
func onSide(e expr.Expr, off int, side Node) expr.Expr {
	s := side.Schema()
	by := make([]expr.Expr, off+len(s))
	for i, f := range s {
		by[off+i] = &expr.Col{Index: i, Name: f.Name, T: f.Type}
	}
	return substitute(e, by)
}

// pruneJoin is the optimizer rule that projects a join's inputs onto the
// columns used above it (by p, and by the Filter between, if any) and by
// the join itself (keys, residual condition, event times), as Flink's
// ProjectJoinTransposeRule: the join then keeps, and its sources read,
// only those. It returns false when every column is used.
func pruneJoin(p *Project) (Node, bool) {
	var f *Filter
	in := p.Input
	if x, ok := in.(*Filter); ok {
		f, in = x, x.Input
	}
	j, ok := in.(*Join)
	if !ok {
		return nil, false
	}
	ls, rs := j.Left.Schema(), j.Right.Schema()
	n := len(ls)
	used := make([]bool, n+len(rs))
	mark := func(e expr.Expr) {
		if e == nil {
			return
		}
		expr.Walk(e, func(x expr.Expr) bool {
			if c, ok := x.(*expr.Col); ok {
				used[c.Index] = true
			}
			return true
		})
	}
	joinReads(p, f, j, mark, used)
	// at[i] is column i's place in the pruned join's output.
	at := make([]int, len(used))
	var left, right []expr.Expr
	var lout, rout types.Schema
	for i, u := range used {
		if !u {
			continue
		}
		if i < n {
			at[i] = len(left)
			left = append(left, &expr.Col{Index: i, Name: ls[i].Name, T: ls[i].Type})
			lout = append(lout, ls[i])
		} else {
			at[i] = -1 - len(right) // placed after the left columns below
			right = append(right, &expr.Col{Index: i - n, Name: rs[i-n].Name, T: rs[i-n].Type})
			rout = append(rout, rs[i-n])
		}
	}
	if len(left) == n && len(right) == len(rs) {
		return nil, false
	}
	for i := range at {
		if at[i] < 0 {
			at[i] = len(left) - 1 - at[i]
		}
	}
	c := *j
	c.Left = &Project{Input: j.Left, Exprs: left, Out: lout}
	c.Right = &Project{Input: j.Right, Exprs: right, Out: rout}
	c.LeftKeys, c.RightKeys = make([]int, len(j.LeftKeys)), make([]int, len(j.RightKeys))
	for i := range j.LeftKeys {
		c.LeftKeys[i], c.RightKeys[i] = at[j.LeftKeys[i]], at[n+j.RightKeys[i]]-len(left)
	}
	if w := j.Window; w != nil {
		cw := *w
		cw.LeftTime, cw.RightTime = -1, -1
		if w.LeftTime >= 0 && used[w.LeftTime] {
			cw.LeftTime = at[w.LeftTime]
		}
		if w.RightTime >= 0 && used[n+w.RightTime] {
			cw.RightTime = at[n+w.RightTime] - len(left)
		}
		c.Window = &cw
	}
	if t := j.Temporal; t != nil {
		ct := *t
		ct.LeftTime = at[t.LeftTime]
		if t.RightTime >= 0 {
			ct.RightTime = at[n+t.RightTime] - len(left)
		}
		c.Temporal = &ct
	}
	if iv := j.Interval; iv != nil {
		c.Interval = &Interval{LeftTime: at[iv.LeftTime], RightTime: at[n+iv.RightTime] - len(left), Lower: iv.Lower, Upper: iv.Upper}
	}
	// Columns over the join's inputs (its residual), and over its output.
	by := make([]expr.Expr, len(used))
	for i, u := range used {
		if u {
			f := append(ls[:n:n], rs...)[i]
			by[i] = &expr.Col{Index: at[i], Name: f.Name, T: f.Type}
		}
	}
	if j.Residual != nil {
		c.Residual = substitute(j.Residual, by)
	}
	out := c.Schema()
	for i, u := range used {
		if u && at[i] < len(out) {
			by[i] = &expr.Col{Index: at[i], Name: out[at[i]].Name, T: out[at[i]].Type}
		}
	}
	var top Node = &c
	if f != nil {
		top = &Filter{Input: top, Cond: substitute(f.Cond, by)}
	}
	exprs := make([]expr.Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		exprs[i] = substitute(e, by)
	}
	return &Project{Input: top, Exprs: exprs, Out: p.Out}, true
}
