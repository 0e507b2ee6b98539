package parser

import (
	"strconv"
	"strings"
)

// The String methods render canonical SQL: keywords upper-case, single
// spaces, parentheses only where precedence needs them, identifiers
// back-quoted only where a bare word would not read back the same.

// quoteIdent back-quotes a name unless it reads back as itself both here and
// in Flink, so that rendered SQL also pastes into Flink.
func quoteIdent(s string) string {
	if bare(s) && !flinkReserved[upper(s)] {
		return s
	}
	return backquote(s)
}

func backquote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// bare reports whether s reads back as the same identifier in this parser.
func bare(s string) bool { return isPlainWord(s) && !reserved[upper(s)] }

// flinkReserved lists words Flink (Calcite) reserves beyond this parser's own
// reserved set, mostly the SQL standard's reserved words. Parsing accepts them
// as bare names where unambiguous; rendering quotes them.
var flinkReserved = setOf(strings.Fields(`
	ABS ALLOCATE ALTER ANY ARE ARRAY ARRAY_AGG ARRAY_MAX_CARDINALITY ASENSITIVE
	ASYMMETRIC AT ATOMIC AUTHORIZATION AVG BEGIN BEGIN_FRAME BEGIN_PARTITION
	BIGINT BINARY BIT BLOB BOOLEAN CALL CALLED CARDINALITY CASCADED CEIL CEILING
	CHAR CHAR_LENGTH CHARACTER CHARACTER_LENGTH CHECK CLASSIFIER CLOB CLOSE
	COALESCE COLLATE COLLECT COLUMN COMMIT CONDITION CONNECT CONSTRAINT CONTAINS
	CONVERT CORR CORRESPONDING COUNT COVAR_POP COVAR_SAMP CUBE CUME_DIST CURRENT
	CURRENT_CATALOG CURRENT_PATH CURRENT_ROLE CURRENT_ROW CURRENT_SCHEMA
	CURRENT_USER CURSOR CYCLE DAY DEALLOCATE DEC DECIMAL DECLARE DEFAULT DEFINE
	DELETE DENSE_RANK DEREF DESCRIBE DETERMINISTIC DISALLOW DISCONNECT DOUBLE
	DYNAMIC EACH ELEMENT EMPTY END_FRAME END_PARTITION EQUALS EVERY EXEC EXECUTE
	EXP EXPLAIN EXTEND EXTERNAL EXTRACT FETCH FIRST_VALUE FLOAT FLOOR FOREIGN
	FRAME_ROW FREE FUNCTION FUSION GET GLOBAL GRANT GROUPING GROUPS HOLD HOUR
	IDENTITY IMPORT INDICATOR INITIAL INOUT INSENSITIVE INT INTEGER INTERSECTION
	JSON_ARRAY JSON_ARRAYAGG JSON_EXISTS JSON_OBJECT JSON_OBJECTAGG JSON_QUERY
	JSON_VALUE LAG LANGUAGE LARGE LAST_VALUE LEAD LIKE_REGEX LN LOCAL LOWER MATCH
	MATCHES MATCH_NUMBER MATCH_RECOGNIZE MAX MEASURES MEMBER MERGE METHOD MIN
	MINUS MINUTE MOD MODIFIES MODULE MONTH MULTISET NATIONAL NCHAR NCLOB NEW
	NEXT NO NONE NORMALIZE NTH_VALUE NTILE NULLIF NUMERIC OCCURRENCES_REGEX
	OCTET_LENGTH OF OFFSET OLD OMIT ONE ONLY OPEN OUT OVERLAPS OVERLAY PARAMETER
	PARTITION PATTERN PER PERCENT PERCENTILE_CONT PERCENTILE_DISC PERCENT_RANK
	PERIOD PERMUTE PORTION POSITION POSITION_REGEX POWER PRECEDES PRECISION
	PREPARE PREV PRIMARY PROCEDURE RANGE RANK RAW READS REAL RECURSIVE REF
	REFERENCES REFERENCING REGR_AVGX REGR_AVGY REGR_COUNT REGR_INTERCEPT
	REGR_R2 REGR_SLOPE REGR_SXX REGR_SXY REGR_SYY RELEASE RESET RESULT RETURN
	RETURNS REVOKE ROLLBACK ROLLUP ROW ROWS ROW_NUMBER RUNNING SAVEPOINT SCOPE
	SCROLL SEARCH SECOND SEEK SENSITIVE SESSION_USER SET SHOW SIMILAR SKIP
	SMALLINT SOME SPECIFIC SPECIFICTYPE SQL SQLEXCEPTION SQLSTATE SQLWARNING
	SQRT START STATEMENT STATIC STDDEV_POP STDDEV_SAMP STREAM SUBMULTISET SUBSET
	SUBSTRING SUBSTRING_REGEX SUCCEEDS SUM SYMMETRIC SYSTEM SYSTEM_TIME
	SYSTEM_USER TABLESAMPLE TIMEZONE_HOUR TIMEZONE_MINUTE TINYINT TO TRANSLATE
	TRANSLATE_REGEX TRANSLATION TREAT TRIGGER TRIM TRIM_ARRAY TRUNCATE UESCAPE
	UNIQUE UNKNOWN UPDATE UPPER UPSERT USER VALUE VALUE_OF VARBINARY VARCHAR
	VAR_POP VAR_SAMP VARYING VERSIONING WHENEVER WIDTH_BUCKET WITHIN WITHOUT YEAR
	BYTES STRING TIMESTAMP_LTZ DESCRIPTOR UNBOUNDED
`)...)

func isPlainWord(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func joinIdents(parts []string) string {
	q := make([]string, len(parts))
	for i, s := range parts {
		q[i] = quoteIdent(s)
	}
	return strings.Join(q, ".")
}

func joinNodes[T Node](nodes []T) string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = n.String()
	}
	return strings.Join(s, ", ")
}

func identList(ids []*Ident) string { return "(" + joinNodes(ids) + ")" }

func aliasSuffix(a string) string {
	if a == "" {
		return ""
	}
	return " AS " + quoteIdent(a)
}

func (n *CreateTable) String() string {
	var b strings.Builder
	b.WriteString("CREATE ")
	if n.Temporary {
		b.WriteString("TEMPORARY ")
	}
	b.WriteString("TABLE ")
	if n.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(n.Name.String())
	var elems []string
	for _, c := range n.Columns {
		elems = append(elems, c.String())
	}
	if n.Watermark != nil {
		elems = append(elems, n.Watermark.String())
	}
	if n.PrimaryKey != nil {
		elems = append(elems, n.PrimaryKey.String())
	}
	if len(elems) > 0 || n.Like == nil {
		b.WriteString(" (" + strings.Join(elems, ", ") + ")")
	}
	if n.Comment != nil {
		b.WriteString(" COMMENT " + n.Comment.String())
	}
	if len(n.PartitionBy) > 0 {
		b.WriteString(" PARTITIONED BY " + identList(n.PartitionBy))
	}
	if len(n.Options) > 0 {
		b.WriteString(" WITH (" + joinNodes(n.Options) + ")")
	}
	if n.Like != nil {
		b.WriteString(" " + n.Like.String())
	}
	return b.String()
}

func (n *ColumnDef) String() string {
	s := quoteIdent(n.Name)
	if n.Expr != nil {
		s += " AS " + n.Expr.String()
	} else if n.Type != nil {
		s += " " + n.Type.String()
	}
	if n.Metadata {
		s += " METADATA"
		if n.MetadataKey != nil {
			s += " FROM " + n.MetadataKey.String()
		}
		if n.Virtual {
			s += " VIRTUAL"
		}
	}
	if n.PrimaryKey {
		s += " PRIMARY KEY NOT ENFORCED"
	}
	if n.Comment != nil {
		s += " COMMENT " + n.Comment.String()
	}
	return s
}

func (n *Watermark) String() string {
	return "WATERMARK FOR " + n.Column.String() + " AS " + n.Expr.String()
}

func (n *PrimaryKey) String() string {
	s := ""
	if n.Constraint != "" {
		s = "CONSTRAINT " + quoteIdent(n.Constraint) + " "
	}
	return s + "PRIMARY KEY " + identList(n.Columns) + " NOT ENFORCED"
}

func (n *Option) String() string { return quoteString(n.Key) + " = " + quoteString(n.Value) }

func (n *CreateView) String() string {
	s := "CREATE "
	if n.Temporary {
		s += "TEMPORARY "
	}
	s += "VIEW "
	if n.IfNotExists {
		s += "IF NOT EXISTS "
	}
	s += n.Name.String()
	if len(n.Columns) > 0 {
		s += " " + identList(n.Columns)
	}
	return s + " AS " + n.Query.String()
}

func (n *CreateFunction) String() string {
	s := "CREATE "
	if n.Temporary {
		s += "TEMPORARY "
	}
	if n.System {
		s += "SYSTEM "
	}
	s += "FUNCTION "
	if n.IfNotExists {
		s += "IF NOT EXISTS "
	}
	s += n.Name.String() + " AS " + n.Class.String()
	if n.Language != "" {
		s += " LANGUAGE " + quoteIdent(n.Language)
	}
	return s
}

func (n *Insert) String() string {
	s := "INSERT INTO "
	if n.Overwrite {
		s = "INSERT OVERWRITE "
	}
	s += n.Table.String() + hintsSuffix(n.Hints)
	if len(n.Columns) > 0 {
		s += " " + identList(n.Columns)
	}
	return s + " " + n.Query.String()
}

func (n *Set) String() string {
	if n.Option == nil {
		return "SET"
	}
	return "SET " + n.Option.String()
}

func (n *Reset) String() string {
	if n.Key == nil {
		return "RESET"
	}
	return "RESET " + n.Key.String()
}

func (n *Explain) String() string {
	if len(n.Details) == 0 {
		return "EXPLAIN " + n.Statement.String()
	}
	return "EXPLAIN " + joinNodes(n.Details) + " " + n.Statement.String()
}
func (n *ShowTables) String() string { return "SHOW TABLES" }
func (n *ShowViews) String() string  { return "SHOW VIEWS" }
func (n *Describe) String() string   { return "DESCRIBE " + n.Name.String() }

func (n *DropTable) String() string { return dropString("TABLE", n.Temporary, n.IfExists, n.Name) }
func (n *DropView) String() string  { return dropString("VIEW", n.Temporary, n.IfExists, n.Name) }

func (n *DropFunction) String() string {
	what := "FUNCTION"
	if n.System {
		what = "SYSTEM FUNCTION"
	}
	return dropString(what, n.Temporary, n.IfExists, n.Name)
}

func dropString(what string, temp, ifExists bool, name *Ident) string {
	s := "DROP "
	if temp {
		s += "TEMPORARY "
	}
	s += what + " "
	if ifExists {
		s += "IF EXISTS "
	}
	return s + name.String()
}

func withPrefix(with []*CTE) string {
	if len(with) == 0 {
		return ""
	}
	return "WITH " + joinNodes(with) + " "
}

func orderLimitSuffix(order []*OrderItem, limit Expr) string {
	s := ""
	if len(order) > 0 {
		s += " ORDER BY " + joinNodes(order)
	}
	if limit != nil {
		s += " LIMIT " + limit.String()
	}
	return s
}

func (n *Select) String() string {
	var b strings.Builder
	b.WriteString(withPrefix(n.With) + "SELECT ")
	if len(n.Hints) > 0 {
		b.WriteString(hintsSuffix(n.Hints)[1:] + " ")
	}
	if n.Distinct {
		b.WriteString("DISTINCT ")
	}
	b.WriteString(joinNodes(n.Items))
	if n.From != nil {
		b.WriteString(" FROM " + n.From.String())
	}
	if n.Where != nil {
		b.WriteString(" WHERE " + n.Where.String())
	}
	if len(n.GroupBy) > 0 {
		b.WriteString(" GROUP BY " + joinNodes(n.GroupBy))
	}
	if n.Having != nil {
		b.WriteString(" HAVING " + n.Having.String())
	}
	if len(n.Windows) > 0 {
		b.WriteString(" WINDOW " + joinNodes(n.Windows))
	}
	b.WriteString(orderLimitSuffix(n.OrderBy, n.Limit))
	return b.String()
}

func (n *SetOp) String() string {
	op := n.Op
	if n.All {
		op += " ALL"
	}
	return withPrefix(n.With) + setOperand(n.Left) + " " + op + " " + setOperand(n.Right) +
		orderLimitSuffix(n.OrderBy, n.Limit)
}

// setOperand parenthesises operands that would otherwise regroup: nested set
// operations and queries carrying their own WITH, ORDER BY or LIMIT.
func setOperand(q Query) string {
	o := outerOf(q)
	if _, ok := q.(*SetOp); ok || *o.with != nil || *o.order != nil || *o.limit != nil {
		return "(" + q.String() + ")"
	}
	return q.String()
}

func (n *Values) String() string {
	rows := make([]string, len(n.Rows))
	for i, r := range n.Rows {
		rows[i] = "(" + joinNodes(r) + ")"
	}
	return withPrefix(n.With) + "VALUES " + strings.Join(rows, ", ") + orderLimitSuffix(n.OrderBy, n.Limit)
}

func (n *CTE) String() string {
	s := quoteIdent(n.Name)
	if len(n.Columns) > 0 {
		s += " " + identList(n.Columns)
	}
	return s + " AS (" + n.Query.String() + ")"
}

func (n *SelectItem) String() string { return n.Expr.String() + aliasSuffix(n.Alias) }

func (n *OrderItem) String() string {
	s := n.Expr.String()
	if n.Desc {
		s += " DESC"
	}
	if n.Nulls != "" {
		s += " NULLS " + n.Nulls
	}
	return s
}

func (n *TableRef) String() string {
	s := n.Name.String() + hintsSuffix(n.Hints)
	if n.AsOf != nil {
		s += " FOR SYSTEM_TIME AS OF " + n.AsOf.String()
	}
	return s + aliasSuffix(n.Alias)
}

// hintsSuffix renders hints as one /*+ ... */ after a space, or nothing.
func hintsSuffix(hints []*Hint) string {
	if len(hints) == 0 {
		return ""
	}
	return " /*+ " + joinNodes(hints) + " */"
}

func (n *Hint) String() string {
	name := n.Name
	if !bare(name) {
		name = backquote(name)
	}
	if len(n.Options) == 0 {
		return name
	}
	return name + "(" + joinNodes(n.Options) + ")"
}

func (n *HintOption) String() string {
	if n.Key != nil {
		return n.Key.String() + " = " + n.Value.String()
	}
	return n.Value.String()
}

func (n *Subquery) String() string { return "(" + n.Query.String() + ")" + aliasSuffix(n.Alias) }

func (n *TableFunc) String() string {
	name := n.Name
	if !bare(name) {
		name = backquote(name)
	}
	return "TABLE(" + name + "(" + joinNodes(n.Args) + "))" + aliasSuffix(n.Alias)
}

func (n *TableFuncArg) String() string {
	s := ""
	if n.Name != "" {
		s = n.Name + " => "
		if !bare(n.Name) {
			s = backquote(n.Name) + " => "
		}
	}
	switch {
	case n.Table != nil:
		s += "TABLE " + n.Table.String()
		switch len(n.PartitionBy) {
		case 0:
		case 1:
			s += " PARTITION BY " + n.PartitionBy[0].String()
		default:
			s += " PARTITION BY (" + joinNodes(n.PartitionBy) + ")"
		}
	case n.Descriptor != nil:
		s += "DESCRIPTOR" + identList(n.Descriptor)
	case n.Expr != nil:
		s += n.Expr.String()
	}
	return s
}

func (n *Join) String() string {
	if n.Kind == JoinComma {
		return n.Left.String() + ", " + n.Right.String()
	}
	s := n.Left.String() + " " + string(n.Kind) + " " + n.Right.String()
	if n.On != nil {
		s += " ON " + n.On.String()
	}
	return s
}

func (n *Ident) String() string { return joinIdents(n.Parts) }

func (n *Star) String() string {
	if len(n.Qualifier) == 0 {
		return "*"
	}
	return joinIdents(n.Qualifier) + ".*"
}

func (n *NumberLit) String() string { return n.Text }
func (n *StringLit) String() string { return quoteString(n.Value) }

func (n *BoolLit) String() string {
	if n.Value {
		return "TRUE"
	}
	return "FALSE"
}

func (n *NullLit) String() string  { return "NULL" }
func (n *TypedLit) String() string { return n.Type + " " + quoteString(n.Value) }

func (n *IntervalLit) String() string {
	s := "INTERVAL " + quoteString(n.Value) + " " + n.Unit
	if n.ToUnit != "" {
		s += " TO " + n.ToUnit
	}
	return s
}

// prec is the binding power of e's outermost operator.
func prec(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		switch e.Op {
		case "OR":
			return precOr
		case "AND":
			return precAnd
		case "IS DISTINCT FROM", "IS NOT DISTINCT FROM":
			return precIs
		case "||":
			return precConcat
		case "+", "-":
			return precAdd
		case "*", "/", "%":
			return precMul
		}
		return precCmp
	case *Unary:
		if e.Op == "NOT" {
			return precNot
		}
		return precUnary
	case *IsNull, *IsBool:
		return precIs
	case *Between, *InList, *InQuery, *Like:
		return precLike
	}
	return precPrimary
}

// sub renders e, parenthesised if it binds looser than min.
func sub(e Expr, min int) string {
	if prec(e) < min {
		return "(" + e.String() + ")"
	}
	return e.String()
}

func (n *Unary) String() string {
	if n.Op == "NOT" {
		return "NOT " + sub(n.Expr, precNot)
	}
	// A nested sign would otherwise print as "--", a comment.
	if u, ok := n.Expr.(*Unary); ok && u.Op != "NOT" {
		return n.Op + "(" + u.String() + ")"
	}
	return n.Op + sub(n.Expr, precUnary)
}

// String renders a left-deep chain of one precedence (a OR b OR ...) in
// one pass along its left spine: rendering each level into a string
// would copy the text of every level below it.
func (n *Binary) String() string {
	p := prec(n)
	spine := []*Binary{n}
	for l, ok := n.Left.(*Binary); ok && prec(l) == p; l, ok = l.Left.(*Binary) {
		spine = append(spine, l)
	}
	var b strings.Builder
	b.WriteString(sub(spine[len(spine)-1].Left, p))
	for i := len(spine) - 1; i >= 0; i-- {
		b.WriteString(" " + spine[i].Op + " ")
		b.WriteString(sub(spine[i].Right, p+1))
	}
	return b.String()
}

// funcName renders a function name, back-quoting names that would otherwise
// read back as keywords or special forms.
func funcName(name string) string {
	if niladic[name] || name == "LEFT" || name == "RIGHT" {
		return name
	}
	if specialCalls[name] || !bare(name) {
		return backquote(name)
	}
	return name
}

func (n *Call) String() string {
	name := funcName(n.Name)
	switch n.Name {
	case "FLOOR", "CEIL", "CEILING":
		// These parse specially unless the call is plain.
		if n.Distinct || n.Star || n.Filter != nil || n.Over != nil {
			name = backquote(n.Name)
		}
	}
	var s string
	switch {
	case niladic[n.Name] && len(n.Args) == 0 && !n.Star && !n.Distinct:
		s = name
	case n.Star:
		s = name + "(*)"
	case n.Distinct:
		s = name + "(DISTINCT " + joinNodes(n.Args) + ")"
	default:
		s = name + "(" + joinNodes(n.Args) + ")"
	}
	if n.Filter != nil {
		s += " FILTER (WHERE " + n.Filter.String() + ")"
	}
	if n.Over != nil {
		s += " " + n.Over.String()
	}
	return s
}

func (n *NamedWindow) String() string {
	return quoteIdent(n.Name) + " AS " + strings.TrimPrefix(n.Window.String(), "OVER ")
}

func (n *Window) String() string {
	if n.Ref != "" {
		return "OVER " + quoteIdent(n.Ref)
	}
	var parts []string
	if len(n.PartitionBy) > 0 {
		parts = append(parts, "PARTITION BY "+joinNodes(n.PartitionBy))
	}
	if len(n.OrderBy) > 0 {
		parts = append(parts, "ORDER BY "+joinNodes(n.OrderBy))
	}
	if n.Frame != nil {
		parts = append(parts, n.Frame.String())
	}
	return "OVER (" + strings.Join(parts, " ") + ")"
}

func (n *Frame) String() string {
	s := "RANGE "
	if n.Rows {
		s = "ROWS "
	}
	if n.Hi == nil {
		return s + n.Lo.String()
	}
	return s + "BETWEEN " + n.Lo.String() + " AND " + n.Hi.String()
}

func (n *FrameBound) String() string {
	switch {
	case n.Kind == "CURRENT ROW":
		return n.Kind
	case n.Offset == nil:
		return "UNBOUNDED " + n.Kind
	}
	return sub(n.Offset, precConcat) + " " + n.Kind
}

func (n *Cast) String() string {
	name := "CAST"
	if n.Try {
		name = "TRY_CAST"
	}
	return name + "(" + n.Expr.String() + " AS " + n.Type.String() + ")"
}

func (n *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if n.Operand != nil {
		b.WriteString(" " + n.Operand.String())
	}
	for _, w := range n.Whens {
		b.WriteString(" " + w.String())
	}
	if n.Else != nil {
		b.WriteString(" ELSE " + n.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (n *When) String() string { return "WHEN " + n.Cond.String() + " THEN " + n.Result.String() }

func not(b bool) string {
	if b {
		return "NOT "
	}
	return ""
}

func (n *IsNull) String() string { return sub(n.Expr, precIs) + " IS " + not(n.Not) + "NULL" }

func (n *IsBool) String() string {
	v := "FALSE"
	if n.Value {
		v = "TRUE"
	}
	return sub(n.Expr, precIs) + " IS " + not(n.Not) + v
}

func (n *Between) String() string {
	s := sub(n.Expr, precLike) + " " + not(n.Not) + "BETWEEN "
	if n.Symmetric {
		s += "SYMMETRIC "
	}
	return s + sub(n.Lo, precConcat) + " AND " + sub(n.Hi, precConcat)
}

func (n *GroupingElement) String() string {
	list := "(" + joinNodes(n.Items) + ")"
	switch n.Kind {
	case "":
		return list
	case "GROUPING SETS":
		return "GROUPING SETS " + list
	}
	return n.Kind + list
}

func (n *InList) String() string {
	return sub(n.Expr, precLike) + " " + not(n.Not) + "IN (" + joinNodes(n.List) + ")"
}

func (n *InQuery) String() string {
	return sub(n.Expr, precLike) + " " + not(n.Not) + "IN (" + n.Query.String() + ")"
}

func (n *Exists) String() string      { return "EXISTS (" + n.Query.String() + ")" }
func (n *ScalarQuery) String() string { return "(" + n.Query.String() + ")" }

func (n *Like) String() string {
	s := sub(n.Expr, precLike) + " " + not(n.Not) + "LIKE " + sub(n.Pattern, precConcat)
	if n.Escape != nil {
		s += " ESCAPE " + sub(n.Escape, precConcat)
	}
	return s
}

func (n *Extract) String() string { return "EXTRACT(" + n.Unit + " FROM " + n.Expr.String() + ")" }

func (n *FloorCeil) String() string {
	name := "FLOOR("
	if n.Ceil {
		name = "CEIL("
	}
	e := n.Expr.String()
	// An operand ending in an interval ("x + INTERVAL '1' DAY TO HOUR")
	// would read back with the TO inside the interval literal.
	if _, ok := n.Expr.(*IntervalLit); ok || prec(n.Expr) < precPrimary {
		e = "(" + e + ")"
	}
	return name + e + " TO " + n.Unit + ")"
}

func (n *Substring) String() string {
	s := "SUBSTRING(" + n.Expr.String() + " FROM " + n.From.String()
	if n.For != nil {
		s += " FOR " + n.For.String()
	}
	return s + ")"
}

func (n *Trim) String() string {
	if n.Side == "" && n.Chars == nil {
		return "TRIM(" + n.Expr.String() + ")"
	}
	s := "TRIM("
	if n.Side != "" {
		s += n.Side + " "
	}
	if n.Chars != nil {
		s += n.Chars.String() + " "
	}
	return s + "FROM " + n.Expr.String() + ")"
}

func (n *Position) String() string {
	return "POSITION(" + sub(n.Substr, precConcat) + " IN " + n.Expr.String() + ")"
}

func (n *TypeName) String() string {
	var b strings.Builder
	b.WriteString(n.Name)
	switch {
	case len(n.Elems) > 0:
		b.WriteString("<" + joinNodes(n.Elems) + ">")
	case n.Name == "ROW":
		b.WriteString("<" + joinNodes(n.Fields) + ">")
	case len(n.Args) > 0:
		args := make([]string, len(n.Args))
		for i, a := range n.Args {
			args[i] = strconv.Itoa(a)
		}
		b.WriteString("(" + strings.Join(args, ", ") + ")")
	}
	if n.NotNull {
		b.WriteString(" NOT NULL")
	}
	return b.String()
}

func (n *Field) String() string {
	s := quoteIdent(n.Name) + " " + n.Type.String()
	if n.Comment != nil {
		s += " COMMENT " + n.Comment.String()
	}
	return s
}
