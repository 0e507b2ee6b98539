package parser

import (
	"errors"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELECT a, b  FORM t", `1:14: syntax error: unexpected "FORM"; did you mean FROM?`},
		{"SELECT a FROM t WHER a = 1", `1:17: syntax error: unexpected "WHER"; did you mean WHERE?`},
		{"SELECT FROM t", `1:8: syntax error: unexpected "FROM", expecting DISTINCT, ALL or expression`},
		{"SELECT a FROM", `1:14: syntax error: unexpected end of input, expecting "(", TABLE, UNNEST or identifier`},
		{"SELECT a FROM t WHERE", `1:22: syntax error: unexpected end of input, expecting expression`},
		{"SELECT 1 2", `1:10: syntax error: unexpected number 2, expecting AS, identifier, ",", FROM, WHERE, GROUP BY, ...`},
		{"SELECT a FROM t;\nSELECT b\n\tFROM t WHERE x = = 1", `3:19: syntax error: unexpected "=", expecting expression`},
		{"CREATE TABLE t (a INTEGR)", `1:19: syntax error: unknown data type "INTEGR"`},
		{"CREATE TABLE t (a INT,)", `1:23: syntax error: unexpected ")", expecting identifier`},
		{"CREATE TABLE t (a INT) WITH ('k' = v)", `1:36: syntax error: unexpected "v", expecting string`},
		{"CREATE TABLE t (a INT) WITH ('k' 'v')", `1:34: syntax error: unexpected string 'v', expecting "="`},
		{"CREATE TABLE t (a INT, PRIMARY KEY (a))", `1:39: syntax error: unexpected ")", expecting NOT`},
		{"CREATE TABLE t (a INT, WATERMARK FOR a AS a, WATERMARK FOR a AS a)", `1:46: syntax error: more than one WATERMARK`},
		{"CREATE VIEW v SELECT 1", `1:15: syntax error: unexpected "SELECT", expecting "(" or AS`},
		{"INSERT t SELECT 1", `1:8: syntax error: unexpected "t", expecting OVERWRITE or INTO`},
		{"SELECT 'abc", `1:8: syntax error: unterminated string literal`},
		{"SELECT `abc", `1:8: syntax error: unterminated quoted identifier`},
		{"SELECT 1 /* x", `1:10: syntax error: unterminated /* comment`},
		{`SELECT "a" FROM t`, `1:8: syntax error: unexpected character """ (string literals use single quotes, identifiers back-quotes)`},
		{"SELECT ü ¤ x", `1:10: syntax error: unexpected character "¤"`},
		{"SELECT CAST(a BIGINT) FROM t", `1:15: syntax error: unexpected "BIGINT", expecting AS`},
		{"SELECT CAST(a AS VARCHAR(99999999999))", `1:26: syntax error: type parameter 99999999999 is not an integer between 0 and 2147483647`},
		{"SELECT INTERVAL '1' FORTNIGHT", `1:21: syntax error: unexpected "FORTNIGHT", expecting interval unit (SECOND, MINUTE, HOUR, DAY, MONTH, YEAR)`},
		{"SELECT INTERVAL '1' MINUTE TO HOUR", `1:28: syntax error: invalid interval qualifier MINUTE TO HOUR`},
		{"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(), INTERVAL '1' SECOND))", `1:48: syntax error: unexpected ")", expecting identifier`},
		{"SELECT a FROM t GROUP a", `1:23: syntax error: unexpected "a", expecting BY`},
		{"SELECT a FROM t GROUP BY GROUPING SETS a", `1:40: syntax error: unexpected "a", expecting "("`},
		{"SELECT a FROM t GROUP BY ROLLUP(a, ())", ``},
		{"SELECT a FROM t GROUP BY (a, ())", `1:31: syntax error: unexpected ")", expecting expression`},
		{"SELECT a FROM t GROUP BY CUBE(a, GROUPING SETS (b))", `1:43: syntax error: unexpected "SETS", expecting "," or ")"`},
		{"SELECT a FROM t GROUP BY GROUPING SETS ((a, b)", `1:47: syntax error: unexpected end of input, expecting "," or ")"`},
		{"SELECT a FROM t GROUP BY " + strings.Repeat("GROUPING SETS (", 1100) + "a" + strings.Repeat(")", 1100), `1:15011: syntax error: nesting deeper than 1000 levels`},
		{"SELECT (a FROM t", `1:11: syntax error: unexpected "FROM", expecting ")"`},
		{"SELECT a FROM t ORDER BY a LIMIT x", `1:34: syntax error: unexpected "x", expecting integer`},
		{"SHOW MODULES", `1:6: syntax error: unexpected "MODULES", expecting TABLES, JOBS, FUNCTIONS, CREATE or VIEWS`},
		{"STOP JOB x", `1:10: syntax error: unexpected "x", expecting string`},
		{"SOURCE init.sql", `1:8: syntax error: unexpected "init", expecting string`},
		{"SHOW CREATE FUNCTION f", `1:13: syntax error: unexpected "FUNCTION", expecting TABLE or VIEW`},
		{"STOP JOB 'a' WITH DRAIN WITH SAVEPOINT", `1:30: syntax error: unexpected "SAVEPOINT"`},
		{"FOO", `1:1: syntax error: unexpected "FOO", expecting a statement (SELECT, INSERT, CREATE, SET, ...)`},
		{"SELECT a FROM t\nSELECT b FROM u", `2:1: syntax error: unexpected "SELECT"; is a semicolon missing before it?`},
		{"SELECT 1; FOO", `1:11: syntax error: unexpected "FOO", expecting a statement (SELECT, INSERT, CREATE, SET, ...)`},
		{"SELECT CASE END", `1:13: syntax error: unexpected "END", expecting WHEN or expression`},
		{"SELECT COUNT(*) FILTER WHERE a", `1:24: syntax error: unexpected "WHERE", expecting "("`},
		{"SELECT a IS 1", `1:13: syntax error: unexpected number 1, expecting NOT, NULL, UNKNOWN, TRUE, FALSE or DISTINCT`},
		{"DROP t", `1:6: syntax error: unexpected "t", expecting TEMPORARY, FUNCTION, TABLE or VIEW`},
		{"SELECT (SELECT 1 LIMIT 1) LIMIT 2", ``},
		{"(SELECT 1 LIMIT 1) LIMIT 2", `1:20: syntax error: a query cannot have two LIMIT clauses; wrap the inner query in a subquery`},
		{"(SELECT 1 ORDER BY 1)\n ORDER BY 2", `2:2: syntax error: a query cannot have two ORDER BY clauses; wrap the inner query in a subquery`},
		{"WITH a AS (SELECT 1) (WITH b AS (SELECT 2) SELECT 3)", `1:1: syntax error: a query cannot have two WITH clauses; wrap the inner query in a subquery`},
		{"WITH a AS (SELECT 1) VALUES (1) ORDER BY 1 LIMIT 2", ``},
		{"SELECT " + strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000), `1:1007: syntax error: nesting deeper than 1000 levels`},
		{"SELECT 1" + strings.Repeat(" + 1", 2000), ``},
		{"SELECT 1" + strings.Repeat(" + 1", 100_001), `1:400010: syntax error: more than 100000 terms in one expression`},
		{"SELECT 1" + strings.Repeat(" IS NULL", 2000), `1:7994: syntax error: nesting deeper than 1000 levels`},
		{"SELECT 1" + strings.Repeat(" + (1", 300) + strings.Repeat(")", 300), ``},
		{"SELECT 1" + strings.Repeat(" + (1", 2000) + strings.Repeat(")", 2000), `1:2507: syntax error: nesting deeper than 1000 levels`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		tc.src = abbrev(tc.src)
		if tc.want == "" {
			if err != nil {
				t.Errorf("Parse(%q): %v", tc.src, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Parse(%q): no error, want %s", tc.src, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tc.src, err, tc.want)
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): error is not ErrSyntax", tc.src)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":        `1:1: syntax error: unexpected end of input, expecting expression`,
		"a b":     `1:3: syntax error: unexpected "b", expecting end of input`,
		"a +":     `1:4: syntax error: unexpected end of input, expecting expression`,
		"f(a,)":   `1:5: syntax error: unexpected ")", expecting expression`,
		"a IN 1":  `1:6: syntax error: unexpected number 1, expecting "("`,
		"x NOT y": `1:3: syntax error: unexpected "NOT", expecting end of input`,
	} {
		_, err := ParseExpr(src)
		if err == nil || err.Error() != want {
			t.Errorf("ParseExpr(%q):\n got %v\nwant %s", src, err, want)
		}
	}
}

func TestFormatError(t *testing.T) {
	tests := []struct{ file, src, want string }{
		{"bad.sql", "SET 'a' = 'b';\n\nSELECT a, b  FORM t\n", `bad.sql:3:14: syntax error: unexpected "FORM"; did you mean FROM?
  SELECT a, b  FORM t
               ^`},
		// Tabs are copied into the caret line; runes count as one column.
		{"", "SELECT 'é',\n\t\tü FORM t", `2:5: syntax error: unexpected "FORM"; did you mean FROM?
  		ü FORM t
  		  ^`},
		// At the end of input the caret sits after the last character.
		{"q.sql", "SELECT a FROM t WHERE\r\n", `q.sql:2:1: syntax error: unexpected end of input, expecting expression
  
  ^`},
		{"q.sql", "SELECT a +", `q.sql:1:11: syntax error: unexpected end of input, expecting expression
  SELECT a +
            ^`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if got := FormatError(tc.file, tc.src, err); got != tc.want {
			t.Errorf("FormatError(%q):\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	if got := FormatError("f", "", nil); got != "" {
		t.Errorf("FormatError of nil: %q", got)
	}
	if got := FormatError("f", "", errors.New("boom")); got != "boom" {
		t.Errorf("FormatError of a foreign error: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"FORM", "FROM", 1}, {"WHER", "WHERE", 1}, {"GROUP", "GROUP", 0}, {"ab", "", 2}, {"LIMT", "LIMIT", 1}, {"abc", "xyz", 3}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// Control and invisible characters in the SQL are shown escaped in the
// message and the source line, and the caret stays under the offending
// column.
func TestFormatErrorControls(t *testing.T) {
	tests := []struct{ src, want string }{
		{"SELECT a\x00b FROM t", `f.sql:1:9: syntax error: unexpected character "\x00"
  SELECT a\x00b FROM t
          ^`},
		{"SELECT a FROM t WHERE \x1b[31m", `f.sql:1:23: syntax error: unexpected character "\x1b"
  SELECT a FROM t WHERE \x1b[31m
                        ^`},
		// The escapes before the column move the caret; a tab is kept.
		{"SELECT `a\x07\u202e`\t\x7f FROM t", `f.sql:1:14: syntax error: unexpected character "\x7f"
  SELECT ` + "`a\\x07\\u202e`\t" + `\x7f FROM t
  ` + "                    \t" + `^`},
		{"SELECT 'a\xff' b c FROM t", `f.sql:1:15: syntax error: unexpected "c", expecting ",", FROM, WHERE, GROUP BY, HAVING, WINDOW, ...
  SELECT 'a\xff' b c FROM t
                   ^`},
		{"SELECT `a\nb` c d FROM t", `f.sql:2:6: syntax error: unexpected "d", expecting ",", FROM, WHERE, GROUP BY, HAVING, WINDOW, ...
  b` + "`" + ` c d FROM t
       ^`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if got := FormatError("f.sql", tc.src, err); got != tc.want {
			t.Errorf("FormatError(%q):\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}
