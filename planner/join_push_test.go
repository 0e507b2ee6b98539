package planner

import (
	"testing"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
)

// TestPushIntoJoin: a Filter's conditions on one side move below the
// join, unless the join pads that side; the others stay above it.
func TestPushIntoJoin(t *testing.T) {
	col := func(i int) expr.Expr { return &expr.Col{Index: i, T: types.TBigInt} }
	gt := func(e expr.Expr, v int64) expr.Expr {
		return call(expr.Gt, types.TBoolean, e, &expr.Lit{V: types.IntValue(types.TBigInt, v)})
	}
	// Columns 0-1 are the left side's (k, v), 2-3 the right side's.
	left, right, both := gt(col(0), 1), gt(col(2), 2), call(expr.Gt, types.TBoolean, col(0), col(2))
	for _, c := range []struct {
		kind        JoinKind
		left, right bool // whether the side gets a Filter
		above       int  // conditions left above the join
	}{
		{InnerJoin, true, true, 1},
		{LeftJoin, true, false, 2},
		{RightJoin, false, true, 2},
		{FullJoin, false, false, 3},
	} {
		j := joinOf(c.kind)
		f := &Filter{Input: j, Cond: call(expr.And, types.TBoolean, left, right, both)}
		n := Optimize(f)
		above := 0
		if top, ok := n.(*Filter); ok {
			above = len(andTerms(top.Cond))
			n = top.Input
		}
		got := n.(*Join)
		_, l := got.Left.(*Filter)
		_, r := got.Right.(*Filter)
		if l != c.left || r != c.right || above != c.above {
			t.Errorf("%s: left filtered %v, right %v, %d above; want %v, %v, %d", c.kind, l, r, above, c.left, c.right, c.above)
		}
		if r {
			// The right side's condition reads the right side's own first column.
			if k := got.Right.(*Filter).Cond.(*expr.Call).Args[0].(*expr.Col); k.Index != 0 {
				t.Errorf("%s: the right condition reads column %d of its side", c.kind, k.Index)
			}
		}
	}
}

// TestPruneJoin: a join's inputs are projected onto the columns used
// above it and by its keys and residual condition; the columns move.
func TestPruneJoin(t *testing.T) {
	j := joinOf(InnerJoin) // (k, v) JOIN (k, v) ON k = k
	// SELECT right v WHERE right v IS NOT NULL (which moves below the
	// join): left v is used by nothing.
	v := &expr.Col{Index: 3, T: types.TString}
	p := &Project{Input: &Filter{Input: j, Cond: call(expr.IsNotNull, types.TBoolean, v)}, Exprs: []expr.Expr{v}, Out: types.Schema{{Name: "v", Type: types.TString}}}
	n := Optimize(p)
	top := n.(*Project)
	got := top.Input.(*Join)
	if w := len(got.Left.Schema()); w != 1 || len(got.Right.Schema()) != 2 {
		t.Fatalf("inputs of %d and %d columns, want 1 and 2", w, len(got.Right.Schema()))
	}
	if got.LeftKeys[0] != 0 || got.RightKeys[0] != 0 || top.Exprs[0].(*expr.Col).Index != 2 {
		t.Errorf("keys %v %v, selected column %d; want 0, 0 and 2", got.LeftKeys, got.RightKeys, top.Exprs[0].(*expr.Col).Index)
	}
	if _, again := pruneJoin(top); again {
		t.Error("a pruned join is pruned again")
	}
}
