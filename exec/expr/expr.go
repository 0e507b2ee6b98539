package expr

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/types"
)

// Expr is a typed expression over the columns of one input batch.
type Expr interface {
	// Type is the SQL type of the expression's result.
	Type() types.Type
	// String renders the expression for EXPLAIN.
	String() string
	expr()
}

// Col reads input column Index.
type Col struct {
	Index int
	Name  string
	T     types.Type
}

// Lit is a constant.
type Lit struct{ V types.Value }

// Cast converts X to T. A failed conversion is an error, or NULL when Try
// is set (TRY_CAST).
type Cast struct {
	X   Expr
	T   types.Type
	Try bool
}

// When is one branch of a searched CASE.
type When struct{ Cond, Then Expr }

// Case is a searched CASE: the first branch whose Cond is TRUE gives the
// result; Else (never nil: the planner supplies a typed NULL) otherwise.
type Case struct {
	Whens []When
	Else  Expr
	T     types.Type
}

// Call applies a built-in function.
type Call struct {
	Fn   Fn
	Args []Expr
	T    types.Type
}

func (*Col) expr()  {}
func (*Lit) expr()  {}
func (*Cast) expr() {}
func (*Case) expr() {}
func (*Call) expr() {}

// Type implements Expr.
func (c *Col) Type() types.Type { return c.T }

// Type implements Expr.
func (l *Lit) Type() types.Type { return l.V.Type }

// Type implements Expr.
func (c *Cast) Type() types.Type { return c.T }

// Type implements Expr.
func (c *Case) Type() types.Type { return c.T }

// Type implements Expr.
func (c *Call) Type() types.Type { return c.T }

func (c *Col) String() string { return fmt.Sprintf("$%d:%s", c.Index, c.Name) }

func (l *Lit) String() string {
	if l.V.IsNull {
		return "NULL:" + l.V.Type.Plain().Nullable().String()
	}
	switch l.V.Type.Kind {
	case types.String:
		return "'" + strings.ReplaceAll(l.V.Str, "'", "''") + "'"
	case types.Timestamp, types.TimestampLTZ, types.Date:
		return l.V.Type.Kind.String() + " '" + l.V.String() + "'"
	case types.IntervalDayTime, types.IntervalYearMonth:
		return "INTERVAL '" + l.V.String() + "'"
	}
	return l.V.String()
}

func (c *Cast) String() string {
	fn := "CAST"
	if c.Try {
		fn = "TRY_CAST"
	}
	return fmt.Sprintf("%s(%s AS %s)", fn, c.X, c.T.Plain().Nullable())
}

func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	for _, w := range c.Whens {
		fmt.Fprintf(&b, " WHEN %s THEN %s", w.Cond, w.Then)
	}
	fmt.Fprintf(&b, " ELSE %s END", c.Else)
	return b.String()
}

func (c *Call) String() string {
	if op, ok := infix[c.Fn]; ok && len(c.Args) == 2 {
		return fmt.Sprintf("(%s %s %s)", c.Args[0], op, c.Args[1])
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = a.String()
	}
	return fmt.Sprintf("%s(%s)", c.Fn, strings.Join(args, ", "))
}

// Walk calls fn for e and every expression below it, parents first, and
// stops descending where fn returns false.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	switch e := e.(type) {
	case *Cast:
		Walk(e.X, fn)
	case *Case:
		for _, w := range e.Whens {
			Walk(w.Cond, fn)
			Walk(w.Then, fn)
		}
		Walk(e.Else, fn)
	case *Call:
		for _, a := range e.Args {
			Walk(a, fn)
		}
	}
}
