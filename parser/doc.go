// Package parser turns Flink-dialect SQL text into a syntax tree.
//
// # Entry points
//
// Parse reads a list of statements separated by semicolons (a trailing
// semicolon is optional, empty statements are skipped); ParseExpr reads one
// scalar expression. Both return *Error on bad input, never panic, and reject
// nesting deeper than 1000 levels so that recursive passes over the tree stay
// bounded. A flat chain of binary operators (a = 1 OR a = 2 OR ...) is not
// nesting: it may have up to 100000 terms, and String renders it along its
// left spine in linear time.
//
// # Grammar approach
//
// Tokens come from participle's lexer (lexer.MustSimple): words, back-quoted
// identifiers and single-quoted strings (in both, a doubled quote character
// stands for one), numbers and operators; white space, -- line comments and
// /* */ block comments are dropped. Block comments do not nest: the first */
// ends one. A hint, /*+ ... */, is not a comment but one token whose
// contents are lexed in turn (see Hints). Unterminated literals, comments
// and hints and stray characters become error tokens, reported where the
// parser reaches them.
//
// The grammar itself is a hand-written recursive-descent parser over those
// tokens, with precedence climbing for expressions, rather than participle's
// struct-tag grammars. Three needs decided it. SQL keywords double as column
// names (window_start, url, second, watermark), and only the surrounding
// context says which reading applies; here that is a one-token lookahead.
// Error messages must say what was expected in words a user knows
// (`unexpected "t", expecting ",", FROM, WHERE ...`), so the parser records
// every alternative it tries at the current token. And the tree should be the
// clean node types below, not grammar structs converted after the fact.
//
// Keywords are case-insensitive. Only a small set of words is reserved (see
// reserved in expr.go): those that would make the grammar ambiguous as names,
// such as FROM, JOIN, ON, AND, CASE, DATE, TIMESTAMP and INTERVAL. All other
// keywords (SECOND, TABLES, WATERMARK, DATA, ...) are recognised by position
// and remain usable as plain identifiers. Reserved words and any name that is
// not a plain ASCII word can always be written back-quoted, as in Flink.
// Identifiers keep the case they were written in; function names, type names,
// units and named table-function arguments are upper-cased.
//
// Operator precedence, loosest first, follows Calcite (Flink's parser):
//
//	OR
//	AND
//	NOT
//	IS [NOT] NULL|TRUE|FALSE|UNKNOWN, IS [NOT] DISTINCT FROM
//	= <> != < <= > >=
//	[NOT] BETWEEN, [NOT] IN, [NOT] LIKE
//	||
//	+ -
//	* / %
//	unary + -
//
// Binary operators associate to the left. BETWEEN bounds and LIKE patterns
// bind at || level, so "a BETWEEN 1 AND 2 AND b" groups as expected.
//
// # Syntax tree
//
// A parse yields Statements: *CreateTable, *CreateView, *CreateFunction,
// *Insert, *Set, *Reset, *Explain, *ShowTables, *ShowViews, *Describe,
// *DropTable, *DropView, *DropFunction, and the Query nodes *Select, *SetOp and *Values,
// which are statements by themselves. WITH, ORDER BY and LIMIT are stored on
// the outermost query node they apply to, so the common single SELECT is one
// node. FROM clauses hold TableExprs: *TableRef, *Subquery, *TableFunc
// (TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) and the other
// window functions) and *Join. Scalar expressions are Exprs; parentheses are
// not kept as nodes, and special syntaxes get their own node (*Cast,
// *Extract, *FloorCeil, *Substring, *Trim, *Position, ...). Data types are
// *TypeName with a canonical upper-case name (INTEGER becomes INT, TIMESTAMP
// WITH LOCAL TIME ZONE becomes TIMESTAMP_LTZ, ...); literals keep their text
// (*NumberLit) or unescaped value, and intervals keep value and units
// unconverted. The parser checks syntax only: names, types and semantics
// are the planner's. Children and Inspect walk the tree.
//
// Nested values (nested.go): x[i] (*Subscript), (x).f and x[i].f (*Dot;
// a dotted name a.b.c stays one *Ident, which the planner resolves),
// ARRAY[...] and MAP[...] (*Constructor); ROW(...) is a *Call. ROW<...>,
// ROW(...), ARRAY<t> and MAP<k, v> types are *TypeName with Fields or
// Elems.
//
// A few Flink forms beyond the core are parsed for the planner to accept or
// reject: PARTITIONED BY, METADATA columns, FOR SYSTEM_TIME AS OF, OVER
// windows, joins, subqueries, CREATE FUNCTION, and hints.
//
// GROUP BY holds expressions and *GroupingElement: GROUPING SETS (...),
// ROLLUP(...), CUBE(...), a parenthesised list (a, b) and (), as in
// Calcite's grammar. A "(" there opens a list when what follows its first
// expression is a comma (or it is empty), and is otherwise the start of an
// expression such as (a) + 1 or a parenthesised query: the parser reads
// the first expression, and when no comma follows, goes back and reads
// the whole as an expression. ROLLUP and CUBE followed by "(" are grouping
// elements in GROUP BY, so a plain call of those names renders
// back-quoted.
//
// # Hints
//
// As in Flink, /*+ hint, ... */ right after SELECT holds query hints
// (Select.Hints), and right after a table name, before FOR SYSTEM_TIME AS
// OF and the alias, table hints (TableRef.Hints; Insert.Hints for the
// target of an INSERT). A hint is NAME or NAME(option, ...); an option is a
// name, a string, a number, or key = 'value' with a name or string key;
// names are upper-cased. Several /*+ */ in one place read as one list.
// A hint ends at the first */ outside quotes, so 'a*/b' may stand in it.
// Flink's parser (Calcite) reads /*+ as a token, not a comment, so it
// rejects a hint anywhere else; this parser does too, with a syntax error
// at the hint that says where hints go, rather than dropping a hint the
// user meant to apply. Which hints have an effect is the planner's
// business.
//
// # Positions
//
// Every node records the Pos of its first token, returned by Pos():
// byte offset, 1-based line, and 1-based column counted in runes (a tab is
// one column). A binary operator node starts at its left operand and also
// records its operator's position in OpPos; a join records KindPos.
//
// # Rendering
//
// Every node's String method renders canonical SQL on one line: upper-case
// keywords, single spaces, parentheses only where precedence needs them.
// Identifiers are back-quoted when this parser or Flink would not read them
// back as names (so `value` and `count` stay quoted), which keeps rendered
// SQL pasteable into Flink. Parsing the rendering yields an equal tree
// (positions aside); FuzzParse, a grammar-driven generator test and a random
// token test check this.
//
// # Errors
//
// Error.Error reads "line:col: syntax error: message", where message names
// the offending token and, where it can, what was expected there:
//
//	3:14: syntax error: unexpected "t", expecting ",", FROM, WHERE, GROUP BY, ...
//
// When the failure follows a word that was taken as an implicit alias and is
// one typo away from a clause keyword, the error points at that word instead:
// `unexpected "FORM"; did you mean FROM?`. Error.Caret and FormatError show
// the source line with a caret under the column, copying tabs so it lines up;
// Printable escapes control and invisible characters (\x00, \u202e) in the
// message and the line, so that echoed SQL cannot garble a terminal:
//
//	bad.sql:3:14: syntax error: unexpected "FORM"; did you mean FROM?
//	  SELECT a, b  FORM t
//	               ^
//
// Every error wraps ErrSyntax, so callers can test errors.Is(err, ErrSyntax).
package parser
