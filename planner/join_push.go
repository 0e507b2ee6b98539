package planner

import "github.com/strandsql/strand/exec/expr"

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
		case lo >= n && !j.Kind.LeftOuter():
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
