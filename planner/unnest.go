package planner

import (
	"fmt"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Unnest is Flink's Correlate over UNNEST: each row of Input once per
// element of its ARRAY column Col (or entry of its MAP column), with the
// element (a MAP's key and value) and, with Ordinality, its position
// after the row's columns. Outer keeps a row whose array is NULL or empty
// once, with NULLs (LEFT JOIN UNNEST ... ON TRUE).
type Unnest struct {
	Input             Node
	Col               int
	Outer, Ordinality bool
}

func (u *Unnest) Inputs() []Node { return []Node{u.Input} }

func (u *Unnest) Schema() types.Schema {
	in := u.Input.Schema()
	out := append(types.Schema{}, in...)
	t := in[u.Col].Type
	if t.Kind == types.Map {
		out = append(out, types.Field{Name: "KEY", Type: t.Key().WithNotNull(!u.Outer && t.Key().NotNull)},
			types.Field{Name: "VALUE", Type: t.Elem().Nullable()})
	} else {
		out = append(out, types.Field{Name: "EXPR$0", Type: t.Elem().WithNotNull(!u.Outer && t.Elem().NotNull)})
	}
	if u.Ordinality {
		out = append(out, types.Field{Name: "ORDINALITY", Type: types.TInt.WithNotNull(!u.Outer)})
	}
	return out
}

// Mode is the input's row kinds: each copy of a row means what the row
// means. No upsert key survives the copies.
func (u *Unnest) Mode() Mode { return Mode{Kinds: ChangelogMode(u.Input).Kinds} }

func (u *Unnest) describe() string {
	kind := "INNER"
	if u.Outer {
		kind = "LEFT"
	}
	s := fmt.Sprintf("Unnest(%s, joinType=[%s]", u.Input.Schema()[u.Col].Name, kind)
	if u.Ordinality {
		s += ", ordinality"
	}
	return s + ")"
}

func (c *compiler) unnest(n *Unnest) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	in, out := s.schema, n.Schema()
	if _, err := exec.NewUnnest(in, n.Col, n.Outer, n.Ordinality, out); err != nil {
		return nil, err
	}
	s.v.Ops = append(s.v.Ops, exec.OpSpec{Name: n.describe(), Out: out,
		New: func() (exec.Operator, error) { return exec.NewUnnest(in, n.Col, n.Outer, n.Ordinality, out) }})
	s.schema = out
	return s, nil
}

// unnestJoin binds FROM t CROSS JOIN UNNEST(expr) [WITH ORDINALITY] [AS u
// (cols)], and [LEFT] JOIN UNNEST(...) ... ON TRUE, as Flink does: expr,
// over t's columns, is an ARRAY or a MAP; the element is one column (a
// ROW element its fields), a MAP's entry two, key and value, then the
// position with WITH ORDINALITY; cols rename them.
func (b *binder) unnestJoin(t *parser.Join, u *parser.Unnest) (*relation, error) {
	outer := false
	switch t.Kind {
	case parser.JoinCross:
	case parser.JoinInner, parser.JoinLeft:
		if lit, ok := t.On.(*parser.BoolLit); !ok || !lit.Value {
			return nil, errorf(t.On.Pos(), ErrUnsupported, "a join with UNNEST takes ON TRUE: its rows are those of each row's own array")
		}
		outer = t.Kind == parser.JoinLeft
	default:
		return nil, errorf(t.KindPos, ErrUnsupported, "%s with UNNEST is not supported: use CROSS JOIN UNNEST or LEFT JOIN UNNEST ... ON TRUE", t.Kind)
	}
	if len(u.Exprs) != 1 {
		return nil, errorf(u.Exprs[1].Pos(), ErrUnsupported, "UNNEST of several arrays is not supported yet: unnest one per CROSS JOIN")
	}
	l, err := b.joinSide(t.Left)
	if err != nil {
		return nil, err
	}
	x, err := bindExpr(&exprCtx{scope: l.scope, clause: "in UNNEST"}, u.Exprs[0])
	if err != nil {
		return nil, err
	}
	xt := x.Type()
	if xt.Kind != types.Array && xt.Kind != types.Map {
		return nil, errorf(u.Exprs[0].Pos(), ErrType, "UNNEST takes an ARRAY or a MAP, got %s", xt.Plain())
	}

	// The array as a column of the input: a Project adds it unless it
	// is one.
	in := l.node
	inSchema := in.Schema()
	col, ok := x.(*expr.Col)
	if !ok {
		exprs := make([]expr.Expr, 0, len(inSchema)+1)
		for i, f := range inSchema {
			exprs = append(exprs, &expr.Col{Index: i, Name: f.Name, T: f.Type})
		}
		exprs = append(exprs, x)
		out := append(append(types.Schema{}, inSchema...), types.Field{Name: "$unnest", Type: xt})
		in = &Project{Input: in, Exprs: exprs, Out: out}
		col = &expr.Col{Index: len(inSchema), Name: "$unnest", T: xt}
	}
	un := &Unnest{Input: in, Col: col.Index, Outer: outer, Ordinality: u.Ordinality}
	us := un.Schema()

	// Above it: the left side's columns, then the element's (a ROW
	// element's fields), then the position.
	var exprs []expr.Expr
	var out types.Schema
	for i, f := range inSchema {
		exprs = append(exprs, &expr.Col{Index: i, Name: f.Name, T: us[i].Type})
		out = append(out, f)
	}
	n := len(in.Schema())
	var made []expr.Expr
	if et := us[n].Type; xt.Kind == types.Array && et.Kind == types.Row {
		e := &expr.Col{Index: n, Name: us[n].Name, T: et}
		for _, f := range et.Fields() {
			g, err := getField(u.Start, e, f.Name)
			if err != nil {
				return nil, err
			}
			made = append(made, g)
		}
	} else {
		for i := n; i < len(us) && (!u.Ordinality || i < len(us)-1); i++ {
			made = append(made, &expr.Col{Index: i, Name: us[i].Name, T: us[i].Type})
		}
	}
	if u.Ordinality {
		made = append(made, &expr.Col{Index: len(us) - 1, Name: "ORDINALITY", T: us[len(us)-1].Type})
	}
	if len(u.Columns) > 0 && len(u.Columns) != len(made) {
		return nil, errorf(u.Columns[0].Start, ErrType, "the alias names %d columns, UNNEST makes %d here", len(u.Columns), len(made))
	}
	sc := &scope{cols: append([]column{}, l.scope.cols...)}
	for i, e := range made {
		name := e.String()
		switch e := e.(type) {
		case *expr.Col:
			name = e.Name
		case *expr.Call:
			name, _ = litName(e)
		}
		if len(u.Columns) > 0 {
			name = u.Columns[i].Parts[0]
		}
		exprs = append(exprs, e)
		out = append(out, types.Field{Name: name, Type: e.Type()})
		sc.cols = append(sc.cols, column{qual: u.Alias, name: name, typ: e.Type()})
	}
	if u.Alias == "" {
		for i := len(l.scope.cols); i < len(sc.cols); i++ {
			sc.cols[i].qual = ""
		}
	}
	return &relation{node: &Project{Input: un, Exprs: exprs, Out: out}, scope: sc}, nil
}

// litName is the field a GetField reads.
func litName(e *expr.Call) (string, bool) {
	if e.Fn != expr.GetField {
		return "", false
	}
	l, ok := e.Args[1].(*expr.Lit)
	return l.V.Str, ok
}
