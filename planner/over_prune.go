package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// pruneOver narrows the input of an Over under p, a projection, to the
// columns p, the partition, the order and the aggregates read: the Over
// keeps its input rows whole in its state, and the binder gives it every
// column of the FROM. Rows that differ only in a column dropped here
// become copies of one row, and come out alike.
func pruneOver(p *Project) (Node, bool) {
	o, ok := p.Input.(*Over)
	if !ok {
		return nil, false
	}
	in := o.Input.Schema()
	n := len(in)
	used := make([]bool, n)
	for _, e := range p.Exprs {
		expr.Walk(e, func(x expr.Expr) bool {
			if c, ok := x.(*expr.Col); ok && c.Index < n {
				used[c.Index] = true
			}
			return true
		})
	}
	for _, c := range o.Partition {
		used[c] = true
	}
	used[o.Time] = true
	for _, a := range o.Aggs {
		if a.Arg >= 0 {
			used[a.Arg] = true
		}
	}
	var keep []int
	remap := make([]int, n)
	for i, u := range used {
		if u {
			remap[i] = len(keep)
			keep = append(keep, i)
		}
	}
	if len(keep) == n {
		return nil, false
	}
	pre := &Project{Input: o.Input}
	if ip, ok := o.Input.(*Project); ok {
		pre.Input = ip.Input
	}
	for _, i := range keep {
		var e expr.Expr = &expr.Col{Index: i, Name: in[i].Name, T: in[i].Type}
		if ip, ok := o.Input.(*Project); ok {
			e = ip.Exprs[i]
		}
		pre.Exprs = append(pre.Exprs, e)
		pre.Out = append(pre.Out, in[i])
	}
	c := *o
	c.Input = pre
	c.Partition = make([]int, len(o.Partition))
	for i, k := range o.Partition {
		c.Partition[i] = remap[k]
	}
	c.Time = remap[o.Time]
	c.Aggs = append(c.Aggs[:0:0], o.Aggs...)
	for i := range c.Aggs {
		if a := c.Aggs[i].Arg; a >= 0 {
			c.Aggs[i].Arg = remap[a]
		}
	}
	out := c.Schema()
	by := make([]expr.Expr, n+len(o.Aggs))
	for i := range by {
		j := len(keep) + i - n
		if i < n {
			j = remap[i]
		}
		if i >= n || used[i] {
			by[i] = &expr.Col{Index: j, Name: out[j].Name, T: out[j].Type}
		}
	}
	top := &Project{Input: &c, Out: append(types.Schema{}, p.Out...)}
	for _, e := range p.Exprs {
		top.Exprs = append(top.Exprs, substitute(e, by))
	}
	return top, true
}
