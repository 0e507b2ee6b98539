package parser

import (
	"fmt"
	"slices"
)

// maxDepth bounds the nesting of expressions, queries and types, so that
// hostile input cannot exhaust the stack of this parser or of later passes
// that walk the tree recursively.
const maxDepth = 1000

// maxTerms bounds a flat chain of binary operators (a OR b OR ...), whose
// length is not nesting: passes that recurse down its left spine use
// stack in proportion to it, a few MB at this bound.
const maxTerms = 100_000

// Parse parses a list of statements separated by semicolons.
func Parse(src string) ([]Statement, error) {
	p := newParser(src)
	var stmts []Statement
	for {
		for isOp(p.peek(), ";") {
			p.next()
		}
		if p.peek().kind == tkEOF {
			return stmts, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, s)
		if t := p.peek(); t.kind != tkEOF && !isOp(t, ";") {
			if startsStatement(t) {
				return nil, errorf(t.pos, "unexpected %s; is a semicolon missing before it?", describe(t))
			}
			p.want("end of statement")
			return nil, p.unexpected()
		}
	}
}

// ParseExpr parses a single scalar expression.
func ParseExpr(src string) (Expr, error) {
	p := newParser(src)
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tkEOF {
		p.want("end of input")
		return nil, p.unexpected()
	}
	return e, nil
}

type parser struct {
	toks  []token
	i     int
	depth int
	// exp lists what the parser tried at token expAt, for error messages.
	exp   []string
	expAt int
	// implicitAlias is the index of the last word taken as an alias without
	// AS: when the parse fails right after it, it is most likely a misspelt
	// keyword ("SELECT a FORM t").
	implicitAlias int
}

func newParser(src string) *parser {
	return &parser{toks: lex(src), expAt: -1, implicitAlias: -1}
}

func (p *parser) peek() token { return p.toks[p.i] }

// peekAt looks n tokens ahead without recording an expectation.
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

func (p *parser) want(what string) {
	if p.expAt != p.i {
		p.exp, p.expAt = p.exp[:0], p.i
	}
	if !slices.Contains(p.exp, what) {
		p.exp = append(p.exp, what)
	}
}

// isExplainDetail reports whether t names one of Flink's explain details.
func isExplainDetail(t token) bool {
	if t.kind != tkWord {
		return false
	}
	switch upper(t.text) {
	case "CHANGELOG_MODE", "ESTIMATED_COST", "JSON_EXECUTION_PLAN", "PLAN_ADVICE":
		return true
	}
	return false
}

func isWord(t token, kw string) bool { return t.kind == tkWord && upper(t.text) == kw }
func isOp(t token, op string) bool   { return t.kind == tkOp && t.text == op }

// kwNames spells out keywords that only occur in pairs, for messages.
var kwNames = map[string]string{"GROUP": "GROUP BY", "ORDER": "ORDER BY", "PARTITION": "PARTITION BY"}

func (p *parser) isKw(kw string) bool {
	if name, ok := kwNames[kw]; ok {
		p.want(name)
	} else {
		p.want(kw)
	}
	return isWord(p.peek(), kw)
}

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectKw(kw string) (Pos, error) {
	if !p.isKw(kw) {
		return Pos{}, p.unexpected()
	}
	return p.next().pos, nil
}

func (p *parser) isOp(op string) bool {
	p.want(quote(op))
	return isOp(p.peek(), op)
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expectOp(op string) (Pos, error) {
	if !p.isOp(op) {
		return Pos{}, p.unexpected()
	}
	return p.next().pos, nil
}

// unexpected reports the current token against what was tried there.
func (p *parser) unexpected() error {
	t := p.peek()
	if t.kind == tkBad {
		return &Error{Pos: t.pos, Msg: t.msg}
	}
	if t.kind == tkHint {
		return errorf(t.pos, "a hint /*+ ... */ may only follow SELECT, or a table name before its alias; write /* ... */ for a comment")
	}
	if p.i > 0 && p.implicitAlias == p.i-1 {
		a := p.toks[p.i-1]
		if kw := misspelt(a.text); kw != "" {
			return errorf(a.pos, "unexpected %s; did you mean %s?", describe(a), kw)
		}
	}
	msg := "unexpected " + describe(t)
	if p.expAt == p.i && len(p.exp) > 0 {
		msg += ", expecting " + expecting(p.exp)
	}
	return &Error{Pos: t.pos, Msg: msg}
}

func errorf(pos Pos, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// enter guards recursion; every successful enter is paired with leave.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errorf(p.peek().pos, "nesting deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// isIdent reports whether the current token can be an identifier.
func (p *parser) isIdent() bool {
	p.want("identifier")
	t := p.peek()
	return t.kind == tkQuoted || t.kind == tkWord && !reserved[upper(t.text)]
}

func (p *parser) ident() (string, Pos, error) {
	if !p.isIdent() {
		return "", Pos{}, p.unexpected()
	}
	t := p.next()
	if t.kind == tkQuoted {
		return t.val, t.pos, nil
	}
	return t.text, t.pos, nil
}

// name parses a possibly qualified name a.b.c.
func (p *parser) name() (*Ident, error) {
	s, pos, err := p.ident()
	if err != nil {
		return nil, err
	}
	n := &Ident{Start: pos, Parts: []string{s}}
	for isOp(p.peek(), ".") {
		p.next()
		s, _, err := p.ident()
		if err != nil {
			return nil, err
		}
		n.Parts = append(n.Parts, s)
	}
	return n, nil
}

// simpleIdent parses an unqualified identifier as an *Ident.
func (p *parser) simpleIdent() (*Ident, error) {
	s, pos, err := p.ident()
	if err != nil {
		return nil, err
	}
	return &Ident{Start: pos, Parts: []string{s}}, nil
}

// identList parses "(a, b, ...)".
func (p *parser) identList() ([]*Ident, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var ids []*Ident
	for {
		id, err := p.simpleIdent()
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
		if !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(")")
	return ids, err
}

func (p *parser) stringLit() (*StringLit, error) {
	p.want("string")
	t := p.peek()
	if t.kind != tkString {
		return nil, p.unexpected()
	}
	p.next()
	return &StringLit{Start: t.pos, Value: t.val}, nil
}

// ifExists parses an optional IF [NOT] EXISTS; IF is only a keyword when
// followed by NOT or EXISTS, so "CREATE TABLE if (...)" still works.
func (p *parser) ifExists(not bool) (bool, error) {
	p.want("IF")
	if !isWord(p.peek(), "IF") {
		return false, nil
	}
	if not && !isWord(p.peekAt(1), "NOT") || !not && !isWord(p.peekAt(1), "EXISTS") {
		return false, nil
	}
	p.next()
	if not {
		p.next()
	}
	_, err := p.expectKw("EXISTS")
	return true, err
}

func (p *parser) statement() (Statement, error) {
	t := p.peek()
	switch {
	case p.isKw("CREATE"):
		return p.create()
	case p.isKw("INSERT"):
		return p.insert()
	case p.isStatementSet():
		return p.statementSet()
	case p.isKw("SET"):
		return p.set()
	case p.isKw("RESET"):
		p.next()
		r := &Reset{Start: t.pos}
		if p.peek().kind == tkString {
			r.Key, _ = p.stringLit()
		}
		return r, nil
	case p.isKw("EXPLAIN"):
		p.next()
		var details []*Ident
		if p.acceptKw("PLAN") {
			if _, err := p.expectKw("FOR"); err != nil {
				return nil, err
			}
		} else {
			for isExplainDetail(p.peek()) {
				d := p.next()
				details = append(details, &Ident{Start: d.pos, Parts: []string{upper(d.text)}})
				if !isOp(p.peek(), ",") {
					break
				}
				p.next()
				if !isExplainDetail(p.peek()) {
					p.want("an explain detail (CHANGELOG_MODE, ESTIMATED_COST, JSON_EXECUTION_PLAN, PLAN_ADVICE)")
					return nil, p.unexpected()
				}
			}
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		if isWord(p.peek(), "STATEMENT") && isWord(p.peekAt(1), "SET") {
			s, err := p.statementSet() // EXPLAIN STATEMENT SET BEGIN ... END
			if err != nil {
				return nil, err
			}
			return &Explain{Start: t.pos, Details: details, Statement: s}, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		return &Explain{Start: t.pos, Details: details, Statement: s}, nil
	case p.isKw("SHOW"):
		p.next()
		if p.acceptKw("TABLES") {
			return &ShowTables{Start: t.pos}, nil
		}
		if p.acceptKw("JOBS") {
			return &ShowJobs{Start: t.pos}, nil
		}
		if p.acceptKw("FUNCTIONS") {
			return &ShowFunctions{Start: t.pos}, nil
		}
		if p.acceptKw("CREATE") {
			return p.showCreate(t.pos)
		}
		if _, err := p.expectKw("VIEWS"); err != nil {
			return nil, err
		}
		return &ShowViews{Start: t.pos}, nil
	case p.isKw("DESCRIBE"), p.isKw("DESC"):
		p.next()
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		return &Describe{Start: t.pos, Name: n}, nil
	case p.isKw("DROP"):
		return p.drop()
	case p.isKw("STOP"):
		return p.stopJob()
	case p.isKw("HELP"):
		p.next()
		return &Help{Start: t.pos}, nil
	case p.isKw("SOURCE"):
		return p.source()
	case p.isQueryStart():
		return p.query()
	}
	if t.kind == tkBad || t.kind == tkHint {
		return nil, p.unexpected()
	}
	return nil, errorf(t.pos, "unexpected %s, expecting a statement (SELECT, INSERT, CREATE, SET, ...)", describe(t))
}

// startsStatement reports whether t is a word that begins a statement and
// nothing else.
func startsStatement(t token) bool {
	for _, kw := range []string{"SELECT", "INSERT", "CREATE", "DROP", "EXPLAIN", "SHOW", "DESCRIBE", "RESET"} {
		if isWord(t, kw) {
			return true
		}
	}
	return false
}

func (p *parser) isQueryStart() bool {
	return p.isKw("SELECT") || p.isKw("WITH") || p.isKw("VALUES") || p.isOp("(")
}

func (p *parser) create() (Statement, error) {
	start := p.next().pos
	temp := p.acceptKw("TEMPORARY")
	system := temp && p.acceptKw("SYSTEM")
	if !system && p.acceptKw("TABLE") {
		return p.createTable(start, temp)
	}
	if system || p.isKw("FUNCTION") {
		return p.createFunction(start, temp, system)
	}
	if _, err := p.expectKw("VIEW"); err != nil {
		return nil, err
	}
	v := &CreateView{Start: start, Temporary: temp}
	var err error
	if v.IfNotExists, err = p.ifExists(true); err != nil {
		return nil, err
	}
	if v.Name, err = p.name(); err != nil {
		return nil, err
	}
	if p.isOp("(") {
		if v.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	v.Query, err = p.query()
	return v, err
}

func (p *parser) createFunction(start Pos, temp, system bool) (Statement, error) {
	if _, err := p.expectKw("FUNCTION"); err != nil {
		return nil, err
	}
	f := &CreateFunction{Start: start, Temporary: temp, System: system}
	var err error
	if f.IfNotExists, err = p.ifExists(true); err != nil {
		return nil, err
	}
	if f.Name, err = p.name(); err != nil {
		return nil, err
	}
	if _, err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if f.Class, err = p.stringLit(); err != nil {
		return nil, err
	}
	if p.acceptKw("LANGUAGE") {
		lang, _, err := p.ident()
		if err != nil {
			return nil, err
		}
		f.Language = upper(lang)
	}
	return f, nil
}

func (p *parser) createTable(start Pos, temp bool) (Statement, error) {
	ct := &CreateTable{Start: start, Temporary: temp}
	var err error
	if ct.IfNotExists, err = p.ifExists(true); err != nil {
		return nil, err
	}
	if ct.Name, err = p.name(); err != nil {
		return nil, err
	}
	// With LIKE, the column list may be left out: CREATE TABLE t WITH
	// (...) LIKE u.
	noColumns, columnsAt := !p.isOp("("), p.i
	if !noColumns {
		if err := p.tableElements(ct); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("COMMENT") {
		if ct.Comment, err = p.stringLit(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("PARTITIONED") {
		if _, err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if ct.PartitionBy, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WITH") {
		if ct.Options, err = p.options(); err != nil {
			return nil, err
		}
	}
	if p.isKw("LIKE") {
		if ct.Like, err = p.tableLike(); err != nil {
			return nil, err
		}
	} else if noColumns {
		p.i = columnsAt
		p.want(quote("("))
		return nil, p.unexpected()
	}
	return ct, nil
}

// tableElements parses the parenthesized columns and constraints of a
// CREATE TABLE.
func (p *parser) tableElements(ct *CreateTable) error {
	if _, err := p.expectOp("("); err != nil {
		return err
	}
	for {
		if err := p.tableElement(ct); err != nil {
			return err
		}
		if !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(")")
	return err
}

func (p *parser) tableElement(ct *CreateTable) error {
	t := p.peek()
	switch {
	case isWord(t, "WATERMARK") && isWord(p.peekAt(1), "FOR"):
		if ct.Watermark != nil {
			return errorf(t.pos, "more than one WATERMARK")
		}
		p.next()
		p.next()
		col, err := p.name()
		if err != nil {
			return err
		}
		if _, err := p.expectKw("AS"); err != nil {
			return err
		}
		e, err := p.expr(0)
		if err != nil {
			return err
		}
		ct.Watermark = &Watermark{Start: t.pos, Column: col, Expr: e}
		return nil
	case isWord(t, "PRIMARY") && isWord(p.peekAt(1), "KEY"),
		isWord(t, "CONSTRAINT") && isWord(p.peekAt(2), "PRIMARY"):
		if ct.PrimaryKey != nil {
			return errorf(t.pos, "more than one PRIMARY KEY")
		}
		pk := &PrimaryKey{Start: t.pos}
		if p.acceptKw("CONSTRAINT") {
			var err error
			if pk.Constraint, _, err = p.ident(); err != nil {
				return err
			}
		}
		p.next() // PRIMARY
		p.next() // KEY
		var err error
		if pk.Columns, err = p.identList(); err != nil {
			return err
		}
		if err := p.notEnforced(); err != nil {
			return err
		}
		ct.PrimaryKey = pk
		return nil
	}
	name, pos, err := p.ident()
	if err != nil {
		return err
	}
	col := &ColumnDef{Start: pos, Name: name}
	ct.Columns = append(ct.Columns, col)
	if p.acceptKw("AS") {
		col.Expr, err = p.expr(0)
	} else {
		col.Type, err = p.typeName()
	}
	if err != nil {
		return err
	}
	if col.Type != nil && p.acceptKw("METADATA") {
		col.Metadata = true
		if p.acceptKw("FROM") {
			if col.MetadataKey, err = p.stringLit(); err != nil {
				return err
			}
		}
		col.Virtual = p.acceptKw("VIRTUAL")
	} else if col.Type != nil && p.isKw("PRIMARY") {
		if ct.PrimaryKey != nil {
			return errorf(p.peek().pos, "more than one PRIMARY KEY")
		}
		p.next()
		if _, err := p.expectKw("KEY"); err != nil {
			return err
		}
		if err := p.notEnforced(); err != nil {
			return err
		}
		col.PrimaryKey = true
	}
	if p.acceptKw("COMMENT") {
		col.Comment, err = p.stringLit()
	}
	return err
}

// notEnforced requires NOT ENFORCED: Flink never enforces keys, and accepting
// a key without it would promise a check that never happens.
func (p *parser) notEnforced() error {
	if _, err := p.expectKw("NOT"); err != nil {
		return err
	}
	_, err := p.expectKw("ENFORCED")
	return err
}

// options parses "('k' = 'v', ...)".
func (p *parser) options() ([]*Option, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	var opts []*Option
	for {
		o, err := p.option()
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
		if !p.acceptOp(",") {
			break
		}
	}
	_, err := p.expectOp(")")
	return opts, err
}

func (p *parser) option() (*Option, error) {
	k, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	if _, err := p.expectOp("="); err != nil {
		return nil, err
	}
	v, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	return &Option{Start: k.Start, Key: k.Value, Value: v.Value, ValuePos: v.Start}, nil
}

func (p *parser) insert() (Statement, error) {
	ins := &Insert{Start: p.next().pos}
	if p.acceptKw("OVERWRITE") {
		ins.Overwrite = true
	} else if _, err := p.expectKw("INTO"); err != nil {
		return nil, err
	}
	var err error
	if ins.Table, err = p.name(); err != nil {
		return nil, err
	}
	if ins.Hints, err = p.hints(); err != nil {
		return nil, err
	}
	// "(" starts a column list unless it opens a parenthesised query.
	if isOp(p.peek(), "(") {
		if n := p.peekAt(1); !isWord(n, "SELECT") && !isWord(n, "WITH") && !isWord(n, "VALUES") && !isOp(n, "(") {
			if ins.Columns, err = p.identList(); err != nil {
				return nil, err
			}
		}
	}
	ins.Query, err = p.query()
	return ins, err
}

func (p *parser) set() (Statement, error) {
	s := &Set{Start: p.next().pos}
	if p.peek().kind == tkString {
		var err error
		s.Option, err = p.option()
		return s, err
	}
	p.want("string")
	return s, nil
}

func (p *parser) drop() (Statement, error) {
	start := p.next().pos
	temp := p.acceptKw("TEMPORARY")
	if system := temp && p.acceptKw("SYSTEM"); system || p.acceptKw("FUNCTION") {
		if system {
			if _, err := p.expectKw("FUNCTION"); err != nil {
				return nil, err
			}
		}
		ifExists, err := p.ifExists(false)
		if err != nil {
			return nil, err
		}
		name, err := p.name()
		if err != nil {
			return nil, err
		}
		return &DropFunction{Start: start, Temporary: temp, System: system, IfExists: ifExists, Name: name}, nil
	}
	isTable := p.acceptKw("TABLE")
	if !isTable {
		if _, err := p.expectKw("VIEW"); err != nil {
			return nil, err
		}
	}
	ifExists, err := p.ifExists(false)
	if err != nil {
		return nil, err
	}
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	if isTable {
		return &DropTable{Start: start, Temporary: temp, IfExists: ifExists, Name: name}, nil
	}
	return &DropView{Start: start, Temporary: temp, IfExists: ifExists, Name: name}, nil
}

// query parses [WITH ...] body [ORDER BY ...] [LIMIT n], where body is a
// chain of set operations.
func (p *parser) query() (Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	start := p.peek().pos
	var with []*CTE
	if p.acceptKw("WITH") {
		for {
			c, err := p.cte()
			if err != nil {
				return nil, err
			}
			with = append(with, c)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	q, err := p.union(nil)
	if err != nil {
		return nil, err
	}
	return p.queryTail(start, with, q)
}

// queryTail parses the ORDER BY and LIMIT after a query body and attaches
// them, and the WITH clause before it, to the body's outermost node.
func (p *parser) queryTail(start Pos, with []*CTE, q Query) (Query, error) {
	var err error
	var order []*OrderItem
	orderPos := p.peek().pos
	if p.acceptKw("ORDER") {
		if _, err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if order, err = p.orderList(); err != nil {
			return nil, err
		}
	}
	var limit Expr
	limitPos := p.peek().pos
	if p.acceptKw("LIMIT") {
		t := p.peek()
		p.want("integer")
		if t.kind != tkNumber {
			return nil, p.unexpected()
		}
		p.next()
		limit = &NumberLit{Start: t.pos, Text: t.text}
	}
	// The clauses attach to the outermost query node; a parenthesised
	// query that already has them cannot take a second set.
	o := outerOf(q)
	switch {
	case with != nil && *o.with != nil:
		return nil, errorf(start, "a query cannot have two WITH clauses; wrap the inner query in a subquery")
	case order != nil && *o.order != nil:
		return nil, errorf(orderPos, "a query cannot have two ORDER BY clauses; wrap the inner query in a subquery")
	case limit != nil && *o.limit != nil:
		return nil, errorf(limitPos, "a query cannot have two LIMIT clauses; wrap the inner query in a subquery")
	}
	if with != nil {
		*o.with, *o.start = with, start
	}
	if order != nil {
		*o.order = order
	}
	if limit != nil {
		*o.limit = limit
	}
	return q, nil
}

func (p *parser) cte() (*CTE, error) {
	name, pos, err := p.ident()
	if err != nil {
		return nil, err
	}
	c := &CTE{Start: pos, Name: name}
	if p.isOp("(") {
		if c.Columns, err = p.identList(); err != nil {
			return nil, err
		}
	}
	if _, err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	if c.Query, err = p.query(); err != nil {
		return nil, err
	}
	_, err = p.expectOp(")")
	return c, err
}

// union parses UNION and EXCEPT, which bind looser than INTERSECT. A
// non-nil first is an already parsed first operand.
func (p *parser) union(first Query) (Query, error) {
	left, err := p.intersect(first)
	if err != nil {
		return nil, err
	}
	for n := 1; p.isKw("UNION") || p.isKw("EXCEPT"); n++ {
		if p.depth+n > maxDepth {
			return nil, errorf(p.peek().pos, "nesting deeper than %d levels", maxDepth)
		}
		op := p.next()
		all := p.setQuantifier()
		right, err := p.intersect(nil)
		if err != nil {
			return nil, err
		}
		left = &SetOp{Start: left.Pos(), Op: upper(op.text), All: all, OpPos: op.pos, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) intersect(first Query) (Query, error) {
	left := first
	if left == nil {
		var err error
		if left, err = p.queryPrimary(); err != nil {
			return nil, err
		}
	}
	for n := 1; p.isKw("INTERSECT"); n++ {
		if p.depth+n > maxDepth {
			return nil, errorf(p.peek().pos, "nesting deeper than %d levels", maxDepth)
		}
		op := p.next()
		all := p.setQuantifier()
		right, err := p.queryPrimary()
		if err != nil {
			return nil, err
		}
		left = &SetOp{Start: left.Pos(), Op: "INTERSECT", All: all, OpPos: op.pos, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) setQuantifier() bool {
	if p.acceptKw("ALL") {
		return true
	}
	p.acceptKw("DISTINCT")
	return false
}

func (p *parser) queryPrimary() (Query, error) {
	switch {
	case p.isKw("SELECT"):
		return p.selectCore()
	case p.isKw("VALUES"):
		return p.values()
	case p.isOp("("):
		p.next()
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		_, err = p.expectOp(")")
		return q, err
	}
	return nil, p.unexpected()
}

func (p *parser) values() (Query, error) {
	v := &Values{Start: p.next().pos}
	for {
		if _, err := p.expectOp("("); err != nil {
			return nil, err
		}
		row, err := p.exprList()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		v.Rows = append(v.Rows, row)
		if !p.acceptOp(",") {
			return v, nil
		}
	}
}

func (p *parser) exprList() ([]Expr, error) {
	var list []Expr
	for {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		if !p.acceptOp(",") {
			return list, nil
		}
	}
}

// groupingList parses the elements of GROUP BY, or of GROUPING SETS
// (...), up to the end of the list; sets allows GROUPING SETS, ROLLUP and
// CUBE among them, which ROLLUP and CUBE do not take.
func (p *parser) groupingList(sets bool) ([]Expr, error) {
	var list []Expr
	for {
		e, err := p.groupingElement(sets)
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		if !p.acceptOp(",") {
			return list, nil
		}
	}
}

// groupingElement parses one element of a grouping list: an expression,
// a parenthesised list of expressions, (), or with sets GROUPING SETS
// (...), ROLLUP(...) or CUBE(...).
func (p *parser) groupingElement(sets bool) (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	t := p.peek()
	switch {
	case sets && isWord(t, "GROUPING") && isWord(p.peekAt(1), "SETS"):
		p.next()
		p.next()
		if _, err := p.expectOp("("); err != nil {
			return nil, err
		}
		items, err := p.groupingList(true)
		if err != nil {
			return nil, err
		}
		_, err = p.expectOp(")")
		return &GroupingElement{Start: t.pos, Kind: "GROUPING SETS", Items: items}, err
	case sets && (isWord(t, "ROLLUP") || isWord(t, "CUBE")) && isOp(p.peekAt(1), "("):
		p.next()
		p.next()
		items, err := p.groupingList(false)
		if err != nil {
			return nil, err
		}
		_, err = p.expectOp(")")
		return &GroupingElement{Start: t.pos, Kind: upper(t.text), Items: items}, err
	case isOp(t, "("):
		if g, ok, err := p.parenList(); ok || err != nil {
			return g, err
		}
	}
	return p.expr(0)
}

// parenList parses a list of expressions in parentheses, (a, b) or (), at
// the current "(". When the parentheses hold one expression or a query
// instead ((a), (a) + 1, ((SELECT ...) UNION ...)), it reports false,
// having read nothing: the caller parses them as an expression.
func (p *parser) parenList() (*GroupingElement, bool, error) {
	g := &GroupingElement{Start: p.peek().pos}
	if isOp(p.peekAt(1), ")") {
		p.next()
		p.next()
		return g, true, nil
	}
	i, depth, exp, expAt, alias := p.i, p.depth, slices.Clone(p.exp), p.expAt, p.implicitAlias
	p.next()
	first, err := p.expr(0)
	if err != nil || !isOp(p.peek(), ",") {
		p.i, p.depth, p.exp, p.expAt, p.implicitAlias = i, depth, exp, expAt, alias
		return nil, false, nil
	}
	p.next()
	rest, err := p.exprList()
	if err != nil {
		return nil, true, err
	}
	g.Items = append([]Expr{first}, rest...)
	_, err = p.expectOp(")")
	return g, true, err
}

func (p *parser) selectCore() (Query, error) {
	s := &Select{Start: p.next().pos}
	var err error
	if s.Hints, err = p.hints(); err != nil {
		return nil, err
	}
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	for {
		item, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, item)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		if s.From, err = p.from(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(0); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("GROUP") {
		if _, err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		if s.GroupBy, err = p.groupingList(true); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("HAVING") {
		if s.Having, err = p.expr(0); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WINDOW") {
		for {
			nw := &NamedWindow{Start: p.peek().pos}
			if nw.Name, _, err = p.ident(); err != nil {
				return nil, err
			}
			if _, err := p.expectKw("AS"); err != nil {
				return nil, err
			}
			if nw.Window, err = p.windowSpec(nw.Start); err != nil {
				return nil, err
			}
			s.Windows = append(s.Windows, nw)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	return s, nil
}

func (p *parser) selectItem() (*SelectItem, error) {
	start := p.peek().pos
	// * or a.b.*: scan the dotted prefix without consuming it.
	n := 0
	for {
		t := p.peekAt(n)
		if (t.kind == tkWord && !reserved[upper(t.text)] || t.kind == tkQuoted) && isOp(p.peekAt(n+1), ".") {
			n += 2
			continue
		}
		break
	}
	if isOp(p.peekAt(n), "*") {
		star := &Star{Start: start}
		for range n / 2 {
			t := p.next()
			p.next()
			if t.kind == tkQuoted {
				star.Qualifier = append(star.Qualifier, t.val)
			} else {
				star.Qualifier = append(star.Qualifier, t.text)
			}
		}
		p.next()
		return &SelectItem{Start: start, Expr: star}, nil
	}
	e, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	item := &SelectItem{Start: start, Expr: e}
	item.Alias, err = p.alias()
	return item, err
}

// alias parses an optional [AS] name.
func (p *parser) alias() (string, error) {
	if p.acceptKw("AS") {
		s, _, err := p.ident()
		return s, err
	}
	if p.isIdent() {
		p.implicitAlias = p.i
		s, _, err := p.ident()
		return s, err
	}
	return "", nil
}

func (p *parser) orderList() ([]*OrderItem, error) {
	var items []*OrderItem
	for {
		start := p.peek().pos
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		o := &OrderItem{Start: start, Expr: e}
		if p.acceptKw("DESC") {
			o.Desc = true
		} else {
			p.acceptKw("ASC")
		}
		if p.acceptKw("NULLS") {
			if p.acceptKw("FIRST") {
				o.Nulls = "FIRST"
			} else if _, err := p.expectKw("LAST"); err != nil {
				return nil, err
			} else {
				o.Nulls = "LAST"
			}
		}
		items = append(items, o)
		if !p.acceptOp(",") {
			return items, nil
		}
	}
}

// from parses comma-separated join chains; the comma binds loosest.
func (p *parser) from() (TableExpr, error) {
	left, err := p.joinChain()
	if err != nil {
		return nil, err
	}
	for n := 1; p.isOp(","); n++ {
		if p.depth+n > maxDepth {
			return nil, errorf(p.peek().pos, "nesting deeper than %d levels", maxDepth)
		}
		kindPos := p.next().pos
		right, err := p.joinChain()
		if err != nil {
			return nil, err
		}
		left = &Join{Start: left.Pos(), Kind: JoinComma, KindPos: kindPos, Left: left, Right: right}
	}
	return left, nil
}

func (p *parser) joinChain() (TableExpr, error) {
	left, err := p.tablePrimary()
	if err != nil {
		return nil, err
	}
	for n := 1; ; n++ {
		kindPos := p.peek().pos
		var kind JoinKind
		switch {
		case p.acceptKw("JOIN"):
			kind = JoinInner
		case p.acceptKw("INNER"):
			kind = JoinInner
		case p.acceptKw("LEFT"):
			kind = JoinLeft
		case p.acceptKw("RIGHT"):
			kind = JoinRight
		case p.acceptKw("FULL"):
			kind = JoinFull
		case p.acceptKw("CROSS"):
			kind = JoinCross
		default:
			return left, nil
		}
		if p.depth+n > maxDepth {
			return nil, errorf(kindPos, "nesting deeper than %d levels", maxDepth)
		}
		if !isWord(p.toks[p.i-1], "JOIN") { // the kind word needs its JOIN
			if kind == JoinLeft || kind == JoinRight || kind == JoinFull {
				p.acceptKw("OUTER")
			}
			if _, err := p.expectKw("JOIN"); err != nil {
				return nil, err
			}
		}
		right, err := p.tablePrimary()
		if err != nil {
			return nil, err
		}
		j := &Join{Start: left.Pos(), Kind: kind, KindPos: kindPos, Left: left, Right: right}
		if kind != JoinCross {
			if _, err := p.expectKw("ON"); err != nil {
				return nil, err
			}
			if j.On, err = p.expr(0); err != nil {
				return nil, err
			}
		}
		left = j
	}
}

func (p *parser) tablePrimary() (TableExpr, error) {
	t := p.peek()
	switch {
	case p.isOp("("):
		p.next()
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		if _, err := p.expectOp(")"); err != nil {
			return nil, err
		}
		alias, err := p.alias()
		return &Subquery{Start: t.pos, Query: q, Alias: alias}, err
	case p.isKw("TABLE"):
		p.next()
		return p.tableFunc(t.pos)
	case p.isKw("UNNEST"):
		return p.unnest()
	}
	ref := &TableRef{Start: t.pos}
	var err error
	if ref.Name, err = p.name(); err != nil {
		return nil, err
	}
	if ref.Hints, err = p.hints(); err != nil {
		return nil, err
	}
	if p.acceptKw("FOR") {
		for _, kw := range []string{"SYSTEM_TIME", "AS", "OF"} {
			if _, err := p.expectKw(kw); err != nil {
				return nil, err
			}
		}
		if ref.AsOf, err = p.expr(0); err != nil {
			return nil, err
		}
	}
	ref.Alias, err = p.alias()
	return ref, err
}

// tableFunc parses "(name(args)) [AS alias]" after TABLE.
func (p *parser) tableFunc(start Pos) (TableExpr, error) {
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	name, _, err := p.ident()
	if err != nil {
		return nil, err
	}
	tf := &TableFunc{Start: start, Name: upper(name)}
	if _, err := p.expectOp("("); err != nil {
		return nil, err
	}
	if !p.isOp(")") {
		for {
			a, err := p.tableFuncArg()
			if err != nil {
				return nil, err
			}
			tf.Args = append(tf.Args, a)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if _, err := p.expectOp(")"); err != nil {
		return nil, err
	}
	tf.Alias, err = p.alias()
	return tf, err
}

// partitionKeys parses one key or a parenthesised list: a bare list would
// swallow the table function's following arguments.
func (p *parser) partitionKeys() ([]Expr, error) {
	if !p.acceptOp("(") {
		e, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		return []Expr{e}, nil
	}
	keys, err := p.exprList()
	if err != nil {
		return nil, err
	}
	_, err = p.expectOp(")")
	return keys, err
}

func (p *parser) tableFuncArg() (*TableFuncArg, error) {
	a := &TableFuncArg{Start: p.peek().pos}
	if t := p.peek(); (t.kind == tkWord || t.kind == tkQuoted) && isOp(p.peekAt(1), "=>") {
		a.Name = upper(t.text)
		if t.kind == tkQuoted {
			a.Name = upper(t.val)
		}
		p.next()
		p.next()
	}
	var err error
	switch t := p.peek(); {
	case p.isKw("TABLE"):
		p.next()
		if a.Table, err = p.name(); err != nil {
			return nil, err
		}
		if p.acceptKw("PARTITION") {
			if _, err := p.expectKw("BY"); err != nil {
				return nil, err
			}
			a.PartitionBy, err = p.partitionKeys()
		}
	case isWord(t, "DESCRIPTOR") && isOp(p.peekAt(1), "("):
		p.next()
		a.Descriptor, err = p.identList()
	default:
		a.Expr, err = p.expr(0)
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}
