package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Temporal makes a Join a temporal join: FROM l [LEFT] JOIN r FOR
// SYSTEM_TIME AS OF l.t ON ..., as Flink's. With l.t an event-time
// attribute it is an event-time (versioned table) join: r has a PRIMARY
// KEY, which the equi-keys include, and an event-time attribute
// (RightTime), and each left row joins the version of r valid at its
// time (join.TemporalJoin). With l.t a PROCTIME() column it is a
// processing-time join, which strand runs against a bounded table read
// whole first (join.LookupJoin), so that the result does not depend on
// timing.
type Temporal struct {
	// LeftTime is the left column of AS OF; RightTime the right side's
	// event-time column, -1 for a processing-time join.
	LeftTime, RightTime int
	// Table names the right side, for EXPLAIN.
	Table string
}

// Proc reports whether the join is a processing-time one.
func (t *Temporal) Proc() bool { return t.RightTime < 0 }

// temporalJoin binds a join whose right side is FOR SYSTEM_TIME AS OF.
func (b *binder) temporalJoin(t *parser.Join, ref *parser.TableRef) (*relation, error) {
	var kind JoinKind
	switch t.Kind {
	case parser.JoinInner:
		kind = InnerJoin
	case parser.JoinLeft:
		kind = LeftJoin
	default:
		return nil, errorf(t.KindPos, ErrUnsupported, "a temporal join (FOR SYSTEM_TIME AS OF) is an INNER or a LEFT JOIN, not %s, as in Flink", t.Kind)
	}
	l, err := b.joinSide(t.Left)
	if err != nil {
		return nil, err
	}
	if m := ChangelogMode(l.node); !m.InsertOnly() {
		return nil, errorf(t.Left.Pos(), ErrUnsupported, "the left side of a temporal join must be append-only, as in Flink, and this one produces updates %s", m)
	}
	at, err := bindExpr(&exprCtx{scope: l.scope, clause: "in FOR SYSTEM_TIME AS OF"}, ref.AsOf)
	if err != nil {
		return nil, err
	}
	tc, ok := at.(*expr.Col)
	if !ok || tc.T.Attr != types.RowTime && tc.T.Attr != types.ProcTime {
		return nil, errorf(ref.AsOf.Pos(), ErrUnsupported, "FOR SYSTEM_TIME AS OF takes a time attribute of the left side: its event-time column (WATERMARK) or a PROCTIME() column")
	}
	r, err := b.hintedRef(ref)
	if err != nil {
		return nil, err
	}
	name := identName(ref.Name)
	r = requalify(r, ref.Alias, name)
	if err := r.ranked(); err != nil {
		return nil, err
	}
	tmp := &Temporal{LeftTime: tc.Index, RightTime: -1, Table: name}
	rs := r.node.Schema()
	if tc.T.Attr == types.RowTime {
		tmp.RightTime = slices.IndexFunc(rs, func(f types.Field) bool { return f.Type.Attr == types.RowTime })
		if tmp.RightTime < 0 {
			return nil, errorf(ref.Name.Start, ErrUnsupported, "'%s' is no versioned table: an event-time temporal join needs a right side with an event-time attribute (a WATERMARK) and a PRIMARY KEY", name)
		}
	} else if err := lookupTable(r.node, ref); err != nil {
		return nil, err
	}

	n := len(l.scope.cols)
	both := &scope{cols: append(append([]column{}, l.scope.cols...), r.scope.cols...)}
	cond, err := bindExpr(&exprCtx{scope: both, clause: "in ON"}, t.On)
	if err != nil {
		return nil, err
	}
	if err := want(t.On, cond, types.Boolean); err != nil {
		return nil, err
	}
	// Equalities of a column of the right side and an expression of the
	// left side's columns are keys; an expression is computed below the
	// join (Flink's lookup join keys mod(b.auction, 10000) so), as an
	// extra left column the join's output then drops.
	j := &Join{Kind: kind, Temporal: tmp, At: t.KindPos}
	var computed, rest []expr.Expr
	for _, c := range andTerms(cond) {
		if lk, rk, ok := equiKey(c, n); ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, lk), append(j.RightKeys, rk-n)
			continue
		}
		if le, rk, ok := leftExprKey(c, n); ok {
			j.LeftKeys, j.RightKeys = append(j.LeftKeys, n+len(computed)), append(j.RightKeys, rk-n)
			computed = append(computed, le)
			continue
		}
		rest = append(rest, c)
	}
	if len(j.LeftKeys) == 0 {
		return nil, errorf(t.On.Pos(), ErrUnsupported, "a temporal join needs an equality of the right side's columns with the left side's in ON, such as o.currency = r.currency")
	}
	if keys := versionKeys(r.node); !tmp.Proc() && len(keys) == 0 {
		return nil, errorf(ref.Name.Start, ErrUnsupported, "'%s' is no versioned table: an event-time temporal join needs a right side with a PRIMARY KEY (NOT ENFORCED), as in Flink", name)
	} else if !tmp.Proc() && !slices.ContainsFunc(keys, func(k []int) bool { return within(k, j.RightKeys) }) {
		return nil, errorf(t.On.Pos(), ErrUnsupported, "the ON condition of an event-time temporal join must include the primary key of the versioned table '%s' (%s), as in Flink", name, strings.Join(colNames(rs, keys[0]), ", "))
	}
	j.Left, j.Right = l.node, r.node
	if len(computed) > 0 {
		ls := l.node.Schema()
		p := &Project{Input: l.node}
		for i, f := range ls {
			p.Exprs = append(p.Exprs, &expr.Col{Index: i, Name: f.Name, T: f.Type})
			p.Out = append(p.Out, f)
		}
		for i, e := range computed {
			p.Exprs = append(p.Exprs, e)
			p.Out = append(p.Out, types.Field{Name: fmt.Sprintf("$key%d", i), Type: e.Type()})
		}
		if in, ok := l.node.(*Project); ok {
			// One projection, not two: the scan under it then reads
			// only the columns used (prunedScan).
			for i, e := range p.Exprs {
				p.Exprs[i] = substitute(e, in.Exprs)
			}
			p.Input = in.Input
		}
		j.Left = p
		// The rest of the condition reads the right side's columns
		// after the computed ones.
		by := make([]expr.Expr, len(both.cols))
		for i, c := range both.cols {
			at := i
			if i >= n {
				at += len(computed)
			}
			by[i] = &expr.Col{Index: at, Name: c.name, T: c.typ}
		}
		for i, c := range rest {
			rest[i] = substitute(c, by)
		}
	}
	j.Residual = conjunction(rest)
	b.defines(j)
	var top Node = j
	if len(computed) > 0 {
		out := j.Schema()
		p := &Project{Input: j}
		for i, f := range out {
			if i >= n && i < n+len(computed) {
				continue
			}
			p.Exprs = append(p.Exprs, &expr.Col{Index: i, Name: f.Name, T: f.Type})
			p.Out = append(p.Out, f)
		}
		top = p
	}
	out := top.Schema()
	sc := &scope{}
	for i, c := range both.cols {
		sc.cols = append(sc.cols, column{qual: c.qual, name: c.name, typ: out[i].Type})
	}
	return &relation{node: top, scope: sc}, nil
}

// leftExprKey reports whether e is an expression of the left side's
// columns (below n) = a right column (either way round), of types that
// encode alike, and returns both.
func leftExprKey(e expr.Expr, n int) (expr.Expr, int, bool) {
	c, ok := e.(*expr.Call)
	if !ok || c.Fn != expr.Eq || len(c.Args) != 2 {
		return nil, 0, false
	}
	for i := range 2 {
		rc, ok := keyCol(c.Args[1-i])
		if !ok || rc.Index < n {
			continue
		}
		le := c.Args[i]
		lo, hi := colRange(le)
		if lo < 0 || hi >= n || !encodesAlike(le.Type(), rc.T) {
			continue
		}
		if x, ok := le.(*expr.Cast); ok && !x.Try && encodesAlike(x.X.Type(), rc.T) {
			le = x.X // a widening cast the comparison put there
		}
		return le, rc.Index, true
	}
	return nil, 0, false
}

// versionKeys are the keys of a versioned table: a scanned table's
// PRIMARY KEY (whatever its changelog), through filters and projections,
// or the upsert keys of what makes the rows (a deduplication's partition
// key).
func versionKeys(n Node) [][]int {
	switch n := n.(type) {
	case *Scan:
		if k := n.Table.keyCols(n.Table.Schema); k != nil {
			return [][]int{k}
		}
		return nil
	case *Filter:
		return versionKeys(n.Input)
	case *Project:
		return projectKeys(n, versionKeys(n.Input))
	}
	return UpsertKeys(n)
}

// lookupTable checks the right side of a processing-time temporal join:
// strand reads it whole before the join starts, so it must be bounded and
// insert-only.
func lookupTable(n Node, ref *parser.TableRef) error {
	if m := ChangelogMode(n); !m.InsertOnly() {
		return errorf(ref.Name.Start, ErrUnsupported, "the right side of a processing-time temporal join must be insert-only, and '%s' produces updates %s", identName(ref.Name), m)
	}
	var err error
	var walk func(Node)
	walk = func(n Node) {
		if s, ok := n.(*Scan); ok && err == nil {
			src, e := connector.NewSource(s.Table.Source())
			if e != nil {
				err = optionError(s.Table, e)
				return
			}
			if !src.Bounded() {
				err = errorf(ref.Name.Start, ErrUnsupported, "a processing-time temporal join (FOR SYSTEM_TIME AS OF a PROCTIME() column) needs a bounded table on its right, which strand reads whole before joining, so that the result does not depend on timing; '%s' reads the unbounded table '%s' (strand has no lookup connectors: use an event-time temporal join on a versioned table, or a bounded filesystem table)", identName(ref.Name), s.Table.Name)
			}
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(n)
	return err
}

// describeTemporal renders a temporal join for EXPLAIN.
func (j *Join) describeTemporal(names func(types.Schema, []int) string) string {
	t := j.Temporal
	ls, rs := j.Left.Schema(), j.Right.Schema()
	if t.Proc() {
		return fmt.Sprintf("LookupJoin(table=[%s], joinType=[%s], leftKeys=[%s], rightKeys=[%s]", t.Table, j.Kind.flinkName(), names(ls, j.LeftKeys), names(rs, j.RightKeys))
	}
	return fmt.Sprintf("TemporalJoin(joinType=[%s], leftKeys=[%s], rightKeys=[%s], leftTime=[%s], rightTime=[%s]", j.Kind.flinkName(), names(ls, j.LeftKeys), names(rs, j.RightKeys), ls[t.LeftTime].Name, rs[t.RightTime].Name)
}
