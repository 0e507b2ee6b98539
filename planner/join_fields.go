package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// fieldsBelowJoin is the optimizer rule that reads, below a join, the
// fields of a ROW column that the Project above it (and a Filter between)
// reads only fields of: each distinct field becomes a column of its side,
// appended after the side's columns, and the Project reads that column.
// The ROW itself is then unused above the join, and pruneJoin drops it,
// so that the join keeps scalars in its state rather than the ROW (which
// its binary rows cannot hold). It returns false when there is no such
// column.
func fieldsBelowJoin(p *Project) (Node, bool) {
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
	all := append(ls[:n:n], rs...)
	whole := make([]bool, len(all))
	fields := map[string]*expr.Call{} // by rendering: the fields read
	var order []string
	visit := func(e expr.Expr) {
		if e == nil {
			return
		}
		expr.Walk(e, func(x expr.Expr) bool {
			switch x := x.(type) {
			case *expr.Col:
				whole[x.Index] = true
			case *expr.Call:
				if col := fieldBase(x); col != nil && all[col.Index].Type.IsNested() {
					if _, seen := fields[x.String()]; !seen {
						fields[x.String()] = x
						order = append(order, x.String())
					}
					return false
				}
			}
			return true
		})
	}
	joinReads(p, f, j, visit, whole)
	var left, right []*expr.Call
	for _, k := range order {
		g := fields[k]
		if c := fieldBase(g).Index; !whole[c] {
			if c < n {
				left = append(left, g)
			} else {
				right = append(right, g)
			}
		}
	}
	if len(left) == 0 && len(right) == 0 {
		return nil, false
	}

	// The sides, each with its fields after its columns.
	side := func(s types.Schema, base Node, off int, gs []*expr.Call) Node {
		if len(gs) == 0 {
			return base
		}
		by := make([]expr.Expr, off+len(s))
		var exprs []expr.Expr
		var out types.Schema
		for i, fd := range s {
			c := &expr.Col{Index: i, Name: fd.Name, T: fd.Type}
			by[off+i] = c
			exprs, out = append(exprs, c), append(out, fd)
		}
		for _, g := range gs {
			exprs = append(exprs, substitute(g, by))
			out = append(out, types.Field{Name: g.Args[1].(*expr.Lit).V.Str, Type: g.T})
		}
		return &Project{Input: base, Exprs: exprs, Out: out}
	}
	c := *j
	c.Left = side(ls, j.Left, 0, left)
	c.Right = side(rs, j.Right, n, right)

	// Old join columns to new: the right side moves past the left's fields.
	nl := n + len(left)
	out := c.Schema()
	by := make([]expr.Expr, len(all))
	for i := range all {
		at := i
		if i >= n {
			at = nl + i - n
		}
		by[i] = &expr.Col{Index: at, Name: out[at].Name, T: out[at].Type}
	}
	if j.Residual != nil {
		c.Residual = substitute(j.Residual, by)
	}
	at := map[string]int{}
	for k, g := range left {
		at[g.String()] = n + k
	}
	for k, g := range right {
		at[g.String()] = nl + len(rs) + k
	}
	var rebind func(e expr.Expr) expr.Expr
	rebind = func(e expr.Expr) expr.Expr {
		switch x := e.(type) {
		case *expr.Call:
			if k, ok := at[x.String()]; ok {
				return &expr.Col{Index: k, Name: out[k].Name, T: out[k].Type}
			}
		case *expr.Col:
			return by[x.Index]
		}
		return rebuild(e, rebind)
	}
	var top Node = &c
	if f != nil {
		top = &Filter{Input: top, Cond: rebind(f.Cond)}
	}
	exprs := make([]expr.Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		exprs[i] = rebind(e)
	}
	return &Project{Input: top, Exprs: exprs, Out: p.Out}, true
}

// joinReads calls visit with the expressions that a Project p (and a
// Filter f between) over join j, and j's residual condition, read, and
// marks in cols the columns of j's output that j's keys and event times
// are.
func joinReads(p *Project, f *Filter, j *Join, visit func(expr.Expr), cols []bool) {
	for _, e := range p.Exprs {
		visit(e)
	}
	if f != nil {
		visit(f.Cond)
	}
	visit(j.Residual)
	n := len(j.Left.Schema())
	for i := range j.LeftKeys {
		cols[j.LeftKeys[i]], cols[n+j.RightKeys[i]] = true, true
	}
	if iv := j.Interval; iv != nil {
		cols[iv.LeftTime], cols[n+iv.RightTime] = true, true
	}
	if t := j.Temporal; t != nil {
		cols[t.LeftTime] = true
		if t.RightTime >= 0 {
			cols[n+t.RightTime] = true
		}
	}
}

// fieldBase is the column a chain of field accesses starts from, or nil
// when e is no such chain.
func fieldBase(e *expr.Call) *expr.Col {
	var x expr.Expr = e
	for {
		g, ok := x.(*expr.Call)
		if !ok || g.Fn != expr.GetField {
			break
		}
		x = g.Args[0]
	}
	c, _ := x.(*expr.Col)
	if x == expr.Expr(e) {
		return nil
	}
	return c
}

// rebuild returns e with each of its operands replaced by f(operand);
// a column or literal as it is.
func rebuild(e expr.Expr, f func(expr.Expr) expr.Expr) expr.Expr {
	switch e := e.(type) {
	case *expr.Cast:
		return &expr.Cast{X: f(e.X), T: e.T, Try: e.Try}
	case *expr.Case:
		out := &expr.Case{Else: f(e.Else), T: e.T}
		for _, w := range e.Whens {
			out.Whens = append(out.Whens, expr.When{Cond: f(w.Cond), Then: f(w.Then)})
		}
		return out
	case *expr.Call:
		args := make([]expr.Expr, len(e.Args))
		for i, a := range e.Args {
			args[i] = f(a)
		}
		return &expr.Call{Fn: e.Fn, Args: args, T: e.T}
	}
	return e
}
