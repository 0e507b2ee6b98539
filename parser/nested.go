package parser

import "strings"

// Nested values: subscripts, field access after an expression, and the
// ARRAY[...] and MAP[...] constructors. A field of a column, t.col.field,
// is an *Ident like any qualified name; the planner tells a table's
// alias from a column. ROW(a, b) is a *Call named ROW.

// Unnest is UNNEST(Exprs) [WITH ORDINALITY] [[AS] Alias [(Columns)]]: a
// FROM item, which the planner takes after CROSS JOIN, or after [LEFT]
// JOIN with ON TRUE.
type Unnest struct {
	Start      Pos
	Exprs      []Expr
	Ordinality bool
	Alias      string
	Columns    []*Ident
}

func (n *Unnest) Pos() Pos { return n.Start }
func (*Unnest) tableExpr() {}

func (n *Unnest) String() string {
	s := "UNNEST(" + joinNodes(n.Exprs) + ")"
	if n.Ordinality {
		s += " WITH ORDINALITY"
	}
	s += aliasSuffix(n.Alias)
	if len(n.Columns) > 0 {
		s += " (" + joinNodes(n.Columns) + ")"
	}
	return s
}

// unnest parses UNNEST(...) [WITH ORDINALITY] [AS t [(a, b)]], at UNNEST.
func (p *parser) unnest() (TableExpr, error) {
	u := &Unnest{Start: p.next().pos}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var err error
	if u.Exprs, err = p.exprList(); err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if isWord(p.peek(), "WITH") && isWord(p.peekAt(1), "ORDINALITY") {
		p.next()
		p.next()
		u.Ordinality = true
	}
	if u.Alias, err = p.alias(); err != nil {
		return nil, err
	}
	if u.Alias != "" && p.isOp("(") {
		u.Columns, err = p.identList()
	}
	return u, err
}

// Subscript is Expr[Index]: an array's element (1-based) or a map's value.
type Subscript struct {
	Start Pos
	Expr  Expr
	Index Expr
}

// Dot is Expr.Name where Expr is not a name: (x).f, arr[1].f, f(x).g.
type Dot struct {
	Start   Pos
	Expr    Expr
	Name    string
	NamePos Pos
}

// Constructor is ARRAY[a, ...] or MAP[k, v, ...]; Kind is "ARRAY" or "MAP".
type Constructor struct {
	Start Pos
	Kind  string
	Args  []Expr
}

func (n *Subscript) Pos() Pos   { return n.Start }
func (n *Dot) Pos() Pos         { return n.Start }
func (n *Constructor) Pos() Pos { return n.Start }
func (*Subscript) expr()        {}
func (*Dot) expr()              {}
func (*Constructor) expr()      {}

func (n *Subscript) String() string {
	return sub(n.Expr, precPrimary) + "[" + n.Index.String() + "]"
}

// String keeps a name in parentheses, (r).f, which would otherwise read
// as the qualified name r.f.
func (n *Dot) String() string {
	if isIdent(n.Expr) {
		return "(" + n.Expr.String() + ")." + quoteIdent(n.Name)
	}
	return sub(n.Expr, precPrimary) + "." + quoteIdent(n.Name)
}

func (n *Constructor) String() string {
	args := make([]string, len(n.Args))
	for i, a := range n.Args {
		args[i] = a.String()
	}
	return n.Kind + "[" + strings.Join(args, ", ") + "]"
}

// postfix parses the subscripts and field accesses after a primary
// expression: a[1], m['k'], a[1].f, (r).f; paren tells that the primary
// was in parentheses, so that a dot after a name in them is a field.
func (p *parser) postfix(e Expr, paren bool) (Expr, error) {
	for {
		switch {
		case isOp(p.peek(), "["):
			p.next()
			i, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			if _, err := p.expectOp("]"); err != nil {
				return nil, err
			}
			e = &Subscript{Start: e.Pos(), Expr: e, Index: i}
			paren = false
		case isOp(p.peek(), ".") && (paren || !isIdent(e)):
			p.next()
			name, pos, err := p.ident()
			if err != nil {
				return nil, err
			}
			e = &Dot{Start: e.Pos(), Expr: e, Name: name, NamePos: pos}
			paren = false
		default:
			return e, nil
		}
	}
}

// isIdent reports whether e is a name, whose dots the name itself took.
func isIdent(e Expr) bool {
	_, ok := e.(*Ident)
	return ok
}

// constructor parses ARRAY[...] or MAP[...], at the keyword.
func (p *parser) constructor(kind string) (Expr, error) {
	c := &Constructor{Start: p.next().pos, Kind: kind}
	p.next() // [
	if !p.acceptOp("]") {
		var err error
		if c.Args, err = p.exprList(); err != nil {
			return nil, err
		}
		if _, err := p.expectOp("]"); err != nil {
			return nil, err
		}
	}
	return c, nil
}
