package planner

import (
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// builtinFuncs are the scalar functions bound by bindBuiltin: Flink's
// time, string, regex, JSON, hash and conditional functions, and
// COUNT_CHAR (a strand extension).
var builtinFuncs = []string{
	"YEAR", "QUARTER", "MONTH", "WEEK", "DAYOFYEAR", "DAYOFMONTH", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND",
	"TIMESTAMPDIFF", "TIMESTAMPADD", "CURRENT_WATERMARK", "TO_DATE", "UNIX_TIMESTAMP", "FROM_UNIXTIME",
	"TO_TIMESTAMP_LTZ", "REGEXP", "REGEXP_EXTRACT", "REGEXP_REPLACE", "SPLIT_INDEX", "REPLACE", "REVERSE",
	"INITCAP", "LPAD", "RPAD", "COUNT_CHAR", "MD5", "SHA256", "UUID", "JSON_VALUE", "JSON_QUERY",
	"IF", "GREATEST", "LEAST",
}

// extractFuncs are the one-argument shorthands of EXTRACT.
var extractFuncs = map[string]string{
	"YEAR": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "WEEK": "WEEK", "DAYOFYEAR": "DOY",
	"DAYOFMONTH": "DAY", "DAYOFWEEK": "DOW", "HOUR": "HOUR", "MINUTE": "MINUTE", "SECOND": "SECOND",
}

// addUnits are TIMESTAMPADD's units as intervals of one unit.
var addUnits = map[string]types.Value{
	"SECOND":  types.IntValue(types.TIntervalDT, types.MsSecond),
	"MINUTE":  types.IntValue(types.TIntervalDT, types.MsMinute),
	"HOUR":    types.IntValue(types.TIntervalDT, types.MsHour),
	"DAY":     types.IntValue(types.TIntervalDT, types.MsDay),
	"WEEK":    types.IntValue(types.TIntervalDT, 7*types.MsDay),
	"MONTH":   types.IntValue(types.TIntervalYM, 1),
	"QUARTER": types.IntValue(types.TIntervalYM, 3),
	"YEAR":    types.IntValue(types.TIntervalYM, 12),
}

// unitArg reads a time unit written as a bare word (TIMESTAMPDIFF(DAY, ...))
// or, as Flink also allows, SQL_TSI_DAY.
func unitArg(e parser.Expr) (string, bool) {
	id, ok := e.(*parser.Ident)
	if !ok || len(id.Parts) != 1 {
		return "", false
	}
	u := strings.TrimPrefix(strings.ToUpper(id.Parts[0]), "SQL_TSI_")
	return u, expr.IsDiffUnit(u)
}

// bindTimeUnitCall binds the calls whose first argument is a unit word,
// before their arguments are bound as expressions.
func bindTimeUnitCall(c *exprCtx, pos parser.Pos, name string, argExprs []parser.Expr) (expr.Expr, error) {
	if len(argExprs) != 3 {
		return nil, errorf(pos, ErrType, "%s takes 3 arguments (unit, ...), got %d", name, len(argExprs))
	}
	unit, ok := unitArg(argExprs[0])
	if !ok {
		return nil, errorf(argExprs[0].Pos(), ErrType, "%s's first argument must be a unit: SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER or YEAR", name)
	}
	a, err := bindExpr(c, argExprs[1])
	if err != nil {
		return nil, err
	}
	b, err := bindExpr(c, argExprs[2])
	if err != nil {
		return nil, err
	}
	isTime := func(t types.Type) bool { return t.IsTimestamp() || t.Kind == types.Date || t.Kind == types.Null }
	if name == "TIMESTAMPDIFF" {
		for i, x := range []expr.Expr{a, b} {
			if !isTime(x.Type()) {
				return nil, errorf(argExprs[i+1].Pos(), ErrType, "TIMESTAMPDIFF needs a TIMESTAMP or DATE, got %s", x.Type().Plain())
			}
		}
		return call(expr.TimestampDiff, types.TInt.WithNotNull(allNotNull(a, b)), strLit(unit), a, b), nil
	}
	// TIMESTAMPADD(unit, n, t) is t + n * INTERVAL '1' unit; a DATE moved
	// by less than a day becomes a TIMESTAMP, as in Flink.
	if !a.Type().IsIntegral() && a.Type().Kind != types.Null {
		return nil, errorf(argExprs[1].Pos(), ErrType, "TIMESTAMPADD needs an integer count, got %s", a.Type().Plain())
	}
	if !isTime(b.Type()) {
		return nil, errorf(argExprs[2].Pos(), ErrType, "TIMESTAMPADD needs a TIMESTAMP or DATE, got %s", b.Type().Plain())
	}
	one := addUnits[unit]
	if b.Type().Kind == types.Date && one.Type.Kind == types.IntervalDayTime && one.Int < types.MsDay {
		b = coerce(b, types.TTimestamp.WithNotNull(b.Type().NotNull))
	}
	if b.Type().Kind == types.Null {
		b = &expr.Lit{V: types.NullOf(types.TTimestamp)}
	}
	iv := call(expr.Mul, one.Type.WithNotNull(a.Type().NotNull), &expr.Lit{V: one}, coerce(a, types.TBigInt.WithNotNull(a.Type().NotNull)))
	return call(expr.AddInterval, b.Type().Plain().WithNotNull(allNotNull(a, b)), b, iv), nil
}

// bindBuiltin binds the functions of builtinFuncs over bound arguments;
// ok is false for a name it does not know.
func bindBuiltin(pos parser.Pos, name string, args []expr.Expr, argExprs []parser.Expr, nargs func(lo, hi int) error, str func(int) error, integer func(int) error) (expr.Expr, bool, error) {
	nn := allNotNull(args...)
	strOut := types.TString.WithNotNull(nn)
	strs := func(lo, hi int) error {
		if err := nargs(lo, hi); err != nil {
			return err
		}
		for i := range args {
			if err := str(i); err != nil {
				return err
			}
		}
		return nil
	}
	lit := func(i int, check func(string) error) error {
		if i >= len(args) {
			return nil
		}
		if s, ok := strLitValue(args[i]); ok {
			if err := check(s); err != nil {
				return errorf(argExprs[i].Pos(), ErrUnsupported, "%v", err)
			}
		}
		return nil
	}
	timeArg := func(i int) error {
		t := args[i].Type()
		if t.Kind == types.String {
			args[i] = coerce(args[i], types.TTimestamp.WithNotNull(t.NotNull))
			return nil
		}
		if !t.IsTimestamp() && t.Kind != types.Date && t.Kind != types.Null {
			return errorf(argExprs[i].Pos(), ErrType, "%s needs a TIMESTAMP or DATE, got %s", name, t.Plain())
		}
		return nil
	}
	if unit, ok := extractFuncs[name]; ok {
		if err := nargs(1, 1); err != nil {
			return nil, true, err
		}
		if err := timeArg(0); err != nil {
			return nil, true, err
		}
		return call(expr.Extract, types.TBigInt.WithNotNull(nn), strLit(unit), args[0]), true, nil
	}
	var fn expr.Fn
	switch name {
	case "CURRENT_WATERMARK":
		return nil, true, errorf(pos, ErrUnsupported, "CURRENT_WATERMARK is not supported: its value depends on when watermarks reach the operator, "+
			"so results would depend on timing and parallelism, and strand's give the same output for the same input; "+
			"late rows are already dropped (and counted) at the source, so a filter such as ts > CURRENT_WATERMARK(ts) is not needed")
	case "IF":
		if err := nargs(3, 3); err != nil {
			return nil, true, err
		}
		if k := args[0].Type().Kind; k != types.Boolean && k != types.Null {
			return nil, true, errorf(argExprs[0].Pos(), ErrType, "IF's condition must be BOOLEAN, got %s", args[0].Type().Plain())
		}
		t, ok := commonType(args[1].Type(), args[2].Type())
		if !ok {
			return nil, true, errorf(pos, ErrType, "IF's values have incompatible types %s and %s", args[1].Type().Plain(), args[2].Type().Plain())
		}
		t = t.Plain().WithNotNull(args[1].Type().NotNull && args[2].Type().NotNull)
		// A CASE, so that only the branch a row takes is evaluated.
		return &expr.Case{Whens: []expr.When{{Cond: coerce(args[0], types.TBoolean), Then: coerce(args[1], t)}}, Else: coerce(args[2], t), T: t}, true, nil
	case "GREATEST", "LEAST":
		if err := nargs(1, 1<<20); err != nil {
			return nil, true, err
		}
		t := args[0].Type()
		for i, a := range args {
			next, ok := commonType(t, a.Type())
			if !ok {
				return nil, true, errorf(argExprs[i].Pos(), ErrType, "%s arguments have incompatible types %s and %s", name, t.Plain(), a.Type().Plain())
			}
			t = next
		}
		if t.Kind == types.Boolean || t.IsInterval() {
			return nil, true, errorf(pos, ErrType, "%s is not defined on %s", name, t.Plain())
		}
		t = t.Plain().WithNotNull(nn)
		for i := range args {
			args[i] = coerce(args[i], t)
		}
		fn = expr.Greatest
		if name == "LEAST" {
			fn = expr.Least
		}
		return call(fn, t, args...), true, nil
	case "REGEXP":
		if err := strs(2, 2); err != nil {
			return nil, true, err
		}
		if err := lit(1, expr.CheckRegexp); err != nil {
			return nil, true, err
		}
		return call(expr.Regexp, types.TBoolean.WithNotNull(nn), args...), true, nil
	case "REGEXP_EXTRACT":
		if err := nargs(2, 3); err != nil {
			return nil, true, err
		}
		for i := range 2 {
			if err := str(i); err != nil {
				return nil, true, err
			}
		}
		if len(args) == 3 {
			if err := integer(2); err != nil {
				return nil, true, err
			}
		}
		if err := lit(1, expr.CheckRegexp); err != nil {
			return nil, true, err
		}
		if p, ok := strLitValue(args[1]); ok && len(args) == 3 {
			if g, ok := args[2].(*expr.Lit); ok && !g.V.IsNull {
				if err := expr.CheckRegexpGroup(p, g.V.Int); err != nil {
					return nil, true, errorf(argExprs[2].Pos(), ErrType, "%v", err)
				}
			}
		}
		return call(expr.RegexpExtract, types.TString, args...), true, nil
	case "REGEXP_REPLACE":
		if err := strs(3, 3); err != nil {
			return nil, true, err
		}
		if err := lit(1, expr.CheckRegexp); err != nil {
			return nil, true, err
		}
		if p, ok := strLitValue(args[1]); ok {
			if err := lit(2, func(t string) error { return expr.CheckReplacement(p, t) }); err != nil {
				return nil, true, err
			}
		}
		return call(expr.RegexpReplace, types.TString, args...), true, nil
	case "SPLIT_INDEX":
		if err := nargs(3, 3); err != nil {
			return nil, true, err
		}
		for i := range 2 {
			if err := str(i); err != nil {
				return nil, true, err
			}
		}
		if err := integer(2); err != nil {
			return nil, true, err
		}
		return call(expr.SplitIndex, types.TString, args...), true, nil
	case "LPAD", "RPAD":
		if err := nargs(3, 3); err != nil {
			return nil, true, err
		}
		if err := str(0); err != nil {
			return nil, true, err
		}
		if err := integer(1); err != nil {
			return nil, true, err
		}
		if err := str(2); err != nil {
			return nil, true, err
		}
		fn = expr.Lpad
		if name == "RPAD" {
			fn = expr.Rpad
		}
		return call(fn, types.TString, args...), true, nil
	case "REPLACE":
		fn = expr.Replace
		if err := strs(3, 3); err != nil {
			return nil, true, err
		}
		return call(fn, strOut, args...), true, nil
	case "REVERSE", "INITCAP", "MD5", "SHA256":
		fn = map[string]expr.Fn{"REVERSE": expr.Reverse, "INITCAP": expr.Initcap, "MD5": expr.Md5, "SHA256": expr.Sha256}[name]
		if err := strs(1, 1); err != nil {
			return nil, true, err
		}
		return call(fn, strOut, args...), true, nil
	case "COUNT_CHAR":
		if err := strs(2, 2); err != nil {
			return nil, true, err
		}
		if s, ok := strLitValue(args[1]); ok && s == "" {
			return nil, true, errorf(argExprs[1].Pos(), ErrType, "COUNT_CHAR's character must not be empty")
		}
		return call(expr.CountChar, types.TBigInt.WithNotNull(args[1].Type().NotNull), args...), true, nil
	case "UUID":
		if err := nargs(0, 0); err != nil {
			return nil, true, err
		}
		return call(expr.UUID, types.TString.WithNotNull(true)), true, nil
	case "JSON_VALUE", "JSON_QUERY":
		if err := strs(2, 2); err != nil {
			return nil, true, err
		}
		if err := lit(1, expr.CheckJSONPath); err != nil {
			return nil, true, err
		}
		fn = expr.JSONValue
		if name == "JSON_QUERY" {
			fn = expr.JSONQuery
		}
		return call(fn, types.TString, args...), true, nil
	case "TO_DATE":
		if err := strs(1, 2); err != nil {
			return nil, true, err
		}
		if len(args) == 1 {
			return &expr.Cast{X: args[0], T: types.TDate, Try: true}, true, nil
		}
		if err := lit(1, expr.CheckParseFormat); err != nil {
			return nil, true, err
		}
		return call(expr.ParseTime, types.TDate, args...), true, nil
	case "UNIX_TIMESTAMP":
		if len(args) == 0 {
			now := call(expr.CurrentTimestamp, types.TTimestampLTZ.WithNotNull(true))
			return &expr.Cast{X: now, T: types.TBigInt.WithNotNull(true)}, true, nil
		}
		if err := strs(1, 2); err != nil {
			return nil, true, err
		}
		if len(args) == 1 {
			args = append(args, strLit("yyyy-MM-dd HH:mm:ss"))
		}
		if err := lit(1, expr.CheckParseFormat); err != nil {
			return nil, true, err
		}
		return call(expr.UnixTime, types.TBigInt.WithNotNull(nn), args...), true, nil
	case "FROM_UNIXTIME":
		if err := nargs(1, 2); err != nil {
			return nil, true, err
		}
		if err := integer(0); err != nil {
			return nil, true, err
		}
		args[0] = coerce(args[0], types.TBigInt.WithNotNull(args[0].Type().NotNull))
		if len(args) == 1 {
			args = append(args, strLit("yyyy-MM-dd HH:mm:ss"))
		} else if err := str(1); err != nil {
			return nil, true, err
		}
		if err := lit(1, expr.CheckDateFormat); err != nil {
			return nil, true, err
		}
		return call(expr.FromUnixTime, types.TString.WithNotNull(allNotNull(args...)), args...), true, nil
	case "TO_TIMESTAMP_LTZ":
		if err := nargs(2, 2); err != nil {
			return nil, true, err
		}
		t := args[0].Type()
		switch {
		case t.IsIntegral(), t.Kind == types.Double, t.Kind == types.Null:
		case t.IsNumeric():
			args[0] = coerce(args[0], types.TDouble.WithNotNull(t.NotNull))
		default:
			return nil, true, errorf(argExprs[0].Pos(), ErrType, "TO_TIMESTAMP_LTZ needs a number, got %s", t.Plain())
		}
		if l, ok := args[1].(*expr.Lit); !ok || l.V.IsNull || !l.V.Type.IsIntegral() || (l.V.Int != 0 && l.V.Int != 3) {
			return nil, true, errorf(argExprs[1].Pos(), ErrType, "TO_TIMESTAMP_LTZ's precision must be the literal 0 (seconds) or 3 (milliseconds)")
		}
		return call(expr.EpochToTime, types.TTimestampLTZ.WithNotNull(args[0].Type().NotNull && t.Kind != types.Double), args...), true, nil
	}
	return nil, false, nil
}

// castHint names the function for a cast Flink refuses between numbers and
// timestamps, which have no zone to count an epoch from.
func castHint(from, to types.Type) string {
	switch {
	case from.IsNumeric() && to.Kind == types.Timestamp:
		return "use TO_TIMESTAMP_LTZ(n, 0) for epoch seconds or TO_TIMESTAMP_LTZ(n, 3) for milliseconds"
	case from.Kind == types.Timestamp && to.IsNumeric():
		return "use UNIX_TIMESTAMP(CAST(ts AS STRING)) for epoch seconds, or cast a TIMESTAMP_LTZ"
	}
	return ""
}
