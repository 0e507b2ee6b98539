package planner

import (
	"errors"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Binding of nested values (ROW, ARRAY, MAP).
//
// A dotted name a.b.c is resolved as Calcite resolves it: the longest
// prefix that names a column wins, a table alias before a column (so in
// FROM person, datagen, person.id is the table person's column id, even
// if datagen has a ROW column person), and the parts after it are fields
// of that column, each of which must exist in its ROW. A prefix that is
// ambiguous (two tables with a ROW column r) is an error at the name.

// resolveNested binds id when scope.resolve found no column of that
// name: a field of a ROW column. notFound is resolve's error, returned
// when no prefix of id names a column either.
func resolveNested(c *exprCtx, id *parser.Ident, notFound error) (expr.Expr, error) {
	if !errors.Is(notFound, ErrUnknownColumn) || len(id.Parts) < 2 {
		return nil, notFound
	}
	for k := len(id.Parts) - 1; k >= 1; k-- {
		prefix := &parser.Ident{Start: id.Start, Parts: id.Parts[:k]}
		i, err := c.scope.resolve(prefix)
		if err != nil {
			// resolve says "ambiguous" and "unknown" with one kind.
			if strings.HasSuffix(err.Error(), "is ambiguous") {
				return nil, err
			}
			continue
		}
		col := c.scope.cols[i]
		var x expr.Expr = &expr.Col{Index: i, Name: col.name, T: col.typ}
		for _, f := range id.Parts[k:] {
			if x, err = getField(id.Start, x, f); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
	return nil, notFound
}

// readsNested refuses, at e, a bound expression out that computes a
// nested value (a CASE or COALESCE over ROWs): strand only reads them.
func readsNested(e parser.Expr, out expr.Expr, err error) (expr.Expr, error) {
	if err != nil || !out.Type().IsNested() || expr.ReadsNested(out) {
		return out, err
	}
	return nil, errorf(e.Pos(), ErrUnsupported, "this expression computes a %s value, which strand does not do yet: nested values can be read from columns only", out.Type().Kind)
}

// resolvable reports whether id names a column or a field of one in sc,
// with resolve's error if not.
func resolvable(sc *scope, id *parser.Ident) error {
	_, err := sc.resolve(id)
	if err != nil {
		_, err = resolveNested(&exprCtx{scope: sc}, id, err)
	}
	return err
}

// getField binds x.name. A field of a nullable ROW is nullable: a NULL row
// has NULL fields.
func getField(pos parser.Pos, x expr.Expr, name string) (expr.Expr, error) {
	t := x.Type()
	if t.Kind != types.Row {
		return nil, errorf(pos, ErrType, "%s is %s, not a ROW: it has no field '%s'", describeNested(x), t.Plain(), name)
	}
	i := t.FieldIndex(name)
	if i < 0 {
		return nil, errorf(pos, ErrUnknownColumn, "%s has no field '%s' (fields: %s)", describeNested(x), name, strings.Join(types.Schema(t.Fields()).Names(), ", "))
	}
	f := t.Fields()[i]
	ft := f.Type
	if !t.NotNull {
		ft = ft.Nullable()
	}
	return call(expr.GetField, ft, x, strLit(f.Name)), nil
}

// describeNested names an expression in an error: a column by its name.
func describeNested(x expr.Expr) string {
	switch x := x.(type) {
	case *expr.Col:
		return "column '" + x.Name + "'"
	case *expr.Call:
		if x.Fn == expr.GetField {
			return "field " + x.String()[strings.IndexByte(x.String(), ':')+1:]
		}
	}
	return "the value"
}

// bindNested binds the nested forms of the parser: x[i], (x).f and the
// constructors.
func bindNested(c *exprCtx, e parser.Expr) (expr.Expr, bool, error) {
	switch e := e.(type) {
	case *parser.Subscript:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, true, err
		}
		i, err := bindExpr(c, e.Index)
		if err != nil {
			return nil, true, err
		}
		out, err := subscript(e, x, i)
		return out, true, err
	case *parser.Dot:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, true, err
		}
		out, err := getField(e.NamePos, x, e.Name)
		return out, true, err
	case *parser.Constructor:
		return nil, true, errorf(e.Start, ErrUnsupported, "%s[...] constructs a value, which strand does not do yet: nested values can be read from columns only", e.Kind)
	}
	return nil, false, nil
}

// subscript binds x[i]: an array's element (i an integer, 1-based, NULL
// out of range) or a map's value (i of the key's type, NULL when absent).
// The result is nullable either way.
func subscript(e *parser.Subscript, x, i expr.Expr) (expr.Expr, error) {
	t := x.Type()
	switch t.Kind {
	case types.Array:
		if !i.Type().IsIntegral() {
			return nil, errorf(e.Index.Pos(), ErrType, "an ARRAY subscript must be INT or BIGINT, got %s", i.Type().Plain())
		}
	case types.Map:
		k := t.Key()
		if i.Type().Kind != types.Null && !types.Same(i.Type(), k) {
			ct, ok := commonType(i.Type(), k)
			if !ok || !types.Same(ct, k) {
				return nil, errorf(e.Index.Pos(), ErrType, "the key of %s must be %s, got %s", t, k, i.Type().Plain())
			}
			i = coerce(i, k)
		}
	default:
		return nil, errorf(e.Start, ErrType, "%s is %s: only an ARRAY or a MAP can be subscripted", describeNested(x), t.Plain())
	}
	if t.Elem().IsNested() {
		return nil, errorf(e.Start, ErrUnsupported, "picking a %s element out of %s is not supported yet", t.Elem().Kind, t)
	}
	return call(expr.ElementAt, t.Elem().Nullable(), x, i), nil
}

// bindNestedCall binds CARDINALITY(x) and ELEMENT(x).
func bindNestedCall(c *exprCtx, e *parser.Call) (expr.Expr, bool, error) {
	switch e.Name {
	case "CARDINALITY", "ELEMENT":
	case "ROW":
		return nil, true, errorf(e.Start, ErrUnsupported, "ROW(...) constructs a value, which strand does not do yet: nested values can be read from columns only")
	default:
		return nil, false, nil
	}
	if len(e.Args) != 1 {
		return nil, true, errorf(e.Start, ErrType, "%s takes one argument, got %d", e.Name, len(e.Args))
	}
	x, err := bindExpr(c, e.Args[0])
	if err != nil {
		return nil, true, err
	}
	xt := x.Type()
	if e.Name == "ELEMENT" {
		if xt.Kind != types.Array {
			return nil, true, errorf(e.Args[0].Pos(), ErrType, "ELEMENT takes an ARRAY, got %s", xt.Plain())
		}
		if xt.Elem().IsNested() {
			return nil, true, errorf(e.Start, ErrUnsupported, "picking a %s element out of %s is not supported yet", xt.Elem().Kind, xt)
		}
		return call(expr.Element, xt.Elem().Nullable(), x), true, nil
	}
	if xt.Kind != types.Array && xt.Kind != types.Map {
		return nil, true, errorf(e.Args[0].Pos(), ErrType, "CARDINALITY takes an ARRAY or a MAP, got %s", xt.Plain())
	}
	return call(expr.Cardinality, types.TInt.WithNotNull(xt.NotNull), x), true, nil
}
