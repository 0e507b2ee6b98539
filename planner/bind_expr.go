package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// exprCtx is what binding an expression sees.
type exprCtx struct {
	scope *scope
	// hook, when set, is asked first for every node: aggregation binds
	// group keys and aggregate calls to the aggregate's output this way.
	hook func(e parser.Expr) (expr.Expr, bool, error)
	// clause names the clause for "aggregate not allowed in ..." errors.
	clause string
}

// bindExpr binds e in c, checking types and inserting casts.
func bindExpr(c *exprCtx, e parser.Expr) (expr.Expr, error) {
	if c.hook != nil {
		if out, ok, err := c.hook(e); ok || err != nil {
			return out, err
		}
	}
	switch e := e.(type) {
	case *parser.Ident:
		i, err := c.scope.resolve(e)
		if err != nil {
			return resolveNested(c, e, err)
		}
		col := c.scope.cols[i]
		return &expr.Col{Index: i, Name: col.name, T: col.typ}, nil
	case *parser.Subscript, *parser.Dot, *parser.Constructor:
		out, _, err := bindNested(c, e)
		return out, err
	case *parser.NumberLit:
		return numberLit(e)
	case *parser.StringLit:
		return &expr.Lit{V: types.StringValue(e.Value)}, nil
	case *parser.BoolLit:
		return &expr.Lit{V: types.BoolValue(e.Value)}, nil
	case *parser.NullLit:
		return &expr.Lit{V: types.NullOf(types.TNull)}, nil
	case *parser.TypedLit:
		return typedLit(e)
	case *parser.IntervalLit:
		return intervalLit(e)
	case *parser.Unary:
		return bindUnary(c, e)
	case *parser.Binary:
		return bindBinary(c, e)
	case *parser.Call:
		return bindCall(c, e)
	case *parser.Cast:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, err
		}
		t, err := typeOf(e.Type)
		if err != nil {
			return nil, err
		}
		if !castable(x.Type(), t) {
			if hint := castHint(x.Type(), t); hint != "" {
				return nil, errorf(e.Start, ErrType, "cannot cast %s to %s: %s", x.Type().Plain(), t, hint)
			}
			return nil, errorf(e.Start, ErrType, "cannot cast %s to %s", x.Type().Plain(), t)
		}
		t.NotNull = x.Type().NotNull && !e.Try
		if lit, ok := x.(*expr.Lit); ok && lit.V.IsNull {
			return &expr.Lit{V: types.NullOf(t)}, nil
		}
		if types.Same(x.Type(), t) && t.Kind != types.String {
			return x, nil
		}
		return &expr.Cast{X: x, T: t, Try: e.Try}, nil
	case *parser.Case:
		out, err := bindCase(c, e)
		return readsNested(e, out, err)
	case *parser.IsNull:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, err
		}
		fn := expr.IsNull
		if e.Not {
			fn = expr.IsNotNull
		}
		return call(fn, types.TBoolean.WithNotNull(true), x), nil
	case *parser.IsBool:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, err
		}
		if err := want(e.Expr, x, types.Boolean); err != nil {
			return nil, err
		}
		fn := map[[2]bool]expr.Fn{{false, true}: expr.IsTrue, {true, true}: expr.IsNotTrue, {false, false}: expr.IsFalse, {true, false}: expr.IsNotFalse}[[2]bool{e.Not, e.Value}]
		return call(fn, types.TBoolean.WithNotNull(true), x), nil
	case *parser.Between:
		return bindBetween(c, e)
	case *parser.InList:
		return bindIn(c, e)
	case *parser.Like:
		return bindLike(c, e)
	case *parser.Extract:
		x, err := bindExpr(c, e.Expr)
		if err != nil {
			return nil, err
		}
		if x.Type().Kind != types.Date && !x.Type().IsTimestamp() {
			return nil, errorf(e.Expr.Pos(), ErrType, "EXTRACT needs a DATE or TIMESTAMP, got %s", x.Type().Plain())
		}
		switch e.Unit {
		case "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "DOW", "DOY", "EPOCH":
		default:
			return nil, errorf(e.Start, ErrUnsupported, "EXTRACT does not support unit %s", e.Unit)
		}
		return call(expr.Extract, types.TBigInt.WithNotNull(x.Type().NotNull), strLit(e.Unit), x), nil
	case *parser.FloorCeil:
		return bindFloorCeil(c, e)
	case *parser.Substring:
		args := []parser.Expr{e.Expr, e.From}
		if e.For != nil {
			args = append(args, e.For)
		}
		return bindFunc(c, e.Start, "SUBSTRING", args)
	case *parser.Trim:
		return bindTrim(c, e)
	case *parser.Position:
		return bindFunc(c, e.Start, "POSITION", []parser.Expr{e.Substr, e.Expr})
	case *parser.Star:
		return nil, errorf(e.Start, ErrUnsupported, "'*' is only allowed in the select list and in COUNT(*)")
	case *parser.GroupingElement:
		return nil, errorf(e.Start, ErrUnsupported, "GROUPING SETS, ROLLUP, CUBE and parenthesised lists of expressions may only stand in GROUP BY")
	case *parser.InQuery, *parser.Exists, *parser.ScalarQuery:
		return nil, errorf(e.Pos(), ErrUnsupported, "subqueries in expressions are not supported yet")
	}
	return nil, errorf(e.Pos(), ErrUnsupported, "expression %s is not supported", e)
}

func call(fn expr.Fn, t types.Type, args ...expr.Expr) *expr.Call {
	return &expr.Call{Fn: fn, Args: args, T: t}
}

func strLit(s string) *expr.Lit { return &expr.Lit{V: types.StringValue(s)} }

// allNotNull reports whether no argument can be NULL.
func allNotNull(args ...expr.Expr) bool {
	for _, a := range args {
		if !a.Type().NotNull {
			return false
		}
	}
	return true
}

func want(at parser.Expr, x expr.Expr, k types.Kind) error {
	if x.Type().Kind == k || x.Type().Kind == types.Null {
		return nil
	}
	return errorf(at.Pos(), ErrType, "expected %s, got %s in %s", k, x.Type().Plain(), at)
}

func numberLit(e *parser.NumberLit) (expr.Expr, error) {
	txt := e.Text
	if strings.ContainsAny(txt, "eE") {
		f, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			return nil, errorf(e.Start, ErrType, "invalid number %s", txt)
		}
		return &expr.Lit{V: types.FloatValue(types.TDouble, f)}, nil
	}
	if !strings.Contains(txt, ".") {
		if v, err := strconv.ParseInt(txt, 10, 64); err == nil {
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				return &expr.Lit{V: types.IntValue(types.TInt, v)}, nil
			}
			return &expr.Lit{V: types.IntValue(types.TBigInt, v)}, nil
		}
	}
	intPart, frac, _ := strings.Cut(txt, ".")
	intPart = strings.TrimLeft(intPart, "0")
	s := len(frac)
	p := max(len(intPart)+s, 1)
	if p > 38 {
		return nil, errorf(e.Start, ErrType, "number %s has more than 38 digits", txt)
	}
	n, err := types.ParseDecimal(txt, p, s)
	if err != nil {
		return nil, errorf(e.Start, ErrType, "invalid number %s", txt)
	}
	return &expr.Lit{V: types.DecimalValue(p, s, n)}, nil
}

func typedLit(e *parser.TypedLit) (expr.Expr, error) {
	switch e.Type {
	case "DATE":
		d, ok := types.ParseDate(e.Value)
		if !ok {
			return nil, errorf(e.Start, ErrType, "invalid DATE literal '%s' (want yyyy-MM-dd)", e.Value)
		}
		return &expr.Lit{V: types.IntValue(types.TDate, int64(d))}, nil
	case "TIMESTAMP":
		ts, ok := types.ParseTimestamp(e.Value)
		if !ok {
			return nil, errorf(e.Start, ErrType, "invalid TIMESTAMP literal '%s' (want yyyy-MM-dd HH:mm:ss[.SSS])", e.Value)
		}
		return &expr.Lit{V: types.IntValue(types.TTimestamp, ts)}, nil
	}
	return nil, errorf(e.Start, ErrUnsupported, "%s literals are not supported", e.Type)
}

// intervalLit converts INTERVAL 'v' unit [TO unit] to milliseconds or
// months.
func intervalLit(e *parser.IntervalLit) (expr.Expr, error) {
	ms, months, err := intervalValue(e)
	if err != nil {
		return nil, err
	}
	if e.Unit == "YEAR" || e.Unit == "MONTH" {
		return &expr.Lit{V: types.IntValue(types.TIntervalYM, months)}, nil
	}
	return &expr.Lit{V: types.IntValue(types.TIntervalDT, ms)}, nil
}

func intervalValue(e *parser.IntervalLit) (ms, months int64, err error) {
	bad := func() error {
		return errorf(e.Start, ErrType, "invalid interval literal '%s' for %s", e.Value, intervalUnits(e))
	}
	v := strings.TrimSpace(e.Value)
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimLeft(v, "+-")
	sign := int64(1)
	if neg {
		sign = -1
	}
	switch e.Unit + "/" + e.ToUnit {
	case "YEAR/", "MONTH/":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, bad()
		}
		if e.Unit == "YEAR" {
			n *= 12
		}
		return 0, sign * n, nil
	case "YEAR/MONTH":
		y, m, ok := strings.Cut(v, "-")
		yn, err1 := strconv.ParseInt(y, 10, 64)
		mn, err2 := strconv.ParseInt(m, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return 0, 0, bad()
		}
		return 0, sign * (yn*12 + mn), nil
	}
	// Day-time: split the value into fields by the separators of
	// 'D HH:MM:SS.fff', starting at the leading unit.
	units := []string{"DAY", "HOUR", "MINUTE", "SECOND"}
	unitMs := []int64{types.MsDay, types.MsHour, types.MsMinute, types.MsSecond}
	first := indexOf(units, e.Unit)
	last := first
	if e.ToUnit != "" {
		last = indexOf(units, e.ToUnit)
	}
	if first < 0 || last < first {
		return 0, 0, bad()
	}
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ':' })
	if len(fields) != last-first+1 {
		return 0, 0, bad()
	}
	for i, f := range fields {
		u := first + i
		if u == 3 || (i == len(fields)-1 && strings.Contains(f, ".")) {
			secs, err := strconv.ParseFloat(f, 64)
			if err != nil || u != 3 {
				return 0, 0, bad()
			}
			ms += int64(math.Round(secs * 1000))
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, 0, bad()
		}
		ms += n * unitMs[u]
	}
	return sign * ms, 0, nil
}

func intervalUnits(e *parser.IntervalLit) string {
	if e.ToUnit != "" {
		return e.Unit + " TO " + e.ToUnit
	}
	return e.Unit
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func bindUnary(c *exprCtx, e *parser.Unary) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "NOT":
		if err := want(e.Expr, x, types.Boolean); err != nil {
			return nil, err
		}
		return call(expr.Not, types.TBoolean.WithNotNull(x.Type().NotNull), x), nil
	case "-":
		if !x.Type().IsNumeric() && !x.Type().IsInterval() {
			return nil, errorf(e.Start, ErrType, "cannot negate %s", x.Type().Plain())
		}
		if l, ok := x.(*expr.Lit); ok && !l.V.IsNull {
			v := l.V
			v.Int, v.Float, v.Dec = -v.Int, -v.Float, v.Dec.Negate()
			return &expr.Lit{V: v}, nil
		}
		return call(expr.Neg, x.Type().Plain(), x), nil
	case "+":
		return x, nil
	}
	return nil, errorf(e.Start, ErrUnsupported, "operator %s is not supported", e.Op)
}

func bindBinary(c *exprCtx, e *parser.Binary) (expr.Expr, error) {
	l, err := bindExpr(c, e.Left)
	if err != nil {
		return nil, err
	}
	r, err := bindExpr(c, e.Right)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "AND", "OR":
		if err := want(e.Left, l, types.Boolean); err != nil {
			return nil, err
		}
		if err := want(e.Right, r, types.Boolean); err != nil {
			return nil, err
		}
		fn := expr.And
		if e.Op == "OR" {
			fn = expr.Or
		}
		return call(fn, types.TBoolean.WithNotNull(allNotNull(l, r)), l, r), nil
	case "=", "<>", "<", "<=", ">", ">=":
		return compare(e.OpPos, e.Op, l, r)
	case "||":
		return concat(e.OpPos, []expr.Expr{l, r}, []parser.Expr{e.Left, e.Right})
	case "+", "-", "*", "/", "%":
		return arith(e.OpPos, e.Op, l, r)
	}
	return nil, errorf(e.OpPos, ErrUnsupported, "operator %s is not supported", e.Op)
}

var cmpFns = map[string]expr.Fn{"=": expr.Eq, "<>": expr.Ne, "<": expr.Lt, "<=": expr.Le, ">": expr.Gt, ">=": expr.Ge}

func compare(pos parser.Pos, op string, l, r expr.Expr) (expr.Expr, error) {
	t, ok := commonType(l.Type(), r.Type())
	if !ok || !comparable(t) {
		return nil, errorf(pos, ErrType, "cannot compare %s with %s", l.Type().Plain(), r.Type().Plain())
	}
	l, r = coerce(l, t), coerce(r, t)
	return call(cmpFns[op], types.TBoolean.WithNotNull(allNotNull(l, r)), l, r), nil
}

func comparable(t types.Type) bool {
	switch t.Kind {
	case types.Null, types.Boolean, types.Int, types.BigInt, types.Float, types.Double, types.Decimal,
		types.String, types.Date, types.Timestamp, types.TimestampLTZ, types.IntervalDayTime, types.IntervalYearMonth:
		return true
	}
	return false
}

func concat(pos parser.Pos, args []expr.Expr, at []parser.Expr) (expr.Expr, error) {
	for i, a := range args {
		if k := a.Type().Kind; k != types.String && k != types.Null {
			return nil, errorf(at[i].Pos(), ErrType, "CONCAT needs STRING arguments, got %s", a.Type().Plain())
		}
		args[i] = coerce(a, types.TString)
	}
	return call(expr.Concat, types.TString.WithNotNull(allNotNull(args...)), args...), nil
}

// arith types + - * / % as Flink does: integers stay integers (/ truncates),
// DECIMAL precision and scale grow as SQL says, FLOAT/DOUBLE win, and a
// timestamp or date plus or minus an interval stays a timestamp or date.
func arith(pos parser.Pos, op string, l, r expr.Expr) (expr.Expr, error) {
	lt, rt := l.Type(), r.Type()
	nn := allNotNull(l, r)
	if (lt.IsTimestamp() || lt.Kind == types.Date) && rt.IsInterval() && (op == "+" || op == "-") {
		fn := expr.AddInterval
		if op == "-" {
			fn = expr.SubInterval
		}
		return call(fn, lt.Plain().WithNotNull(nn), l, r), nil
	}
	if lt.IsInterval() && (rt.IsTimestamp() || rt.Kind == types.Date) && op == "+" {
		return call(expr.AddInterval, rt.Plain().WithNotNull(nn), r, l), nil
	}
	if op == "*" && (lt.IsInterval() && rt.IsIntegral() || lt.IsIntegral() && rt.IsInterval()) {
		if rt.IsInterval() {
			l, r, lt = r, l, rt
		}
		return call(expr.Mul, lt.Plain().WithNotNull(nn), l, r), nil
	}
	if lt.Kind == types.Null {
		lt = rt
	}
	if rt.Kind == types.Null {
		rt = lt
	}
	if lt.IsInterval() && lt.Kind == rt.Kind && (op == "+" || op == "-") {
		fn := map[string]expr.Fn{"+": expr.Add, "-": expr.Sub}[op]
		return call(fn, lt.Plain().WithNotNull(nn), coerce(l, lt), coerce(r, lt)), nil
	}
	if !lt.IsNumeric() || !rt.IsNumeric() {
		return nil, errorf(pos, ErrType, "cannot apply %s to %s and %s", op, l.Type().Plain(), r.Type().Plain())
	}
	fn := map[string]expr.Fn{"+": expr.Add, "-": expr.Sub, "*": expr.Mul, "/": expr.Div, "%": expr.Mod}[op]
	if lt.Kind == types.Decimal || rt.Kind == types.Decimal {
		if lt.Kind != types.Float && lt.Kind != types.Double && rt.Kind != types.Float && rt.Kind != types.Double {
			ld, rd := asDecimal(lt), asDecimal(rt)
			out := decimalResult(op, ld, rd).WithNotNull(nn)
			return call(fn, out, coerce(l, ld), coerce(r, rd)), nil
		}
	}
	t, _ := commonType(lt, rt)
	t = t.Plain().WithNotNull(nn)
	return call(fn, t, coerce(l, t), coerce(r, t)), nil
}

// asDecimal is the decimal type that holds every value of t exactly.
func asDecimal(t types.Type) types.Type {
	switch t.Kind {
	case types.Int:
		return types.DecimalOf(10, 0)
	case types.BigInt:
		return types.DecimalOf(19, 0)
	}
	return types.DecimalOf(t.Precision, t.Scale)
}

// decimalResult follows Flink's (Calcite's) rules, capping precision at 38.
func decimalResult(op string, l, r types.Type) types.Type {
	p1, s1, p2, s2 := l.Precision, l.Scale, r.Precision, r.Scale
	var p, s int
	switch op {
	case "+", "-":
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s + 1
	case "*":
		p, s = p1+p2, s1+s2
	case "/":
		s = max(6, s1+p2+1)
		p = p1 - s1 + s2 + s
	case "%":
		s = max(s1, s2)
		p = min(p1-s1, p2-s2) + s
	}
	if p > 38 {
		s = max(s-(p-38), min(s, 6))
		p = 38
	}
	return types.DecimalOf(p, s)
}

// numericRank orders numeric kinds by how much they hold.
func numericRank(k types.Kind) int {
	return map[types.Kind]int{types.Int: 1, types.BigInt: 2, types.Decimal: 3, types.Float: 4, types.Double: 5}[k]
}

// commonType is the type both a and b convert to implicitly.
func commonType(a, b types.Type) (types.Type, bool) {
	nn := a.NotNull && b.NotNull
	switch {
	case a.Kind == types.Null:
		return b.Plain().Nullable(), true
	case b.Kind == types.Null:
		return a.Plain().Nullable(), true
	case types.Same(a, b):
		if a.Kind == types.String {
			return types.TString.WithNotNull(nn), true
		}
		return a.Plain().WithNotNull(nn), true
	case a.IsNumeric() && b.IsNumeric():
		if a.Kind == types.Decimal || b.Kind == types.Decimal {
			if numericRank(a.Kind) <= 3 && numericRank(b.Kind) <= 3 {
				da, db := asDecimal(a), asDecimal(b)
				s := max(da.Scale, db.Scale)
				p := min(max(da.Precision-da.Scale, db.Precision-db.Scale)+s, 38)
				return types.DecimalOf(p, s).WithNotNull(nn), true
			}
		}
		if numericRank(a.Kind) >= numericRank(b.Kind) {
			return a.Plain().WithNotNull(nn), true
		}
		return b.Plain().WithNotNull(nn), true
	case a.IsTimestamp() && b.IsTimestamp():
		return types.TTimestamp.WithNotNull(nn), true
	case a.IsTimestamp() && b.Kind == types.Date, a.Kind == types.Date && b.IsTimestamp():
		return types.TTimestamp.WithNotNull(nn), true
	case a.Kind == types.String && (b.IsTimestamp() || b.Kind == types.Date || b.Kind == types.Boolean):
		return b.Plain().WithNotNull(nn), true
	case b.Kind == types.String && (a.IsTimestamp() || a.Kind == types.Date || a.Kind == types.Boolean):
		return a.Plain().WithNotNull(nn), true
	}
	return types.Type{}, false
}

// coerce converts e to t, folding casts of literals.
func coerce(e expr.Expr, t types.Type) expr.Expr {
	et := e.Type()
	if types.Same(et, t) {
		return e
	}
	if l, ok := e.(*expr.Lit); ok {
		if l.V.IsNull {
			return &expr.Lit{V: types.NullOf(t)}
		}
		if v, ok := foldCast(l.V, t); ok {
			return &expr.Lit{V: v}
		}
	}
	return &expr.Cast{X: e, T: t.Plain().WithNotNull(et.NotNull)}
}

// foldCast converts a literal where the conversion is exact.
func foldCast(v types.Value, t types.Type) (types.Value, bool) {
	src := v.Type
	switch {
	case src.IsIntegral() && t.IsIntegral():
		if t.Kind == types.Int && (v.Int < math.MinInt32 || v.Int > math.MaxInt32) {
			return v, false
		}
		return types.IntValue(t.Plain(), v.Int), true
	case src.IsIntegral() && (t.Kind == types.Double || t.Kind == types.Float):
		return types.FloatValue(t.Plain(), float64(v.Int)), true
	case src.Kind == types.Decimal && (t.Kind == types.Double || t.Kind == types.Float):
		return types.FloatValue(t.Plain(), v.Dec.ToFloat64(int32(src.Scale))), true
	case src.Kind == types.String && t.IsTimestamp():
		ts, ok := types.ParseTimestamp(v.Str)
		return types.IntValue(t.Plain(), ts), ok
	case src.Kind == types.String && t.Kind == types.Date:
		d, ok := types.ParseDate(v.Str)
		return types.IntValue(t.Plain(), int64(d)), ok
	}
	return v, false
}

// castable reports whether CAST(from AS to) is allowed.
func castable(from, to types.Type) bool {
	if from.Kind == types.Null || types.Same(from, to) {
		return true
	}
	if from.IsNested() || to.IsNested() {
		return false // strand casts a ROW, ARRAY or MAP only to its own type
	}
	f, t := from.Kind, to.Kind
	switch {
	case t == types.String || f == types.String:
		return !from.IsInterval() || t == types.String
	case from.IsNumeric() && to.IsNumeric():
		return true
	case from.IsNumeric() && t == types.Boolean, f == types.Boolean && to.IsNumeric():
		return true
	case (from.IsTimestamp() || f == types.Date) && (to.IsTimestamp() || t == types.Date):
		return true
	case from.IsIntegral() && t == types.TimestampLTZ, f == types.TimestampLTZ && to.IsIntegral():
		return true // epoch seconds, as Flink; TIMESTAMP has no zone, so no epoch
	}
	return false
}

func bindCase(c *exprCtx, e *parser.Case) (expr.Expr, error) {
	var operand expr.Expr
	if e.Operand != nil {
		var err error
		if operand, err = bindExpr(c, e.Operand); err != nil {
			return nil, err
		}
	}
	var conds, thens []expr.Expr
	for _, w := range e.Whens {
		cond, err := bindExpr(c, w.Cond)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			if cond, err = compare(w.Cond.Pos(), "=", operand, cond); err != nil {
				return nil, err
			}
		} else if err := want(w.Cond, cond, types.Boolean); err != nil {
			return nil, err
		}
		then, err := bindExpr(c, w.Result)
		if err != nil {
			return nil, err
		}
		conds, thens = append(conds, cond), append(thens, then)
	}
	var els expr.Expr = &expr.Lit{V: types.NullOf(types.TNull)}
	if e.Else != nil {
		var err error
		if els, err = bindExpr(c, e.Else); err != nil {
			return nil, err
		}
	}
	t := els.Type()
	for i, th := range thens {
		var ok bool
		if t, ok = commonType(t, th.Type()); !ok {
			return nil, errorf(e.Whens[i].Result.Pos(), ErrType, "CASE branches have incompatible types %s and %s", t.Plain(), th.Type().Plain())
		}
	}
	if t.Kind == types.Null {
		return nil, errorf(e.Start, ErrType, "CASE needs at least one branch that is not NULL")
	}
	out := &expr.Case{Else: coerce(els, t), T: t.Plain().WithNotNull(allNotNull(append(thens, els)...))}
	for i := range conds {
		out.Whens = append(out.Whens, expr.When{Cond: conds[i], Then: coerce(thens[i], t)})
	}
	return out, nil
}

func bindBetween(c *exprCtx, e *parser.Between) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	lo, err := bindExpr(c, e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := bindExpr(c, e.Hi)
	if err != nil {
		return nil, err
	}
	ge, err := compare(e.Lo.Pos(), ">=", x, lo)
	if err != nil {
		return nil, err
	}
	le, err := compare(e.Hi.Pos(), "<=", x, hi)
	if err != nil {
		return nil, err
	}
	bt := types.TBoolean.WithNotNull(allNotNull(x, lo, hi))
	var out expr.Expr = call(expr.And, bt, ge, le)
	if e.Symmetric {
		ge2, _ := compare(e.Hi.Pos(), ">=", x, hi)
		le2, _ := compare(e.Lo.Pos(), "<=", x, lo)
		out = call(expr.Or, bt, out, call(expr.And, bt, ge2, le2))
	}
	if e.Not {
		out = call(expr.Not, bt, out)
	}
	return out, nil
}

func bindIn(c *exprCtx, e *parser.InList) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	items := make([]expr.Expr, len(e.List))
	t := x.Type()
	for i, it := range e.List {
		if items[i], err = bindExpr(c, it); err != nil {
			return nil, err
		}
		var ok bool
		if t, ok = commonType(t, items[i].Type()); !ok {
			return nil, errorf(it.Pos(), ErrType, "IN list item of type %s does not match %s", items[i].Type().Plain(), x.Type().Plain())
		}
	}
	args := []expr.Expr{coerce(x, t)}
	for _, it := range items {
		args = append(args, coerce(it, t))
	}
	bt := types.TBoolean.WithNotNull(allNotNull(args...))
	var out expr.Expr = call(expr.In, bt, args...)
	if e.Not {
		out = call(expr.Not, bt, out)
	}
	return out, nil
}

func bindLike(c *exprCtx, e *parser.Like) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	p, err := bindExpr(c, e.Pattern)
	if err != nil {
		return nil, err
	}
	if err := want(e.Expr, x, types.String); err != nil {
		return nil, err
	}
	if err := want(e.Pattern, p, types.String); err != nil {
		return nil, err
	}
	args := []expr.Expr{coerce(x, types.TString), coerce(p, types.TString)}
	var escape rune
	if e.Escape != nil {
		esc, err := bindExpr(c, e.Escape)
		if err != nil {
			return nil, err
		}
		if l, ok := esc.(*expr.Lit); !ok || l.V.Type.Kind != types.String || len([]rune(l.V.Str)) != 1 {
			return nil, errorf(e.Escape.Pos(), ErrType, "ESCAPE must be a one-character string literal")
		}
		escape = []rune(esc.(*expr.Lit).V.Str)[0]
		args = append(args, esc)
	}
	if pat, ok := strLitValue(p); ok {
		if err := expr.CheckLikePattern(pat, escape); err != nil {
			return nil, errorf(e.Pattern.Pos(), ErrType, "%v", err)
		}
	}
	bt := types.TBoolean.WithNotNull(allNotNull(args...))
	var out expr.Expr = call(expr.Like, bt, args...)
	if e.Not {
		out = call(expr.Not, bt, out)
	}
	return out, nil
}

func bindFloorCeil(c *exprCtx, e *parser.FloorCeil) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	name := "FLOOR"
	if e.Ceil {
		name = "CEIL"
	}
	if e.Unit == "" {
		return numericUnary(e.Start, name, x)
	}
	if !x.Type().IsTimestamp() && x.Type().Kind != types.Date {
		return nil, errorf(e.Expr.Pos(), ErrType, "%s(... TO %s) needs a TIMESTAMP, got %s", name, e.Unit, x.Type().Plain())
	}
	switch e.Unit {
	case "MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR":
	default:
		return nil, errorf(e.Start, ErrUnsupported, "%s does not support unit %s", name, e.Unit)
	}
	fn := expr.FloorTime
	if e.Ceil {
		fn = expr.CeilTime
	}
	return call(fn, x.Type().Plain(), x, strLit(e.Unit)), nil
}

func numericUnary(pos parser.Pos, name string, x expr.Expr) (expr.Expr, error) {
	t := x.Type()
	if !t.IsNumeric() {
		return nil, errorf(pos, ErrType, "%s needs a number, got %s", name, t.Plain())
	}
	fn := map[string]expr.Fn{"FLOOR": expr.Floor, "CEIL": expr.Ceil, "ABS": expr.Abs}[name]
	out := t.Plain().WithNotNull(t.NotNull)
	if t.Kind == types.Decimal && name != "ABS" {
		out = types.DecimalOf(max(t.Precision-t.Scale, 1), 0).WithNotNull(t.NotNull)
	}
	return call(fn, out, x), nil
}

func bindTrim(c *exprCtx, e *parser.Trim) (expr.Expr, error) {
	x, err := bindExpr(c, e.Expr)
	if err != nil {
		return nil, err
	}
	if err := want(e.Expr, x, types.String); err != nil {
		return nil, err
	}
	var chars expr.Expr = strLit(" ")
	if e.Chars != nil {
		if chars, err = bindExpr(c, e.Chars); err != nil {
			return nil, err
		}
		if err := want(e.Chars, chars, types.String); err != nil {
			return nil, err
		}
	}
	side := e.Side
	if side == "" {
		side = "BOTH"
	}
	return call(expr.Trim, types.TString.WithNotNull(allNotNull(x, chars)), strLit(side), coerce(chars, types.TString), coerce(x, types.TString)), nil
}

// strLitValue returns the value of e if it is a non-NULL string literal.
func strLitValue(e expr.Expr) (string, bool) {
	l, ok := e.(*expr.Lit)
	if !ok || l.V.IsNull || l.V.Type.Kind != types.String {
		return "", false
	}
	return l.V.Str, true
}
