package planner

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// aggregateNames are the aggregate functions strand computes in windows.
var aggregateNames = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true}

// windowAuxNames are the legacy group-window auxiliary functions.
var windowAuxNames = map[string]bool{
	"TUMBLE_START": true, "TUMBLE_END": true, "TUMBLE_ROWTIME": true, "TUMBLE": true,
	"HOP_START": true, "HOP_END": true, "HOP_ROWTIME": true, "HOP": true,
	"SESSION_START": true, "SESSION_END": true, "SESSION_ROWTIME": true, "SESSION": true,
	"CUMULATE": true,
}

// scalarFuncs lists the scalar functions by name, for binding and for the
// "unknown function" message.
var scalarFuncs = []string{
	"ABS", "CEIL", "CEILING", "CHAR_LENGTH", "CHARACTER_LENGTH", "COALESCE", "CONCAT", "CURRENT_TIMESTAMP",
	"DATE_FORMAT", "FLOOR", "LOCALTIMESTAMP", "LOWER", "MOD", "NOW", "NULLIF", "POSITION", "PROCTIME",
	"ROUND", "SUBSTR", "SUBSTRING", "TO_TIMESTAMP", "UPPER",
	"CARDINALITY", "ELEMENT", // bind_nested.go
}

func bindCall(c *exprCtx, e *parser.Call) (expr.Expr, error) {
	switch {
	case aggregateNames[e.Name]:
		return nil, errorf(e.Start, ErrUnsupported, "aggregate function %s is not allowed %s", e.Name, orDefault(c.clause, "here"))
	case windowAuxNames[e.Name]:
		fn, _, _ := strings.Cut(e.Name, "_")
		return nil, errorf(e.Start, ErrUnsupported, "%s is only allowed in a query with GROUP BY %s(...)", e.Name, fn)
	case e.Over != nil && isRankName(e.Name):
		return nil, errorf(e.Start, ErrUnsupported, "%s() OVER (...) must be a select item of its own, numbering the rows of a window Top-N", e.Name)
	case e.Over != nil:
		return nil, errorf(e.Start, ErrUnsupported, "%s() OVER (...) is not supported: OVER takes the aggregates COUNT, SUM, AVG, MIN and MAX, and ROW_NUMBER() as a Top-N", e.Name)
	case groupingFuncs[e.Name]:
		return nil, errorf(e.Start, ErrUnsupported, "%s may only be used in the select list, HAVING or ORDER BY of a query with GROUP BY", e.Name)
	case e.Name == "ROLLUP" || e.Name == "CUBE":
		return nil, errorf(e.Start, ErrUnsupported, "%s(...) may only stand in GROUP BY or in its GROUPING SETS", e.Name)
	case e.Distinct || e.Star || e.Filter != nil:
		return nil, errorf(e.Start, ErrType, "%s is not an aggregate function", e.Name)
	}
	if out, ok, err := bindNestedCall(c, e); ok {
		return out, err
	}
	out, err := bindFunc(c, e.Start, e.Name, e.Args)
	return readsNested(e, out, err)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func bindFunc(c *exprCtx, pos parser.Pos, name string, argExprs []parser.Expr) (expr.Expr, error) {
	// A name strand does not know is the error, before its arguments are
	// (LISTAGG(x) outside GROUP BY x is an unknown function, not x's).
	if !isBuiltin(name) {
		return nil, unknownFunc(pos, name)
	}
	if name == "TIMESTAMPDIFF" || name == "TIMESTAMPADD" {
		return bindTimeUnitCall(c, pos, name, argExprs)
	}
	args := make([]expr.Expr, len(argExprs))
	for i, a := range argExprs {
		var err error
		if args[i], err = bindExpr(c, a); err != nil {
			return nil, err
		}
	}
	nargs := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			n := "1 argument"
			switch {
			case lo == hi && lo != 1:
				n = itoa(lo) + " arguments"
			case lo != hi:
				n = itoa(lo) + " to " + itoa(hi) + " arguments"
			case lo == 0:
				n = "no arguments"
			}
			return errorf(pos, ErrType, "%s takes %s, got %d", name, n, len(args))
		}
		return nil
	}
	str := func(i int) error {
		if k := args[i].Type().Kind; k != types.String && k != types.Null {
			return errorf(argExprs[i].Pos(), ErrType, "%s needs a STRING, got %s", name, args[i].Type().Plain())
		}
		args[i] = coerce(args[i], types.TString)
		return nil
	}
	integer := func(i int) error {
		if !args[i].Type().IsIntegral() && args[i].Type().Kind != types.Null {
			return errorf(argExprs[i].Pos(), ErrType, "%s needs an integer, got %s", name, args[i].Type().Plain())
		}
		args[i] = coerce(args[i], types.TInt)
		return nil
	}
	nn := func() bool { return allNotNull(args...) }

	switch name {
	case "COALESCE":
		if err := nargs(1, 1<<20); err != nil {
			return nil, err
		}
		t := args[0].Type()
		anyNotNull := false
		for i, a := range args {
			var ok bool
			if t, ok = commonType(t, a.Type()); !ok {
				return nil, errorf(argExprs[i].Pos(), ErrType, "COALESCE arguments have incompatible types %s and %s", t.Plain(), a.Type().Plain())
			}
			anyNotNull = anyNotNull || a.Type().NotNull
		}
		for i := range args {
			args[i] = coerce(args[i], t)
		}
		return call(expr.Coalesce, t.Plain().WithNotNull(anyNotNull), args...), nil
	case "NULLIF":
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		t, ok := commonType(args[0].Type(), args[1].Type())
		if !ok {
			return nil, errorf(pos, ErrType, "NULLIF arguments have incompatible types %s and %s", args[0].Type().Plain(), args[1].Type().Plain())
		}
		return call(expr.NullIf, t.Plain().Nullable(), coerce(args[0], t), coerce(args[1], t)), nil
	case "MOD":
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		return arith(pos, "%", args[0], args[1])
	case "ABS", "FLOOR", "CEIL", "CEILING":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		if name == "CEILING" {
			name = "CEIL"
		}
		return numericUnary(pos, name, args[0])
	case "ROUND":
		if err := nargs(1, 2); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if !t.IsNumeric() {
			return nil, errorf(argExprs[0].Pos(), ErrType, "ROUND needs a number, got %s", t.Plain())
		}
		digits := int64(0)
		if len(args) == 2 {
			l, ok := args[1].(*expr.Lit)
			if !ok || !l.V.Type.IsIntegral() || l.V.IsNull {
				return nil, errorf(argExprs[1].Pos(), ErrType, "ROUND's second argument must be an integer literal")
			}
			digits = l.V.Int
			args[1] = coerce(args[1], types.TInt)
		}
		out := t.Plain().WithNotNull(t.NotNull)
		if t.Kind == types.Decimal {
			s := min(max(int(digits), 0), t.Scale)
			out = types.DecimalOf(min(t.Precision-t.Scale+s+1, 38), s).WithNotNull(t.NotNull)
		}
		return call(expr.Round, out, args...), nil
	case "LOWER", "UPPER", "CHAR_LENGTH", "CHARACTER_LENGTH":
		if err := nargs(1, 1); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		switch name {
		case "LOWER":
			return call(expr.Lower, types.TString.WithNotNull(nn()), args...), nil
		case "UPPER":
			return call(expr.Upper, types.TString.WithNotNull(nn()), args...), nil
		}
		return call(expr.CharLength, types.TInt.WithNotNull(nn()), args...), nil
	case "SUBSTRING", "SUBSTR":
		if err := nargs(2, 3); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		for i := 1; i < len(args); i++ {
			if err := integer(i); err != nil {
				return nil, err
			}
		}
		return call(expr.Substring, types.TString.WithNotNull(nn()), args...), nil
	case "CONCAT":
		if err := nargs(1, 1<<20); err != nil {
			return nil, err
		}
		return concat(pos, args, argExprs)
	case "POSITION":
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		if err := str(0); err != nil {
			return nil, err
		}
		if err := str(1); err != nil {
			return nil, err
		}
		return call(expr.Position, types.TInt.WithNotNull(nn()), args...), nil
	case "DATE_FORMAT":
		if err := nargs(2, 2); err != nil {
			return nil, err
		}
		if k := args[0].Type().Kind; k == types.String {
			args[0] = coerce(args[0], types.TTimestamp)
		} else if !args[0].Type().IsTimestamp() && k != types.Date && k != types.Null {
			return nil, errorf(argExprs[0].Pos(), ErrType, "DATE_FORMAT needs a TIMESTAMP, got %s", args[0].Type().Plain())
		}
		if err := str(1); err != nil {
			return nil, err
		}
		if f, ok := strLitValue(args[1]); ok {
			if err := expr.CheckDateFormat(f); err != nil {
				return nil, errorf(argExprs[1].Pos(), ErrUnsupported, "%v", err)
			}
		}
		return call(expr.DateFormat, types.TString.WithNotNull(nn()), args...), nil
	case "TO_TIMESTAMP":
		if err := nargs(1, 2); err != nil {
			return nil, err
		}
		for i := range args {
			if err := str(i); err != nil {
				return nil, err
			}
		}
		if len(args) == 1 { // Flink gives NULL for a string it cannot read
			return &expr.Cast{X: args[0], T: types.TTimestamp.Nullable(), Try: true}, nil
		}
		if f, ok := strLitValue(args[1]); ok {
			if err := expr.CheckParseFormat(f); err != nil {
				return nil, errorf(argExprs[1].Pos(), ErrUnsupported, "%v", err)
			}
		}
		return call(expr.ParseTime, types.TTimestamp, args...), nil
	case "CURRENT_TIMESTAMP", "NOW":
		if err := nargs(0, 0); err != nil {
			return nil, err
		}
		return call(expr.CurrentTimestamp, types.TTimestampLTZ.WithNotNull(true)), nil
	case "LOCALTIMESTAMP":
		if err := nargs(0, 0); err != nil {
			return nil, err
		}
		return call(expr.CurrentTimestamp, types.TTimestamp.WithNotNull(true)), nil
	case "PROCTIME":
		if err := nargs(0, 0); err != nil {
			return nil, err
		}
		t := types.TTimestampLTZ.WithNotNull(true)
		t.Attr = types.ProcTime
		return call(expr.ProcTime, t), nil
	}
	if e, ok, err := bindBuiltin(pos, name, args, argExprs, nargs, str, integer); ok || err != nil {
		return e, err
	}
	return nil, unknownFunc(pos, name)
}

func unknownFunc(pos parser.Pos, name string) error {
	known := slices.Concat(scalarFuncs, builtinFuncs)
	for n := range aggregateNames {
		known = append(known, n)
	}
	sort.Strings(known)
	return errorf(pos, ErrUnknownFunction, "unknown function %s (known functions: %s)", name, strings.Join(known, ", "))
}

func itoa(n int) string { return strconv.Itoa(n) }

// isRankName reports whether name is a ranking function.
func isRankName(name string) bool {
	_, ok := rankNames[name]
	return ok
}
