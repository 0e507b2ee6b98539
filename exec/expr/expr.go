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
	case types.IntervalDayTime: // as written in SQL, for EXPLAIN
		return types.SQLIntervalDayTime(l.V.Int)
	case types.IntervalYearMonth:
		return types.SQLIntervalYearMonth(int32(l.V.Int))
	}
	return l.V.String()
}

// The String methods of Cast, Case and Call write their operands into one
// buffer: a long chain (a = 1 OR a = 2 OR ...) renders in time linear in
// its length, where formatting each level into a string would copy every
// level below it.

func (c *Cast) String() string { return render(c) }
func (c *Case) String() string { return render(c) }
func (c *Call) String() string { return render(c) }

func render(e Expr) string {
	var b strings.Builder
	write(&b, e)
	return b.String()
}

func write(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Cast:
		if e.Try {
			b.WriteString("TRY_")
		}
		b.WriteString("CAST(")
		write(b, e.X)
		b.WriteString(" AS " + e.T.Plain().Nullable().String() + ")")
	case *Case:
		b.WriteString("CASE")
		for _, w := range e.Whens {
			b.WriteString(" WHEN ")
			write(b, w.Cond)
			b.WriteString(" THEN ")
			write(b, w.Then)
		}
		b.WriteString(" ELSE ")
		write(b, e.Else)
		b.WriteString(" END")
	case *Call:
		if writeNested(b, e) {
			return
		}
		if op, ok := infix[e.Fn]; ok && len(e.Args) == 2 {
			b.WriteString("(")
			write(b, e.Args[0])
			b.WriteString(" " + op + " ")
			write(b, e.Args[1])
			b.WriteString(")")
			return
		}
		b.WriteString(e.Fn.String() + "(")
		for i, a := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, a)
		}
		b.WriteString(")")
	default:
		b.WriteString(e.String())
	}
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
