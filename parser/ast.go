package parser

import "fmt"

// Pos is the location of a node's first token in the source text.
type Pos struct {
	Offset int // byte offset, 0-based
	Line   int // 1-based
	Column int // 1-based, counted in runes
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Column) }

// Node is any element of the syntax tree.
type Node interface {
	Pos() Pos
	// String renders canonical SQL that parses back to an equal tree.
	String() string
}

// Statement is a top-level SQL statement.
type Statement interface {
	Node
	statement()
}

// Expr is a scalar expression.
type Expr interface {
	Node
	expr()
}

// Query is a relational query: *Select, *SetOp or *Values. Every Query is also
// a Statement, so a bare query is returned as itself.
type Query interface {
	Statement
	query()
}

// TableExpr is an element of a FROM clause: *TableRef, *Subquery,
// *TableFunc or *Join.
type TableExpr interface {
	Node
	tableExpr()
}

// ---- Statements ----

// CreateTable is CREATE [TEMPORARY] TABLE.
type CreateTable struct {
	Start       Pos
	Temporary   bool
	IfNotExists bool
	Name        *Ident
	Columns     []*ColumnDef
	Watermark   *Watermark  // nil if absent
	PrimaryKey  *PrimaryKey // nil if absent; a column-level key is set on its ColumnDef
	Comment     *StringLit  // nil if absent
	PartitionBy []*Ident    // PARTITIONED BY (cols)
	Options     []*Option   // the WITH clause
	Like        *TableLike  // nil if absent
}

// ColumnDef is a physical column (Type set), a metadata column (Type set
// and Metadata true) or a computed column (Expr set). Start is the position
// of the column name.
type ColumnDef struct {
	Start       Pos
	Name        string
	Type        *TypeName
	Expr        Expr
	Metadata    bool       // METADATA [FROM MetadataKey] [VIRTUAL]
	MetadataKey *StringLit // nil when the key is the column name
	Virtual     bool
	PrimaryKey  bool // column-level PRIMARY KEY NOT ENFORCED
	Comment     *StringLit
}

// Watermark is WATERMARK FOR Column AS Expr.
type Watermark struct {
	Start  Pos
	Column *Ident
	Expr   Expr
}

// PrimaryKey is [CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED.
type PrimaryKey struct {
	Start      Pos
	Constraint string // optional constraint name
	Columns    []*Ident
}

// Option is a 'key' = 'value' pair of a WITH clause or a SET statement.
// Start is the position of the key; ValuePos that of the value.
type Option struct {
	Start    Pos
	Key      string
	Value    string
	ValuePos Pos
}

// CreateView is CREATE [TEMPORARY] VIEW.
type CreateView struct {
	Start       Pos
	Temporary   bool
	IfNotExists bool
	Name        *Ident
	Columns     []*Ident // optional column names
	Query       Query
}

// CreateFunction is CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS]
// name AS 'class' [LANGUAGE lang].
type CreateFunction struct {
	Start       Pos
	Temporary   bool
	System      bool
	IfNotExists bool
	Name        *Ident
	Class       *StringLit
	Language    string // upper-case; "" if absent
}

// Insert is INSERT INTO|OVERWRITE table [(cols)] query.
type Insert struct {
	Start     Pos
	Overwrite bool
	Table     *Ident
	Hints     []*Hint // INSERT INTO t /*+ ... */
	Columns   []*Ident
	Query     Query
}

// Set is SET 'key' = 'value', or a bare SET (Option nil) listing all options.
type Set struct {
	Start  Pos
	Option *Option
}

// Reset is RESET 'key', or a bare RESET (Key nil) resetting all options.
type Reset struct {
	Start Pos
	Key   *StringLit
}

// Explain is EXPLAIN [PLAN FOR] statement, or EXPLAIN detail[, detail]*
// statement with Flink's explain details (CHANGELOG_MODE, ESTIMATED_COST,
// JSON_EXECUTION_PLAN, PLAN_ADVICE), which the planner accepts or refuses.
type Explain struct {
	Start     Pos
	Details   []*Ident
	Statement Statement
}

// ShowTables is SHOW TABLES.
type ShowTables struct{ Start Pos }

// ShowViews is SHOW VIEWS.
type ShowViews struct{ Start Pos }

// Describe is DESCRIBE name or DESC name.
type Describe struct {
	Start Pos
	Name  *Ident
}

// DropTable is DROP [TEMPORARY] TABLE [IF EXISTS] name.
type DropTable struct {
	Start     Pos
	Temporary bool
	IfExists  bool
	Name      *Ident
}

// DropView is DROP [TEMPORARY] VIEW [IF EXISTS] name.
type DropView struct {
	Start     Pos
	Temporary bool
	IfExists  bool
	Name      *Ident
}

// DropFunction is DROP [TEMPORARY [SYSTEM]] FUNCTION [IF EXISTS] name.
type DropFunction struct {
	Start     Pos
	Temporary bool
	System    bool
	IfExists  bool
	Name      *Ident
}

// ---- Queries ----

// Select is one SELECT block together with the WITH, ORDER BY and LIMIT
// clauses that wrap it when it is not part of a set operation.
type Select struct {
	Start    Pos
	With     []*CTE
	Hints    []*Hint // SELECT /*+ ... */
	Distinct bool
	Items    []*SelectItem
	From     TableExpr // nil for SELECT without FROM
	Where    Expr
	GroupBy  []Expr
	Having   Expr
	// Windows are the WINDOW clause's named windows, in order.
	Windows []*NamedWindow
	OrderBy []*OrderItem
	Limit   Expr
}

// NamedWindow is one WINDOW name AS (...) definition.
type NamedWindow struct {
	Start  Pos
	Name   string
	Window *Window
}

// SetOp combines two queries: UNION, INTERSECT or EXCEPT. With, OrderBy and
// Limit apply to the combined result.
type SetOp struct {
	Start   Pos
	With    []*CTE
	Op      string // "UNION", "INTERSECT" or "EXCEPT"
	All     bool
	OpPos   Pos
	Left    Query
	Right   Query
	OrderBy []*OrderItem
	Limit   Expr
}

// Values is VALUES (row), (row), ...
type Values struct {
	Start   Pos
	With    []*CTE
	Rows    [][]Expr
	OrderBy []*OrderItem
	Limit   Expr
}

// CTE is one "name [(cols)] AS (query)" of a WITH clause.
type CTE struct {
	Start   Pos
	Name    string
	Columns []*Ident
	Query   Query
}

// SelectItem is expr [AS alias]; Expr is a *Star for * and t.*.
type SelectItem struct {
	Start Pos
	Expr  Expr
	Alias string
}

// OrderItem is expr [ASC|DESC] [NULLS FIRST|LAST].
type OrderItem struct {
	Start Pos
	Expr  Expr
	Desc  bool
	Nulls string // "", "FIRST" or "LAST"
}

// ---- FROM clause ----

// TableRef is a named table or view; AsOf is the time of a temporal join,
// FOR SYSTEM_TIME AS OF AsOf.
type TableRef struct {
	Start Pos
	Name  *Ident
	Hints []*Hint // t /*+ ... */, before AsOf and Alias
	AsOf  Expr
	Alias string
}

// Hint is one item of a /*+ ... */ after SELECT (a query hint) or after a
// table name (a table hint): NAME, or NAME(options). Start is the position
// of the name.
type Hint struct {
	Start   Pos
	Name    string // upper-case
	Options []*HintOption
}

// HintOption is one option of a Hint: a name, a string or a number
// (BROADCAST(t), UID('x')), or a key-value pair Key = Value
// (OPTIONS('k' = 'v')).
type HintOption struct {
	Start Pos
	Key   Expr // *Ident or *StringLit; nil unless a key-value pair
	Value Expr // *Ident, *StringLit or *NumberLit; a *StringLit when Key is set
}

// Subquery is a derived table: (query) [AS] alias.
type Subquery struct {
	Start Pos
	Query Query
	Alias string
}

// TableFunc is TABLE(name(args)) [AS alias], e.g. the TUMBLE, HOP, CUMULATE
// and SESSION window table functions.
type TableFunc struct {
	Start Pos
	Name  string // upper-case
	Args  []*TableFuncArg
	Alias string
}

// TableFuncArg is one argument of a table function. Exactly one of Table,
// Descriptor and Expr is set.
type TableFuncArg struct {
	Start       Pos
	Name        string   // upper-cased name of a named argument (DATA => ...), or ""
	Table       *Ident   // TABLE name
	PartitionBy []Expr   // TABLE name PARTITION BY ...
	Descriptor  []*Ident // DESCRIPTOR(col, ...)
	Expr        Expr
}

// JoinKind says how a Join combines its inputs.
type JoinKind string

// The join kinds. JoinComma is the implicit cross join "FROM a, b".
const (
	JoinInner JoinKind = "JOIN"
	JoinLeft  JoinKind = "LEFT JOIN"
	JoinRight JoinKind = "RIGHT JOIN"
	JoinFull  JoinKind = "FULL JOIN"
	JoinCross JoinKind = "CROSS JOIN"
	JoinComma JoinKind = ","
)

// Join is Left Kind Right [ON On].
type Join struct {
	Start   Pos
	Kind    JoinKind
	KindPos Pos
	Left    TableExpr
	Right   TableExpr
	On      Expr // nil for cross and comma joins
}

// ---- Expressions ----

// Ident is a possibly qualified name: a column (c, t.c), a table (cat.db.t).
// Parts keep their case as written; back-quotes are removed.
type Ident struct {
	Start Pos
	Parts []string
}

// Star is * or qualifier.* in a select list.
type Star struct {
	Start     Pos
	Qualifier []string
}

// NumberLit is a numeric literal, kept as written: 1, 1.5, 1e3.
type NumberLit struct {
	Start Pos
	Text  string
}

// StringLit is a character string literal, unescaped.
type StringLit struct {
	Start Pos
	Value string
}

// BoolLit is TRUE or FALSE.
type BoolLit struct {
	Start Pos
	Value bool
}

// NullLit is NULL.
type NullLit struct{ Start Pos }

// TypedLit is DATE '...', TIME '...' or TIMESTAMP '...'.
type TypedLit struct {
	Start Pos
	Type  string // "DATE", "TIME" or "TIMESTAMP"
	Value string
}

// IntervalLit is INTERVAL 'value' Unit [TO ToUnit]. Units are canonical
// singular upper-case: YEAR, MONTH, DAY, HOUR, MINUTE, SECOND.
type IntervalLit struct {
	Start  Pos
	Value  string
	Unit   string
	ToUnit string
}

// Unary is a prefix operator: "-", "+" or "NOT".
type Unary struct {
	Start Pos
	Op    string
	Expr  Expr
}

// Binary is Left Op Right. Op is one of OR AND = <> < <= > >= || + - * / %.
type Binary struct {
	Start Pos // of Left
	OpPos Pos
	Op    string
	Left  Expr
	Right Expr
}

// Call is a function call. Name is upper-case. Star marks f(*); Filter is the
// FILTER (WHERE ...) condition of an aggregate; Over its OVER window.
// Niladic keywords such as CURRENT_TIMESTAMP are calls without arguments.
type Call struct {
	Start    Pos
	Name     string
	Args     []Expr
	Distinct bool
	Star     bool
	Filter   Expr
	Over     *Window
}

// Window is the OVER (...) clause of a call, or, with Ref, OVER name: a
// window of the query's WINDOW clause.
type Window struct {
	Start       Pos
	Ref         string
	PartitionBy []Expr
	OrderBy     []*OrderItem
	Frame       *Frame
}

// Frame is ROWS|RANGE BETWEEN Lo AND Hi; a frame with one bound has Hi nil.
type Frame struct {
	Start Pos
	Rows  bool // ROWS, else RANGE
	Lo    *FrameBound
	Hi    *FrameBound
}

// FrameBound is UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW, or
// Offset PRECEDING|FOLLOWING.
type FrameBound struct {
	Start  Pos
	Kind   string // "PRECEDING", "FOLLOWING" or "CURRENT ROW"
	Offset Expr   // nil for UNBOUNDED and CURRENT ROW
}

// GroupingElement is an element of GROUP BY other than an expression:
// GROUPING SETS (...), ROLLUP(...), CUBE(...), or a parenthesised list of
// expressions, (a, b), or the empty grouping set (). Kind is "GROUPING
// SETS", "ROLLUP", "CUBE", or "" for a list. The items of GROUPING SETS
// are expressions and grouping elements; those of ROLLUP and CUBE
// expressions and lists; those of a list expressions. A parenthesised
// single expression, (a), is that expression.
type GroupingElement struct {
	Start Pos
	Kind  string
	Items []Expr
}

// Cast is CAST(Expr AS Type), or TRY_CAST when Try.
type Cast struct {
	Start Pos
	Expr  Expr
	Type  *TypeName
	Try   bool
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE Else] END.
type Case struct {
	Start   Pos
	Operand Expr
	Whens   []*When
	Else    Expr
}

// When is one WHEN Cond THEN Result arm of a Case.
type When struct {
	Start  Pos
	Cond   Expr
	Result Expr
}

// IsNull is Expr IS [NOT] NULL.
type IsNull struct {
	Start Pos
	Expr  Expr
	Not   bool
}

// IsBool is Expr IS [NOT] TRUE|FALSE.
type IsBool struct {
	Start Pos
	Expr  Expr
	Not   bool
	Value bool
}

// Between is Expr [NOT] BETWEEN [SYMMETRIC] Lo AND Hi.
type Between struct {
	Start     Pos
	Expr      Expr
	Not       bool
	Symmetric bool
	Lo        Expr
	Hi        Expr
}

// InList is Expr [NOT] IN (List).
type InList struct {
	Start Pos
	Expr  Expr
	Not   bool
	List  []Expr
}

// InQuery is Expr [NOT] IN (query).
type InQuery struct {
	Start Pos
	Expr  Expr
	Not   bool
	Query Query
}

// Exists is EXISTS (query).
type Exists struct {
	Start Pos
	Query Query
}

// ScalarQuery is a parenthesised query used as a value.
type ScalarQuery struct {
	Start Pos
	Query Query
}

// Like is Expr [NOT] LIKE Pattern [ESCAPE Escape].
type Like struct {
	Start   Pos
	Expr    Expr
	Not     bool
	Pattern Expr
	Escape  Expr
}

// Extract is EXTRACT(Unit FROM Expr).
type Extract struct {
	Start Pos
	Unit  string
	Expr  Expr
}

// FloorCeil is FLOOR(Expr TO Unit) or CEIL(Expr TO Unit). Without TO, FLOOR
// and CEIL are plain calls.
type FloorCeil struct {
	Start Pos
	Ceil  bool
	Expr  Expr
	Unit  string
}

// Substring is SUBSTRING(Expr FROM From [FOR For]); the comma form
// SUBSTRING(s, i[, n]) parses to the same node.
type Substring struct {
	Start Pos
	Expr  Expr
	From  Expr
	For   Expr
}

// Trim is TRIM([Side] [Chars] FROM Expr), or TRIM(Expr).
type Trim struct {
	Start Pos
	Side  string // "", "BOTH", "LEADING" or "TRAILING"
	Chars Expr
	Expr  Expr
}

// Position is POSITION(Substr IN Expr).
type Position struct {
	Start  Pos
	Substr Expr
	Expr   Expr
}

// ---- Types ----

// TypeName is a data type as written, with a canonical Name: BOOLEAN,
// TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, STRING, VARCHAR,
// CHAR, BINARY, VARBINARY, BYTES, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ,
// ARRAY, MULTISET, MAP or ROW.
type TypeName struct {
	Start   Pos
	Name    string
	Args    []int       // length, precision and scale as written
	Elems   []*TypeName // ARRAY<T>, MULTISET<T>, MAP<K, V>
	Fields  []*Field    // ROW<name T, ...>
	NotNull bool
}

// Field is one field of a ROW type.
type Field struct {
	Start   Pos
	Name    string
	Type    *TypeName
	Comment *StringLit
}

func (n *CreateTable) Pos() Pos     { return n.Start }
func (n *ColumnDef) Pos() Pos       { return n.Start }
func (n *Watermark) Pos() Pos       { return n.Start }
func (n *PrimaryKey) Pos() Pos      { return n.Start }
func (n *Option) Pos() Pos          { return n.Start }
func (n *CreateView) Pos() Pos      { return n.Start }
func (n *Insert) Pos() Pos          { return n.Start }
func (n *CreateFunction) Pos() Pos  { return n.Start }
func (n *Set) Pos() Pos             { return n.Start }
func (n *Reset) Pos() Pos           { return n.Start }
func (n *Explain) Pos() Pos         { return n.Start }
func (n *ShowTables) Pos() Pos      { return n.Start }
func (n *ShowViews) Pos() Pos       { return n.Start }
func (n *Describe) Pos() Pos        { return n.Start }
func (n *DropTable) Pos() Pos       { return n.Start }
func (n *DropView) Pos() Pos        { return n.Start }
func (n *DropFunction) Pos() Pos    { return n.Start }
func (n *Select) Pos() Pos          { return n.Start }
func (n *SetOp) Pos() Pos           { return n.Start }
func (n *Values) Pos() Pos          { return n.Start }
func (n *CTE) Pos() Pos             { return n.Start }
func (n *SelectItem) Pos() Pos      { return n.Start }
func (n *OrderItem) Pos() Pos       { return n.Start }
func (n *TableRef) Pos() Pos        { return n.Start }
func (n *Hint) Pos() Pos            { return n.Start }
func (n *HintOption) Pos() Pos      { return n.Start }
func (n *Subquery) Pos() Pos        { return n.Start }
func (n *TableFunc) Pos() Pos       { return n.Start }
func (n *TableFuncArg) Pos() Pos    { return n.Start }
func (n *Join) Pos() Pos            { return n.Start }
func (n *Ident) Pos() Pos           { return n.Start }
func (n *Star) Pos() Pos            { return n.Start }
func (n *NumberLit) Pos() Pos       { return n.Start }
func (n *StringLit) Pos() Pos       { return n.Start }
func (n *BoolLit) Pos() Pos         { return n.Start }
func (n *NullLit) Pos() Pos         { return n.Start }
func (n *TypedLit) Pos() Pos        { return n.Start }
func (n *IntervalLit) Pos() Pos     { return n.Start }
func (n *Unary) Pos() Pos           { return n.Start }
func (n *Binary) Pos() Pos          { return n.Start }
func (n *Call) Pos() Pos            { return n.Start }
func (n *Window) Pos() Pos          { return n.Start }
func (n *Frame) Pos() Pos           { return n.Start }
func (n *FrameBound) Pos() Pos      { return n.Start }
func (n *GroupingElement) Pos() Pos { return n.Start }
func (n *Cast) Pos() Pos            { return n.Start }
func (n *Case) Pos() Pos            { return n.Start }
func (n *When) Pos() Pos            { return n.Start }
func (n *IsNull) Pos() Pos          { return n.Start }
func (n *IsBool) Pos() Pos          { return n.Start }
func (n *Between) Pos() Pos         { return n.Start }
func (n *InList) Pos() Pos          { return n.Start }
func (n *InQuery) Pos() Pos         { return n.Start }
func (n *Exists) Pos() Pos          { return n.Start }
func (n *ScalarQuery) Pos() Pos     { return n.Start }
func (n *Like) Pos() Pos            { return n.Start }
func (n *Extract) Pos() Pos         { return n.Start }
func (n *FloorCeil) Pos() Pos       { return n.Start }
func (n *Substring) Pos() Pos       { return n.Start }
func (n *Trim) Pos() Pos            { return n.Start }
func (n *Position) Pos() Pos        { return n.Start }
func (n *TypeName) Pos() Pos        { return n.Start }
func (n *Field) Pos() Pos           { return n.Start }
func (n *NamedWindow) Pos() Pos     { return n.Start }

func (*CreateTable) statement()    {}
func (*CreateView) statement()     {}
func (*Insert) statement()         {}
func (*CreateFunction) statement() {}
func (*Set) statement()            {}
func (*Reset) statement()          {}
func (*Explain) statement()        {}
func (*ShowTables) statement()     {}
func (*ShowViews) statement()      {}
func (*Describe) statement()       {}
func (*DropTable) statement()      {}
func (*DropView) statement()       {}
func (*DropFunction) statement()   {}
func (*Select) statement()         {}
func (*SetOp) statement()          {}
func (*Values) statement()         {}

func (*Select) query() {}
func (*SetOp) query()  {}
func (*Values) query() {}

// outer gives access to the clauses every Query node carries.
type outer struct {
	start *Pos
	with  *[]*CTE
	order *[]*OrderItem
	limit *Expr
}

func outerOf(q Query) outer {
	switch q := q.(type) {
	case *Select:
		return outer{&q.Start, &q.With, &q.OrderBy, &q.Limit}
	case *SetOp:
		return outer{&q.Start, &q.With, &q.OrderBy, &q.Limit}
	case *Values:
		return outer{&q.Start, &q.With, &q.OrderBy, &q.Limit}
	}
	return outer{new(Pos), new([]*CTE), new([]*OrderItem), new(Expr)}
}

func (*TableRef) tableExpr()  {}
func (*Subquery) tableExpr()  {}
func (*TableFunc) tableExpr() {}
func (*Join) tableExpr()      {}

func (*Ident) expr()           {}
func (*Star) expr()            {}
func (*NumberLit) expr()       {}
func (*StringLit) expr()       {}
func (*BoolLit) expr()         {}
func (*NullLit) expr()         {}
func (*TypedLit) expr()        {}
func (*IntervalLit) expr()     {}
func (*Unary) expr()           {}
func (*Binary) expr()          {}
func (*Call) expr()            {}
func (*GroupingElement) expr() {}
func (*Cast) expr()            {}
func (*Case) expr()            {}
func (*IsNull) expr()          {}
func (*IsBool) expr()          {}
func (*Between) expr()         {}
func (*InList) expr()          {}
func (*InQuery) expr()         {}
func (*Exists) expr()          {}
func (*ScalarQuery) expr()     {}
func (*Like) expr()            {}
func (*Extract) expr()         {}
func (*FloorCeil) expr()       {}
func (*Substring) expr()       {}
func (*Trim) expr()            {}
func (*Position) expr()        {}
