package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/groupagg"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// MiniBatch is table.exec.mini-batch.*, as the session reads it.
type MiniBatch = groupagg.MiniBatch

// GroupAgg is a non-windowed aggregate (GROUP BY without a window, or
// aggregates without GROUP BY): its output is the keys, then the
// aggregates (groupagg.Spec.Out), as a changelog of each group's result.
type GroupAgg struct {
	Input Node
	Keys  []int
	Aggs  []agg.Call
	// Names are the aggregates' display names for EXPLAIN.
	Names []string
	// At is the GROUP BY's position (the SELECT's without one).
	At parser.Pos
	// What names the clause at At in messages when it is not a GROUP BY:
	// "SELECT DISTINCT" or "UNION", which strand plans as one.
	What string
	// UIDHint is as for WindowAgg.
	UIDHint string
	// TTLHint is the SELECT's STATE_TTL hint, if any; inName is the
	// input's name a hint knows it by (relName).
	TTLHint ttlHint
	inName  string
	out     types.Schema
}

func (g *GroupAgg) Inputs() []Node       { return []Node{g.Input} }
func (g *GroupAgg) Schema() types.Schema { return g.out }

// Mode is the aggregate's changelog mode, as Flink's: a group's first
// row inserts its result, later ones update it (-U old, +U new); over an
// input that takes rows back a group can also lose its last row, and its
// result is deleted.
func (g *GroupAgg) Mode() Mode {
	k := Inserts | UpdatesBefore | UpdatesAfter
	if !ChangelogMode(g.Input).InsertOnly() {
		k |= Deletes
	}
	return Mode{Kinds: k}
}

func (g *GroupAgg) describe() string {
	in := g.Input.Schema()
	var sel []string
	for _, k := range g.Keys {
		sel = append(sel, in[k].Name)
	}
	sel = append(sel, g.Names...)
	if len(g.Keys) == 0 {
		return fmt.Sprintf("GroupAggregate(select=[%s])", strings.Join(sel, ", "))
	}
	return fmt.Sprintf("GroupAggregate(groupBy=[%s], select=[%s])", strings.Join(sel[:len(g.Keys)], ", "), strings.Join(sel, ", "))
}

// spec is the operator's spec over its input's schema in. DISTINCT
// aggregates of one column that the pre-projection repeats (one copy per
// aggregate) read its first copy, so that they share their DISTINCT
// state, as Flink's share a MapView: one look-up per row and column, not
// per aggregate.
func (g *GroupAgg) spec(in types.Schema) groupagg.Spec {
	aggs := slices.Clone(g.Aggs)
	for i := range aggs {
		for j := range i {
			if aggs[i].Distinct && aggs[j].Distinct && aggs[i].Arg >= 0 && aggs[j].Arg >= 0 && sameColumn(g.Input, aggs[i].Arg, aggs[j].Arg) {
				aggs[i].Arg = aggs[j].Arg
				break
			}
		}
	}
	return groupagg.Spec{UID: UID(g), In: in, Keys: g.Keys, Aggs: aggs, Retract: !ChangelogMode(g.Input).InsertOnly()}
}

// sameColumn reports whether columns i and j of n are one column of a
// node below, read as it is through projections and filters.
func sameColumn(n Node, i, j int) bool {
	for i != j {
		switch x := n.(type) {
		case *Filter:
			n = x.Input
		case *Project:
			ci, ok := x.Exprs[i].(*expr.Col)
			cj, ok2 := x.Exprs[j].(*expr.Col)
			if !ok || !ok2 {
				return false
			}
			n, i, j = x.Input, ci.Index, cj.Index
		default:
			return false
		}
	}
	return true
}

// groupAggCanon is the canonical encoding of a group aggregate: its keys
// and aggregates, and whether it retracts (which changes how MIN and MAX
// keep their state).
func groupAggCanon(g *GroupAgg) string {
	var b strings.Builder
	fmt.Fprintf(&b, "group-aggregate\nsources %s\nretract %t\n", strings.Join(sourceTables(g), ","), !ChangelogMode(g.Input).InsertOnly())
	b.WriteString(expandCanon(g.Input))
	for _, k := range g.Keys {
		fmt.Fprintf(&b, "key %s\n", canonComputed(g.Input, k))
	}
	for _, a := range g.Aggs {
		arg, filter := "*", "-"
		if a.Arg >= 0 {
			arg = canonComputed(g.Input, a.Arg)
		}
		if a.Filter >= 0 {
			filter = canonComputed(g.Input, a.Filter)
		}
		fmt.Fprintf(&b, "agg %v(%s) distinct=%t filter=%s -> %s\n", a.Kind, arg, a.Distinct, filter, a.Out.Plain().Nullable())
	}
	return b.String()
}

// groupAgg starts a vertex behind a hash exchange on the keys, so each
// group lives in one subtask; without keys, the one global group lives
// in a vertex of parallelism 1, as in Flink.
func (c *compiler) groupAgg(n *GroupAgg) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	v := c.keyedVertex("GroupAggregate", s.v, n.Keys)
	spec := n.spec(s.schema)
	spec.MiniBatch = c.env.MiniBatch
	spec.TTL = c.stateTTLs([]ttlHint{n.TTLHint}, s.schema)[0]
	if _, err := groupagg.New(spec); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "%v", err)
	}
	out := n.Schema()
	name := n.describe() + ttlName(spec.TTL)
	if spec.MiniBatch.On() {
		name += fmt.Sprintf(" miniBatch=[size=%d, latency=%s]", spec.MiniBatch.Size, spec.MiniBatch.Latency)
	}
	v.Ops = append(v.Ops, exec.OpSpec{Name: name + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out,
		MemorySegments: spec.MinSegments(), New: func() (exec.Operator, error) { return groupagg.New(spec) }})
	return &stage{v: v, schema: out}, nil
}

// groupAggregate binds a GROUP BY without a window (or aggregates without
// GROUP BY) up to its select list, as aggregate does for windows: it
// returns the aggregate's output, filtered by HAVING, and the context
// that binds the select list over it.
func (b *binder) groupAggregate(q *parser.Select, from *relation, calls []*parser.Call) (*relation, *exprCtx, error) {
	at := q.Start
	if len(q.GroupBy) > 0 {
		at = q.GroupBy[0].Pos()
	}
	inCtx := &exprCtx{scope: from.scope, clause: "in GROUP BY"}
	pre := &Project{Input: from.node}
	add := func(e expr.Expr, name string) int {
		pre.Exprs = append(pre.Exprs, e)
		pre.Out = append(pre.Out, types.Field{Name: name, Type: e.Type()})
		return len(pre.Exprs) - 1
	}
	gs, err := groupingOf(q.GroupBy, from.scope)
	if err != nil {
		return nil, nil, err
	}
	g := &GroupAgg{At: at, inName: relName(from.scope)}
	for i, k := range gs.keys {
		e, err := bindExpr(inCtx, k)
		if err != nil {
			return nil, nil, err
		}
		name := fmt.Sprintf("$key%d", i)
		if id, ok := k.(*parser.Ident); ok {
			name = id.Parts[len(id.Parts)-1]
		}
		g.Keys = append(g.Keys, add(e, name))
	}
	argCtx := &exprCtx{scope: from.scope, clause: "inside another aggregate"}
	for i, c := range calls {
		a, err := b.aggCall(argCtx, c, func(e expr.Expr, what string) int { return add(e, fmt.Sprintf("$agg%d_%s", i, what)) })
		if err != nil {
			return nil, nil, err
		}
		g.Aggs = append(g.Aggs, a)
		g.Names = append(g.Names, c.String())
	}
	// The input's rowtime, if it has one, goes along unused by the
	// aggregates: it is the clock of the groups' state TTL (ttl.go).
	for i, c := range from.scope.cols[from.scope.shadowed:] {
		if c.typ.Attr == types.RowTime && b.carryRowtime() {
			i += from.scope.shadowed
			add(&expr.Col{Index: i, Name: c.name, T: c.typ}, "$rowtime")
			break
		}
	}
	g.Input = pre
	if gs.ids != nil {
		g.Input = &Expand{Input: pre, Keys: slices.Clone(g.Keys), IDs: gs.ids}
		g.Keys = append(g.Keys, len(pre.Out))
	}
	spec := groupagg.Spec{In: g.Input.Schema(), Keys: g.Keys, Aggs: g.Aggs}
	g.out = spec.Out()
	b.defines(g)
	out := &relation{node: g, scope: scopeOf(g.out, "")}

	// Above the aggregate, names resolve to keys and aggregate results.
	nk := len(g.Keys)
	eCol := expandID(g.out, out.scope, gs, len(gs.keys))
	post := &exprCtx{scope: out.scope, clause: "here"}
	post.hook = func(e parser.Expr) (expr.Expr, bool, error) {
		col := func(i int) (expr.Expr, bool, error) {
			return &expr.Col{Index: i, Name: g.out[i].Name, T: g.out[i].Type}, true, nil
		}
		if c, ok := e.(*parser.Call); ok && aggregateNames[c.Name] && c.Over == nil {
			for i, a := range calls {
				if a.String() == c.String() {
					return col(nk + i)
				}
			}
		}
		if c, ok := e.(*parser.Call); ok {
			if out, ok, err := gs.call(c, from.scope, eCol); ok || err != nil {
				return out, ok, err
			}
		}
		for i, k := range gs.keys {
			if sameKey(from.scope, k, e) {
				return col(i)
			}
		}
		if id, ok := e.(*parser.Ident); ok {
			if err := resolvable(from.scope, id); err != nil {
				return nil, true, err
			}
			return nil, true, errorf(id.Start, ErrType, "column '%s' is neither grouped nor aggregated", strings.Join(id.Parts, "."))
		}
		return nil, false, nil
	}
	if q.Having != nil {
		post.clause = "in HAVING"
		cond, err := bindExpr(post, q.Having)
		if err != nil {
			return nil, nil, err
		}
		if err := want(q.Having, cond, types.Boolean); err != nil {
			return nil, nil, err
		}
		out = &relation{node: &Filter{Input: out.node, Cond: cond}, scope: out.scope}
	}
	post.clause = "inside another aggregate"
	return out, post, nil
}
