package parser

import (
	"strconv"
)

// reserved words cannot be bare identifiers. The set is much smaller than
// Flink's (Calcite reserves hundreds of words): a word is reserved only where
// accepting it as a name would make the grammar ambiguous. Other keywords
// (SECOND, TABLES, WATERMARK, ...) are recognised by context.
var reserved = setOf(
	"ALL", "AND", "AS", "ASC", "BETWEEN", "BOTH", "BY", "CASE", "CAST",
	"CREATE", "CROSS", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP",
	"DATE", "DESC", "DISTINCT", "DROP", "ELSE", "END", "ESCAPE", "EXCEPT",
	"EXISTS", "FALSE", "FILTER", "FOR", "FROM", "FULL", "GROUP", "HAVING", "IN",
	"INNER", "INSERT", "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "LATERAL",
	"LEADING", "LEFT", "LIKE", "LIMIT", "LOCALTIME", "LOCALTIMESTAMP",
	"NATURAL", "NOT", "NULL", "ON", "OR", "ORDER", "OUTER", "OVER", "RIGHT",
	"SELECT", "TABLE", "THEN", "TIME", "TIMESTAMP", "TRAILING", "TRUE", "UNION",
	"UNNEST", "USING", "VALUES", "WHEN", "WHERE", "WINDOW", "WITH",
)

// niladic functions are called without parentheses.
var niladic = setOf("CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP")

// specialCalls have their own syntax when followed by "(" (ROLLUP and CUBE
// in GROUP BY). A plain call to one of these names must be back-quoted to
// stay a plain call.
var specialCalls = setOf("CAST", "TRY_CAST", "EXTRACT", "SUBSTRING", "TRIM", "POSITION", "EXISTS", "DESCRIPTOR", "ROLLUP", "CUBE")

var intervalUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "MONTH": "MONTH", "MONTHS": "MONTH",
	"DAY": "DAY", "DAYS": "DAY", "HOUR": "HOUR", "HOURS": "HOUR",
	"MINUTE": "MINUTE", "MINUTES": "MINUTE", "SECOND": "SECOND", "SECONDS": "SECOND",
}

// intervalTo lists the valid "unit TO unit" qualifiers.
var intervalTo = setOf("YEAR MONTH", "DAY HOUR", "DAY MINUTE", "DAY SECOND",
	"HOUR MINUTE", "HOUR SECOND", "MINUTE SECOND")

// timeUnits are the units of EXTRACT, FLOOR and CEIL.
var timeUnits = setOf("MILLENNIUM", "CENTURY", "DECADE", "YEAR", "ISOYEAR", "QUARTER",
	"MONTH", "WEEK", "DAY", "DOY", "DOW", "ISODOW", "HOUR", "MINUTE", "SECOND",
	"MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// Binding powers, loosest first. They follow Calcite, which Flink uses:
// IS binds looser than comparison, which binds looser than BETWEEN, IN and
// LIKE. || binds looser than + and -, as in PostgreSQL.
const (
	precOr = iota + 1
	precAnd
	precNot
	precIs
	precCmp
	precLike // BETWEEN, IN, LIKE
	precConcat
	precAdd
	precMul
	precUnary
	precPrimary
)

func binaryOp(t token) (string, int) {
	switch t.kind {
	case tkWord:
		switch upper(t.text) {
		case "OR":
			return "OR", precOr
		case "AND":
			return "AND", precAnd
		}
	case tkOp:
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			return t.text, precCmp
		case "!=":
			return "<>", precCmp
		case "||":
			return "||", precConcat
		case "+", "-":
			return t.text, precAdd
		case "*", "/", "%":
			return t.text, precMul
		}
	}
	return "", 0
}

// expr parses an expression whose operators bind at least as tightly as min.
func (p *parser) expr(min int) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.prefix()
	if err != nil {
		return nil, err
	}
	// Each loop turn deepens the tree by one level on the left. A chain of
	// binary operators (a = 1 OR a = 2 OR ...) is flat SQL, generated
	// queries have thousands of terms, and the passes over the tree follow
	// its left spine without recursing per term where that would copy or
	// re-walk it; only its length is bounded. IS, BETWEEN, IN and LIKE
	// turns count as nesting.
	n, terms := 0, 0
	for {
		t := p.peek()
		if op, prec := binaryOp(t); prec > 0 {
			if prec < min {
				return left, nil
			}
			if terms++; terms > maxTerms {
				return nil, errorf(t.pos, "more than %d terms in one expression", maxTerms)
			}
			p.next()
			right, err := p.expr(prec + 1)
			if err != nil {
				return nil, err
			}
			left = &Binary{Start: left.Pos(), OpPos: t.pos, Op: op, Left: left, Right: right}
			continue
		}
		if n++; p.depth+n > maxDepth {
			return nil, errorf(t.pos, "nesting deeper than %d levels", maxDepth)
		}
		if isWord(t, "IS") {
			if precIs < min {
				return left, nil
			}
			if left, err = p.is(left); err != nil {
				return nil, err
			}
			continue
		}
		not := isWord(t, "NOT")
		kw := t
		if not {
			kw = p.peekAt(1)
		}
		if !isWord(kw, "BETWEEN") && !isWord(kw, "IN") && !isWord(kw, "LIKE") || precLike < min {
			return left, nil
		}
		if not {
			p.next()
		}
		p.next()
		switch upper(kw.text) {
		case "BETWEEN":
			left, err = p.between(left, not)
		case "IN":
			left, err = p.in(left, not)
		default:
			left, err = p.like(left, not)
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *parser) is(left Expr) (Expr, error) {
	opPos := p.next().pos
	not := p.acceptKw("NOT")
	switch {
	case p.acceptKw("NULL"), p.acceptKw("UNKNOWN"):
		return &IsNull{Start: left.Pos(), Expr: left, Not: not}, nil
	case p.acceptKw("TRUE"):
		return &IsBool{Start: left.Pos(), Expr: left, Not: not, Value: true}, nil
	case p.acceptKw("FALSE"):
		return &IsBool{Start: left.Pos(), Expr: left, Not: not, Value: false}, nil
	case p.acceptKw("DISTINCT"):
		if _, err := p.expectKw("FROM"); err != nil {
			return nil, err
		}
		right, err := p.expr(precCmp)
		if err != nil {
			return nil, err
		}
		op := "IS DISTINCT FROM"
		if not {
			op = "IS NOT DISTINCT FROM"
		}
		return &Binary{Start: left.Pos(), OpPos: opPos, Op: op, Left: left, Right: right}, nil
	}
	return nil, p.unexpected()
}

func (p *parser) between(left Expr, not bool) (Expr, error) {
	b := &Between{Start: left.Pos(), Expr: left, Not: not}
	if p.acceptKw("SYMMETRIC") {
		b.Symmetric = true
	} else {
		p.acceptKw("ASYMMETRIC")
	}
	var err error
	if b.Lo, err = p.expr(precConcat); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("AND"); err != nil {
		return nil, err
	}
	if b.Hi, err = p.expr(precConcat); err != nil {
		return nil, err
	}
	return b, nil
}

func (p *parser) in(left Expr, not bool) (Expr, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var e Expr
	if p.isKw("SELECT") || p.isKw("WITH") || p.isKw("VALUES") {
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		e = &InQuery{Start: left.Pos(), Expr: left, Not: not, Query: q}
	} else {
		list, err := p.exprList()
		if err != nil {
			return nil, err
		}
		e = &InList{Start: left.Pos(), Expr: left, Not: not, List: list}
		if len(list) == 1 {
			if q, err := p.moreQuery(list[0]); err != nil {
				return nil, err
			} else if q != nil {
				e = &InQuery{Start: left.Pos(), Expr: left, Not: not, Query: q}
			}
		}
	}
	_, err := p.expectOp(")")
	return e, err
}

func (p *parser) like(left Expr, not bool) (Expr, error) {
	l := &Like{Start: left.Pos(), Expr: left, Not: not}
	var err error
	if l.Pattern, err = p.expr(precConcat); err != nil {
		return nil, err
	}
	if p.acceptKw("ESCAPE") {
		if l.Escape, err = p.expr(precConcat); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (p *parser) prefix() (Expr, error) {
	t := p.peek()
	switch {
	case isWord(t, "NOT"):
		p.next()
		e, err := p.expr(precNot)
		if err != nil {
			return nil, err
		}
		return &Unary{Start: t.pos, Op: "NOT", Expr: e}, nil
	case isOp(t, "-"), isOp(t, "+"):
		p.next()
		e, err := p.expr(precUnary)
		if err != nil {
			return nil, err
		}
		return &Unary{Start: t.pos, Op: t.text, Expr: e}, nil
	}
	paren := isOp(t, "(")
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfix(e, paren)
}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tkNumber:
		p.next()
		return &NumberLit{Start: t.pos, Text: t.text}, nil
	case tkString:
		p.next()
		return &StringLit{Start: t.pos, Value: t.val}, nil
	case tkQuoted:
		return p.identOrCall()
	case tkOp:
		if isOp(t, "(") {
			return p.paren()
		}
	case tkWord:
		up := upper(t.text)
		call := isOp(p.peekAt(1), "(")
		switch {
		case up == "TRUE" || up == "FALSE":
			p.next()
			return &BoolLit{Start: t.pos, Value: up == "TRUE"}, nil
		case up == "NULL":
			p.next()
			return &NullLit{Start: t.pos}, nil
		case up == "DATE" || up == "TIME" || up == "TIMESTAMP":
			p.next()
			s, err := p.stringLit()
			if err != nil {
				return nil, err
			}
			return &TypedLit{Start: t.pos, Type: up, Value: s.Value}, nil
		case up == "INTERVAL":
			return p.interval()
		case up == "CASE":
			return p.caseExpr()
		case (up == "ARRAY" || up == "MAP") && isOp(p.peekAt(1), "["):
			return p.constructor(up)
		case niladic[up]:
			if call {
				return p.call(up)
			}
			p.next()
			return &Call{Start: t.pos, Name: up}, nil
		case up == "LEFT" || up == "RIGHT":
			if call {
				return p.call(up)
			}
		case !call:
		case up == "CAST" || up == "TRY_CAST":
			return p.cast(up == "TRY_CAST")
		case up == "EXTRACT":
			return p.extract()
		case up == "FLOOR" || up == "CEIL" || up == "CEILING":
			return p.floorCeil(up)
		case up == "SUBSTRING":
			return p.substring()
		case up == "TRIM":
			return p.trim()
		case up == "POSITION":
			return p.position()
		case up == "EXISTS":
			p.next()
			p.next()
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			if _, err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &Exists{Start: t.pos, Query: q}, nil
		}
		if !reserved[up] {
			return p.identOrCall()
		}
	}
	p.want("expression")
	return nil, p.unexpected()
}

func (p *parser) paren() (Expr, error) {
	start := p.next().pos
	if n := p.peek(); isWord(n, "SELECT") || isWord(n, "WITH") || isWord(n, "VALUES") {
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &ScalarQuery{Start: start, Query: q}, nil
	}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if q, err := p.moreQuery(e); err != nil {
		return nil, err
	} else if q != nil {
		e = &ScalarQuery{Start: start, Query: q}
	}
	_, err = p.expectOp(")")
	return e, err
}

// moreQuery handles "((SELECT ...) UNION ...)": when e is a parenthesised
// query followed by a set operator, ORDER BY or LIMIT, it is the first
// operand of a larger query, which moreQuery parses and returns.
func (p *parser) moreQuery(e Expr) (Query, error) {
	sq, ok := e.(*ScalarQuery)
	if !ok {
		return nil, nil
	}
	if t := p.peek(); !isWord(t, "UNION") && !isWord(t, "INTERSECT") && !isWord(t, "EXCEPT") && !isWord(t, "ORDER") && !isWord(t, "LIMIT") {
		return nil, nil
	}
	q, err := p.union(sq.Query)
	if err != nil {
		return nil, err
	}
	return p.queryTail(sq.Start, nil, q)
}

func (p *parser) identOrCall() (Expr, error) {
	t := p.peek()
	if isOp(p.peekAt(1), "(") {
		name := t.text
		if t.kind == tkQuoted {
			name = t.val
		}
		return p.call(upper(name))
	}
	return p.name()
}

// call parses name(args) [FILTER (WHERE cond)] [OVER (window)], starting at
// the name token.
func (p *parser) call(name string) (Expr, error) {
	c := &Call{Start: p.next().pos, Name: name}
	p.next() // (
	switch {
	case p.acceptOp(")"):
	case isOp(p.peek(), "*") && isOp(p.peekAt(1), ")"):
		p.next()
		p.next()
		c.Star = true
	default:
		if p.acceptKw("DISTINCT") {
			c.Distinct = true
		} else {
			p.acceptKw("ALL")
		}
		var err error
		if c.Args, err = p.exprList(); err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("FILTER") {
		if _, err := p.expectOp("("); err != nil {
			return nil, err
		}
		if _, err := p.expectKw("WHERE"); err != nil {
			return nil, err
		}
		var err error
		if c.Filter, err = p.expr(0); err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if p.isKw("OVER") {
		var err error
		if c.Over, err = p.window(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// window parses OVER (...) or OVER name.
func (p *parser) window() (*Window, error) {
	start := p.next().pos
	if p.isIdent() {
		name, _, err := p.ident()
		return &Window{Start: start, Ref: name}, err
	}
	return p.windowSpec(start)
}

// windowSpec parses a window's (PARTITION BY ... ORDER BY ... frame).
func (p *parser) windowSpec(start Pos) (*Window, error) {
	w := &Window{Start: start}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var err error
	if p.acceptKw("PARTITION") {
		if _, err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if w.PartitionBy, err = p.exprList(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("ORDER") {
		if _, err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if w.OrderBy, err = p.orderList(); err != nil {
			return nil, err
		}
	}
	if p.isKw("ROWS") || p.isKw("RANGE") {
		t := p.next()
		f := &Frame{Start: t.pos, Rows: isWord(t, "ROWS")}
		if p.acceptKw("BETWEEN") {
			if f.Lo, err = p.frameBound(); err != nil {
				return nil, err
			}
			if _, err := p.expectKw("AND"); err != nil {
				return nil, err
			}
			if f.Hi, err = p.frameBound(); err != nil {
				return nil, err
			}
		} else if f.Lo, err = p.frameBound(); err != nil {
			return nil, err
		}
		w.Frame = f
	}
	_, err = p.expectOp(")")
	return w, err
}

func (p *parser) frameBound() (*FrameBound, error) {
	t := p.peek()
	b := &FrameBound{Start: t.pos}
	switch {
	case isWord(t, "CURRENT") && isWord(p.peekAt(1), "ROW"):
		p.next()
		p.next()
		b.Kind = "CURRENT ROW"
		return b, nil
	case isWord(t, "UNBOUNDED") && (isWord(p.peekAt(1), "PRECEDING") || isWord(p.peekAt(1), "FOLLOWING")):
		p.next()
	default:
		var err error
		if b.Offset, err = p.expr(precConcat); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("PRECEDING") {
		b.Kind = "PRECEDING"
	} else if _, err := p.expectKw("FOLLOWING"); err != nil {
		return nil, err
	} else {
		b.Kind = "FOLLOWING"
	}
	return b, nil
}

func (p *parser) interval() (Expr, error) {
	start := p.next().pos
	s, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	iv := &IntervalLit{Start: start, Value: s.Value}
	if iv.Unit, err = p.intervalUnit(); err != nil {
		return nil, err
	}
	if isWord(p.peek(), "TO") {
		to := p.next()
		if iv.ToUnit, err = p.intervalUnit(); err != nil {
			return nil, err
		}
		if !intervalTo[iv.Unit+" "+iv.ToUnit] {
			return nil, errorf(to.pos, "invalid interval qualifier %s TO %s", iv.Unit, iv.ToUnit)
		}
	}
	return iv, nil
}

func (p *parser) intervalUnit() (string, error) {
	p.want("interval unit (SECOND, MINUTE, HOUR, DAY, MONTH, YEAR)")
	t := p.peek()
	if u, ok := intervalUnits[upper(t.text)]; ok && t.kind == tkWord {
		p.next()
		return u, nil
	}
	return "", p.unexpected()
}

func (p *parser) timeUnit() (string, error) {
	p.want("time unit")
	t := p.peek()
	if u := upper(t.text); t.kind == tkWord && timeUnits[u] {
		p.next()
		return u, nil
	}
	return "", p.unexpected()
}

func (p *parser) caseExpr() (Expr, error) {
	c := &Case{Start: p.next().pos}
	var err error
	if !p.isKw("WHEN") {
		if c.Operand, err = p.expr(0); err != nil {
			return nil, err
		}
	}
	for p.isKw("WHEN") {
		w := &When{Start: p.next().pos}
		if w.Cond, err = p.expr(0); err != nil {
			return nil, err
		}
		if _, err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		if w.Result, err = p.expr(0); err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		return nil, p.unexpected()
	}
	if p.acceptKw("ELSE") {
		if c.Else, err = p.expr(0); err != nil {
			return nil, err
		}
	}
	_, err = p.expectKw("END")
	return c, err
}

// open consumes a special form's name and its "(", returning the name's
// position.
func (p *parser) open() Pos {
	pos := p.next().pos
	p.next()
	return pos
}

func (p *parser) cast(try bool) (Expr, error) {
	c := &Cast{Start: p.open(), Try: try}
	var err error
	if c.Expr, err = p.expr(0); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if c.Type, err = p.typeName(); err != nil {
		return nil, err
	}
	_, err = p.expectOp(")")
	return c, err
}

func (p *parser) extract() (Expr, error) {
	e := &Extract{Start: p.open()}
	var err error
	if e.Unit, err = p.timeUnit(); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	if e.Expr, err = p.expr(0); err != nil {
		return nil, err
	}
	_, err = p.expectOp(")")
	return e, err
}

// floorCeil parses FLOOR(e TO unit), or a plain call FLOOR(args).
func (p *parser) floorCeil(name string) (Expr, error) {
	if isOp(p.peekAt(2), ")") {
		return p.call(name)
	}
	start := p.open()
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.acceptKw("TO") {
		fc := &FloorCeil{Start: start, Ceil: name != "FLOOR", Expr: e}
		if fc.Unit, err = p.timeUnit(); err != nil {
			return nil, err
		}
		_, err = p.expectOp(")")
		return fc, err
	}
	c := &Call{Start: start, Name: name, Args: []Expr{e}}
	if p.acceptOp(",") {
		rest, err := p.exprList()
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, rest...)
	}
	_, err = p.expectOp(")")
	return c, err
}

func (p *parser) substring() (Expr, error) {
	s := &Substring{Start: p.open()}
	var err error
	if s.Expr, err = p.expr(0); err != nil {
		return nil, err
	}
	if p.acceptKw("FROM") {
		if s.From, err = p.expr(0); err != nil {
			return nil, err
		}
		if p.acceptKw("FOR") {
			if s.For, err = p.expr(0); err != nil {
				return nil, err
			}
		}
	} else {
		if _, err := p.expectOp(","); err != nil {
			return nil, err
		}
		if s.From, err = p.expr(0); err != nil {
			return nil, err
		}
		if p.acceptOp(",") {
			if s.For, err = p.expr(0); err != nil {
				return nil, err
			}
		}
	}
	_, err = p.expectOp(")")
	return s, err
}

func (p *parser) trim() (Expr, error) {
	t := &Trim{Start: p.open()}
	for _, side := range []string{"BOTH", "LEADING", "TRAILING"} {
		if p.acceptKw(side) {
			t.Side = side
			break
		}
	}
	var err error
	if t.Side != "" && p.acceptKw("FROM") {
		if t.Expr, err = p.expr(0); err != nil {
			return nil, err
		}
		_, err = p.expectOp(")")
		return t, err
	}
	first, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.acceptKw("FROM") {
		t.Chars = first
		if t.Expr, err = p.expr(0); err != nil {
			return nil, err
		}
	} else if t.Side != "" {
		return nil, p.unexpected()
	} else {
		t.Expr = first
	}
	_, err = p.expectOp(")")
	return t, err
}

func (p *parser) position() (Expr, error) {
	ps := &Position{Start: p.open()}
	var err error
	if ps.Substr, err = p.expr(precConcat); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("IN"); err != nil {
		return nil, err
	}
	if ps.Expr, err = p.expr(0); err != nil {
		return nil, err
	}
	_, err = p.expectOp(")")
	return ps, err
}

// typeName parses a data type, mapping synonyms to one canonical name.
func (p *parser) typeName() (*TypeName, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.want("data type")
	t := p.peek()
	if t.kind != tkWord {
		return nil, p.unexpected()
	}
	p.next()
	tn := &TypeName{Start: t.pos, Name: upper(t.text)}
	var err error
	switch tn.Name {
	case "BOOLEAN", "TINYINT", "SMALLINT", "BIGINT", "STRING", "BYTES", "DATE":
	case "INT", "INTEGER":
		tn.Name = "INT"
	case "FLOAT", "REAL":
		tn.Name = "FLOAT"
	case "DOUBLE":
		p.acceptKw("PRECISION")
	case "DECIMAL", "DEC", "NUMERIC":
		tn.Name = "DECIMAL"
		tn.Args, err = p.typeArgs(2)
	case "VARCHAR", "CHAR", "BINARY", "VARBINARY":
		tn.Args, err = p.typeArgs(1)
	case "TIME":
		if tn.Args, err = p.typeArgs(1); err == nil {
			err = p.timeZone(tn, false)
		}
	case "TIMESTAMP":
		if tn.Args, err = p.typeArgs(1); err == nil {
			err = p.timeZone(tn, true)
		}
	case "TIMESTAMP_LTZ":
		tn.Args, err = p.typeArgs(1)
	case "ARRAY", "MULTISET", "MAP":
		err = p.typeParams(tn)
	case "ROW":
		err = p.rowFields(tn)
	default:
		return nil, errorf(t.pos, "unknown data type %s", quote(t.text))
	}
	if err != nil {
		return nil, err
	}
	if isWord(p.peek(), "NOT") && isWord(p.peekAt(1), "NULL") {
		p.next()
		p.next()
		tn.NotNull = true
	} else if isWord(p.peek(), "NULL") {
		p.next() // explicitly nullable, the default
	}
	return tn, nil
}

// typeArgs parses an optional "(n[, m])" with at most max numbers.
func (p *parser) typeArgs(max int) ([]int, error) {
	if !p.acceptOp("(") {
		return nil, nil
	}
	var args []int
	for {
		p.want("integer")
		t := p.peek()
		if t.kind != tkNumber {
			return nil, p.unexpected()
		}
		n, err := strconv.ParseInt(t.text, 10, 32)
		if err != nil || n < 0 {
			return nil, errorf(t.pos, "type parameter %s is not an integer between 0 and 2147483647", abbrev(t.text))
		}
		p.next()
		args = append(args, int(n))
		if len(args) == max || !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(")")
	return args, err
}

// timeZone parses WITHOUT TIME ZONE, or WITH LOCAL TIME ZONE where local is
// allowed, which turns TIMESTAMP into TIMESTAMP_LTZ.
func (p *parser) timeZone(tn *TypeName, local bool) error {
	if p.acceptKw("WITHOUT") {
		if _, err := p.expectKw("TIME"); err != nil {
			return err
		}
		_, err := p.expectKw("ZONE")
		return err
	}
	if !local || !isWord(p.peek(), "WITH") || !isWord(p.peekAt(1), "LOCAL") {
		return nil
	}
	p.next()
	p.next()
	if _, err := p.expectKw("TIME"); err != nil {
		return err
	}
	if _, err := p.expectKw("ZONE"); err != nil {
		return err
	}
	tn.Name = "TIMESTAMP_LTZ"
	return nil
}

func (p *parser) typeParams(tn *TypeName) error {
	if _, err := p.expectOp("<"); err != nil {
		return err
	}
	n := 1
	if tn.Name == "MAP" {
		n = 2
	}
	for i := range n {
		if i > 0 {
			if _, err := p.expectOp(","); err != nil {
				return err
			}
		}
		e, err := p.typeName()
		if err != nil {
			return err
		}
		tn.Elems = append(tn.Elems, e)
	}
	_, err := p.expectOp(">")
	return err
}

// rowFields parses ROW<name type, ...> or ROW(name type, ...).
func (p *parser) rowFields(tn *TypeName) error {
	closer := ">"
	if p.acceptOp("(") {
		closer = ")"
	} else if _, err := p.expectOp("<"); err != nil {
		return err
	}
	for {
		name, pos, err := p.ident()
		if err != nil {
			return err
		}
		f := &Field{Start: pos, Name: name}
		if f.Type, err = p.typeName(); err != nil {
			return err
		}
		if p.acceptKw("COMMENT") {
			if f.Comment, err = p.stringLit(); err != nil {
				return err
			}
		}
		tn.Fields = append(tn.Fields, f)
		if !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(closer)
	return err
}
