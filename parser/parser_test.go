package parser

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stripPos zeroes every Pos in a tree so that trees parsed from different
// texts can be compared.
func stripPos(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			stripPos(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			stripPos(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Pos]() {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := range v.NumField() {
			stripPos(v.Field(i))
		}
	}
}

func sameTree(a, b any) bool {
	stripPos(reflect.ValueOf(a))
	stripPos(reflect.ValueOf(b))
	return reflect.DeepEqual(a, b)
}

// checkRoundTrip asserts that the rendering of stmts parses back to an equal
// tree.
func checkRoundTrip(t *testing.T, stmts []Statement) {
	t.Helper()
	var parts []string
	for _, s := range stmts {
		parts = append(parts, s.String())
	}
	text := strings.Join(parts, ";\n")
	again, err := Parse(text)
	if err != nil {
		t.Fatalf("rendering does not parse: %v\n%s", err, text)
	}
	if !sameTree(stmts, again) {
		t.Fatalf("rendering parses to a different tree:\n%s", text)
	}
}

func TestStatements(t *testing.T) {
	tests := []struct{ in, want string }{
		// DDL
		{"create table t (a int, b string)", "CREATE TABLE t (a INT, b STRING)"},
		{"CREATE TABLE IF NOT EXISTS cat.db.t (a INT NOT NULL COMMENT 'the a', b AS a + 1, p AS PROCTIME()) COMMENT 'tbl' WITH ('k' = 'v', 'x.y' = 'it''s')",
			"CREATE TABLE IF NOT EXISTS cat.db.t (a INT NOT NULL COMMENT 'the a', b AS a + 1, p AS PROCTIME()) COMMENT 'tbl' WITH ('k' = 'v', 'x.y' = 'it''s')"},
		{"CREATE TEMPORARY TABLE t (a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'x')",
			"CREATE TEMPORARY TABLE t (a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'x')"},
		{"CREATE TABLE t (a INT, b INT, CONSTRAINT pk PRIMARY KEY (a, b) NOT ENFORCED)", "CREATE TABLE t (a INT, b INT, CONSTRAINT pk PRIMARY KEY (a, b) NOT ENFORCED)"},
		{"CREATE TABLE t (id BIGINT PRIMARY KEY NOT ENFORCED COMMENT 'k')", "CREATE TABLE t (id BIGINT PRIMARY KEY NOT ENFORCED COMMENT 'k')"},
		{"CREATE TABLE if (watermark INT, primary INT, `constraint` INT, `select` INT)", "CREATE TABLE if (watermark INT, `primary` INT, `constraint` INT, `select` INT)"},
		{"CREATE TABLE t (a INT, dt STRING) COMMENT 'c' PARTITIONED BY (dt) WITH ('connector' = 'filesystem')",
			"CREATE TABLE t (a INT, dt STRING) COMMENT 'c' PARTITIONED BY (dt) WITH ('connector' = 'filesystem')"},
		{"CREATE TABLE t (ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, `offset` BIGINT METADATA, p AS PROCTIME() COMMENT 'proc')",
			"CREATE TABLE t (ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL, `offset` BIGINT METADATA, p AS PROCTIME() COMMENT 'proc')"},
		{"create function f as 'com.x.F'", "CREATE FUNCTION f AS 'com.x.F'"},
		{"CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS db.f AS 'com.x.F' LANGUAGE python", "CREATE TEMPORARY SYSTEM FUNCTION IF NOT EXISTS db.f AS 'com.x.F' LANGUAGE PYTHON"},
		{"CREATE VIEW v AS SELECT a FROM t", "CREATE VIEW v AS SELECT a FROM t"},
		{"CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t", "CREATE TEMPORARY VIEW IF NOT EXISTS v (x, y) AS SELECT a, b FROM t"},
		{"DROP TABLE t", "DROP TABLE t"},
		{"drop table if exists db.t", "DROP TABLE IF EXISTS db.t"},
		{"DROP VIEW v", "DROP VIEW v"},
		{"DROP TEMPORARY VIEW IF EXISTS v", "DROP TEMPORARY VIEW IF EXISTS v"},
		{"DROP FUNCTION count_char", "DROP FUNCTION count_char"},
		{"drop temporary system function if exists f", "DROP TEMPORARY SYSTEM FUNCTION IF EXISTS f"},
		// DML and queries
		{"INSERT INTO t SELECT * FROM s", "INSERT INTO t SELECT * FROM s"},
		{"INSERT INTO t (a, b) SELECT x, y FROM s", "INSERT INTO t (a, b) SELECT x, y FROM s"},
		{"INSERT INTO t (SELECT x FROM s)", "INSERT INTO t SELECT x FROM s"},
		{"INSERT OVERWRITE t VALUES (1, 'a'), (2, 'b')", "INSERT OVERWRITE t VALUES (1, 'a'), (2, 'b')"},
		{"SELECT 1", "SELECT 1"},
		{"select all a from t", "SELECT a FROM t"},
		{"SELECT DISTINCT a, t.b AS bb, c cc, t.*, `x y`.* FROM t", "SELECT DISTINCT a, t.b AS bb, c AS cc, t.*, `x y`.* FROM t"},
		{"SELECT a FROM t WHERE a > 1 GROUP BY a, b HAVING COUNT(*) > 2 ORDER BY a DESC NULLS LAST, b ASC, c NULLS FIRST LIMIT 10",
			"SELECT a FROM t WHERE a > 1 GROUP BY a, b HAVING COUNT(*) > 2 ORDER BY a DESC NULLS LAST, b, c NULLS FIRST LIMIT 10"},
		{"WITH x AS (SELECT a FROM t), y (c) AS (SELECT b FROM u) SELECT * FROM x, y", "WITH x AS (SELECT a FROM t), y (c) AS (SELECT b FROM u) SELECT * FROM x, y"},
		{"SELECT a FROM t UNION ALL SELECT a FROM u UNION SELECT b FROM v", "(SELECT a FROM t UNION ALL SELECT a FROM u) UNION SELECT b FROM v"},
		{"SELECT a FROM t UNION SELECT a FROM u INTERSECT SELECT a FROM v", "SELECT a FROM t UNION (SELECT a FROM u INTERSECT SELECT a FROM v)"},
		{"SELECT a FROM t EXCEPT DISTINCT SELECT a FROM u ORDER BY a LIMIT 3", "SELECT a FROM t EXCEPT SELECT a FROM u ORDER BY a LIMIT 3"},
		{"(SELECT a FROM t ORDER BY a LIMIT 1) UNION (SELECT a FROM u)", "(SELECT a FROM t ORDER BY a LIMIT 1) UNION SELECT a FROM u"},
		{"WITH w AS (SELECT 1) SELECT a FROM t UNION SELECT b FROM u", "WITH w AS (SELECT 1) SELECT a FROM t UNION SELECT b FROM u"},
		{"SELECT SUM(x) OVER w, COUNT(*) over w2 FROM t WHERE a > 1 window w as (PARTITION BY k ORDER BY ts ROWS 2 PRECEDING), w2 AS (ORDER BY ts)",
			"SELECT SUM(x) OVER w, COUNT(*) OVER w2 FROM t WHERE a > 1 WINDOW w AS (PARTITION BY k ORDER BY ts ROWS 2 PRECEDING), w2 AS (ORDER BY ts)"},
		{"VALUES (1), (2)", "VALUES (1), (2)"},
		{"SELECT * FROM (SELECT a FROM t) AS s", "SELECT * FROM (SELECT a FROM t) AS s"},
		{"SELECT * FROM (SELECT a FROM t) s", "SELECT * FROM (SELECT a FROM t) AS s"},
		{"SELECT * FROM db.t AS x", "SELECT * FROM db.t AS x"},
		{"SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.proc_time AS r2 ON o.k = r2.k", "SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.proc_time AS r2 ON o.k = r2.k"},
		{"SELECT * FROM a JOIN b ON a.id = b.id LEFT OUTER JOIN c ON c.x = b.x, d CROSS JOIN e",
			"SELECT * FROM a JOIN b ON a.id = b.id LEFT JOIN c ON c.x = b.x, d CROSS JOIN e"},
		{"SELECT * FROM a INNER JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL OUTER JOIN d ON TRUE",
			"SELECT * FROM a JOIN b ON TRUE RIGHT JOIN c ON TRUE FULL JOIN d ON TRUE"},
		// Window table functions
		{"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))", "SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))"},
		{"SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) AS w",
			"SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)) AS w"},
		{"SELECT * FROM TABLE(tumble(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' MINUTE, `offset` => INTERVAL '1' MINUTE))",
			"SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' MINUTE, OFFSET => INTERVAL '1' MINUTE))"},
		{"SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' MINUTE, INTERVAL '10' MINUTE))",
			"SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '2' MINUTE, INTERVAL '10' MINUTE))"},
		{"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts, ts2), INTERVAL '5' MINUTE))",
			"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts, ts2), INTERVAL '5' MINUTE))"},
		{"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
			"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '5' MINUTE))"},
		{"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k), DESCRIPTOR(ts), INTERVAL '5' MINUTE))",
			"SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' MINUTE))"},
		// Session statements
		{"SET 'table.exec.mini-batch.enabled' = 'true'", "SET 'table.exec.mini-batch.enabled' = 'true'"},
		{"set", "SET"},
		{"RESET 'k'", "RESET 'k'"},
		{"reset", "RESET"},
		{"EXPLAIN SELECT 1", "EXPLAIN SELECT 1"},
		{"EXPLAIN PLAN FOR INSERT INTO t SELECT 1", "EXPLAIN INSERT INTO t SELECT 1"},
		{"explain changelog_mode, estimated_cost SELECT 1", "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT 1"},
		{"SHOW TABLES", "SHOW TABLES"},
		{"show views", "SHOW VIEWS"},
		{"DESCRIBE t", "DESCRIBE t"},
		{"desc db.t", "DESCRIBE db.t"},
		{"help", "HELP"},
		{"SOURCE 'init.sql'", "SOURCE 'init.sql'"},
		{"show functions", "SHOW FUNCTIONS"},
		{"SHOW CREATE TABLE db.t", "SHOW CREATE TABLE db.t"},
		{"show create view `v w`", "SHOW CREATE VIEW `v w`"},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if len(stmts) != 1 {
			t.Errorf("Parse(%q): %d statements, want 1", tc.in, len(stmts))
			continue
		}
		if got := stmts[0].String(); got != tc.want {
			t.Errorf("Parse(%q).String():\n got %s\nwant %s", tc.in, got, tc.want)
		}
		checkRoundTrip(t, stmts)
	}
}

func TestTypes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BOOLEAN", "BOOLEAN"}, {"TINYINT", "TINYINT"}, {"SMALLINT", "SMALLINT"},
		{"INT", "INT"}, {"integer", "INT"}, {"BIGINT", "BIGINT"},
		{"FLOAT", "FLOAT"}, {"REAL", "FLOAT"}, {"DOUBLE", "DOUBLE"}, {"DOUBLE PRECISION", "DOUBLE"},
		{"DECIMAL", "DECIMAL"}, {"DEC(10)", "DECIMAL(10)"}, {"NUMERIC(10, 2)", "DECIMAL(10, 2)"},
		{"STRING", "STRING"}, {"VARCHAR", "VARCHAR"}, {"VARCHAR(20)", "VARCHAR(20)"}, {"CHAR(3)", "CHAR(3)"},
		{"BYTES", "BYTES"}, {"BINARY(4)", "BINARY(4)"}, {"VARBINARY(4)", "VARBINARY(4)"},
		{"DATE", "DATE"}, {"TIME", "TIME"}, {"TIME(3) WITHOUT TIME ZONE", "TIME(3)"},
		{"TIMESTAMP", "TIMESTAMP"}, {"TIMESTAMP(3)", "TIMESTAMP(3)"}, {"TIMESTAMP(6) WITHOUT TIME ZONE", "TIMESTAMP(6)"},
		{"TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)"}, {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"},
		{"TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ"},
		{"INT NOT NULL", "INT NOT NULL"}, {"INT NULL", "INT"},
		{"ARRAY<INT NOT NULL>", "ARRAY<INT NOT NULL>"}, {"MULTISET<STRING>", "MULTISET<STRING>"},
		{"MAP<STRING, ARRAY<BIGINT>>", "MAP<STRING, ARRAY<BIGINT>>"},
		{"ROW<a INT, `b c` STRING COMMENT 'x'>", "ROW<a INT, `b c` STRING COMMENT 'x'>"},
		{"ROW(a INT, b ROW<c DOUBLE>)", "ROW<a INT, b ROW<c DOUBLE>>"},
	}
	for _, tc := range tests {
		e, err := ParseExpr("CAST(x AS " + tc.in + ")")
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := e.(*Cast).Type.String(); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
	e, err := ParseExpr("CAST(x AS TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL)")
	if err != nil {
		t.Fatal(err)
	}
	want := &TypeName{Start: Pos{10, 1, 11}, Name: "TIMESTAMP_LTZ", Args: []int{3}, NotNull: true}
	if got := e.(*Cast).Type; !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestExprs(t *testing.T) {
	tests := []struct{ in, want string }{
		// literals
		{"1", "1"}, {"1.5", "1.5"}, {"1e3", "1e3"}, {".5E-2", ".5E-2"}, {"'it''s'", "'it''s'"},
		{"true", "TRUE"}, {"FALSE", "FALSE"}, {"null", "NULL"},
		{"DATE '2024-01-02'", "DATE '2024-01-02'"}, {"TIME '10:00:00'", "TIME '10:00:00'"},
		{"timestamp '2024-01-02 10:00:00.123'", "TIMESTAMP '2024-01-02 10:00:00.123'"},
		{"INTERVAL '10' SECOND", "INTERVAL '10' SECOND"}, {"INTERVAL '1' MINUTE", "INTERVAL '1' MINUTE"},
		{"INTERVAL '2' HOUR", "INTERVAL '2' HOUR"}, {"INTERVAL '1' DAY", "INTERVAL '1' DAY"},
		{"INTERVAL '3' days", "INTERVAL '3' DAY"}, {"INTERVAL '1:30' HOUR TO MINUTE", "INTERVAL '1:30' HOUR TO MINUTE"},
		{"INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '1-2' YEAR TO MONTH"},
		{"INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '1 02:03:04.5' DAY TO SECOND"},
		// names
		{"c", "c"}, {"t.c", "t.c"}, {"`dateTime`", "dateTime"}, {"`a``b`", "`a``b`"}, {"`date`", "`date`"},
		{"window_start", "window_start"}, {"url", "url"}, {"channel", "channel"}, {"price", "price"},
		{"`value` + `count` + `timestamp`", "`value` + `count` + `timestamp`"},
		{"second + tables + watermark", "`second` + tables + watermark"},
		// operators and precedence
		{"a OR b AND c", "a OR b AND c"}, {"(a OR b) AND c", "(a OR b) AND c"},
		{"NOT a AND b", "NOT a AND b"}, {"NOT (a AND b)", "NOT (a AND b)"},
		{"a = 1 AND b <> 2 OR c != 3", "a = 1 AND b <> 2 OR c <> 3"},
		{"a < b AND a <= b AND a > b AND a >= b", "a < b AND a <= b AND a > b AND a >= b"},
		{"a + b * c - d / e % f", "a + b * c - d / e % f"}, {"(a + b) * c", "(a + b) * c"},
		{"a - (b - c)", "a - (b - c)"}, {"a - b - c", "a - b - c"},
		{"a || b || c", "a || b || c"}, {"a || b + c", "a || b + c"}, {"(a || b) + c", "(a || b) + c"},
		{"-a", "-a"}, {"- -a", "-(-a)"}, {"+a", "+a"}, {"-(a + b)", "-(a + b)"}, {"a - -1", "a - -1"},
		{"NOT NOT a", "NOT NOT a"}, {"a = (NOT b)", "a = (NOT b)"},
		{"a IS NULL", "a IS NULL"}, {"a IS NOT NULL", "a IS NOT NULL"}, {"a is unknown", "a IS NULL"},
		{"a IS TRUE", "a IS TRUE"}, {"a IS NOT FALSE", "a IS NOT FALSE"},
		{"a = b IS NULL", "a = b IS NULL"}, {"(a IS NULL) = b", "(a IS NULL) = b"},
		{"NOT a IS NULL", "NOT a IS NULL"},
		{"a IS DISTINCT FROM b", "a IS DISTINCT FROM b"}, {"a IS NOT DISTINCT FROM b + 1", "a IS NOT DISTINCT FROM b + 1"},
		{"a BETWEEN 1 AND 2", "a BETWEEN 1 AND 2"}, {"a NOT BETWEEN b + 1 AND c AND d", "a NOT BETWEEN b + 1 AND c AND d"},
		{"a BETWEEN SYMMETRIC 2 AND 1", "a BETWEEN SYMMETRIC 2 AND 1"}, {"a BETWEEN ASYMMETRIC 1 AND 2", "a BETWEEN 1 AND 2"},
		{"a IN (1, 2, 3)", "a IN (1, 2, 3)"}, {"a NOT IN ('x')", "a NOT IN ('x')"},
		{"a IN (SELECT b FROM t)", "a IN (SELECT b FROM t)"}, {"EXISTS (SELECT 1)", "EXISTS (SELECT 1)"},
		{"NOT EXISTS (SELECT 1)", "NOT EXISTS (SELECT 1)"}, {"(SELECT MAX(a) FROM t) + 1", "(SELECT MAX(a) FROM t) + 1"},
		{"a LIKE 'x%'", "a LIKE 'x%'"}, {"a NOT LIKE 'x!%' ESCAPE '!'", "a NOT LIKE 'x!%' ESCAPE '!'"},
		{"x = y BETWEEN 1 AND 2", "x = y BETWEEN 1 AND 2"}, {"(x = y) BETWEEN 1 AND 2", "(x = y) BETWEEN 1 AND 2"},
		// calls
		{"f()", "F()"}, {"MOD(a, b)", "MOD(a, b)"}, {"count(*)", "COUNT(*)"}, {"COUNT(DISTINCT x)", "COUNT(DISTINCT x)"},
		{"COUNT(ALL x)", "COUNT(x)"}, {"SUM(a) FILTER (WHERE a > 0)", "SUM(a) FILTER (WHERE a > 0)"},
		{"COUNT(DISTINCT user_id) FILTER (WHERE amount > 0)", "COUNT(DISTINCT user_id) FILTER (WHERE amount > 0)"},
		{"PROCTIME()", "PROCTIME()"}, {"`my udf`(1)", "`MY UDF`(1)"}, {"LEFT(s, 2)", "LEFT(s, 2)"}, {"right(s, 2)", "RIGHT(s, 2)"},
		{"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"}, {"LOCALTIMESTAMP", "LOCALTIMESTAMP"}, {"current_date", "CURRENT_DATE"},
		{"CURRENT_TIME + LOCALTIME", "CURRENT_TIME + LOCALTIME"}, {"CURRENT_TIMESTAMP()", "CURRENT_TIMESTAMP"},
		{"ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC)", "ROW_NUMBER() OVER (PARTITION BY a ORDER BY b DESC)"},
		{"SUM(x) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)",
			"SUM(x) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW)"},
		{"SUM(x) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING)", "SUM(x) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING)"},
		{"SUM(x) OVER (ROWS 5 PRECEDING)", "SUM(x) OVER (ROWS 5 PRECEDING)"}, {"COUNT(*) OVER ()", "COUNT(*) OVER ()"},
		// special forms
		{"CAST(a AS BIGINT)", "CAST(a AS BIGINT)"}, {"TRY_CAST(a AS INT)", "TRY_CAST(a AS INT)"},
		{"cast(a + 1 as varchar(10))", "CAST(a + 1 AS VARCHAR(10))"},
		{"CASE WHEN a = 1 THEN 'x' WHEN a = 2 THEN 'y' ELSE 'z' END", "CASE WHEN a = 1 THEN 'x' WHEN a = 2 THEN 'y' ELSE 'z' END"},
		{"CASE a WHEN 1 THEN 'x' END", "CASE a WHEN 1 THEN 'x' END"},
		{"EXTRACT(YEAR FROM ts)", "EXTRACT(YEAR FROM ts)"}, {"extract(epoch from ts)", "EXTRACT(EPOCH FROM ts)"},
		{"FLOOR(ts TO HOUR)", "FLOOR(ts TO HOUR)"}, {"CEIL(ts TO DAY)", "CEIL(ts TO DAY)"}, {"CEILING(ts TO DAY)", "CEIL(ts TO DAY)"},
		{"FLOOR(x)", "FLOOR(x)"}, {"CEIL(x)", "CEIL(x)"}, {"FLOOR(INTERVAL '1' DAY TO HOUR)", "FLOOR(INTERVAL '1' DAY TO HOUR)"}, {"FLOOR(a + b TO DAY)", "FLOOR((a + b) TO DAY)"},
		{"FLOOR((INTERVAL '1' DAY) TO HOUR)", "FLOOR((INTERVAL '1' DAY) TO HOUR)"},
		{"SUBSTRING(s FROM 2 FOR 3)", "SUBSTRING(s FROM 2 FOR 3)"}, {"SUBSTRING(s FROM 2)", "SUBSTRING(s FROM 2)"},
		{"SUBSTRING(s, 2, 3)", "SUBSTRING(s FROM 2 FOR 3)"}, {"substring(s, 2)", "SUBSTRING(s FROM 2)"},
		{"TRIM(s)", "TRIM(s)"}, {"TRIM(BOTH FROM s)", "TRIM(BOTH FROM s)"}, {"TRIM(LEADING 'x' FROM s)", "TRIM(LEADING 'x' FROM s)"},
		{"TRIM(TRAILING FROM s)", "TRIM(TRAILING FROM s)"}, {"TRIM('x' FROM s)", "TRIM('x' FROM s)"},
		{"POSITION('a' IN s)", "POSITION('a' IN s)"}, {"POSITION(a || b IN s)", "POSITION(a || b IN s)"},
		{"TUMBLE_START(ts, INTERVAL '1' MINUTE)", "TUMBLE_START(ts, INTERVAL '1' MINUTE)"},
		{"ts - INTERVAL '5' SECOND", "ts - INTERVAL '5' SECOND"},
		{"((a))", "a"},
		// words that are special forms only before "("
		{"try_cast + extract + trim + position + floor + descriptor", "try_cast + `extract` + `trim` + `position` + `floor` + `descriptor`"},
		{"`extract`(a, b)", "`EXTRACT`(a, b)"}, {"`FLOOR`(DISTINCT a)", "`FLOOR`(DISTINCT a)"},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("ParseExpr(%q).String():\n got %s\nwant %s", tc.in, got, tc.want)
			continue
		}
		again, err := ParseExpr(e.String())
		if err != nil {
			t.Errorf("ParseExpr(%q): rendering does not parse: %v", tc.in, err)
			continue
		}
		if !sameTree(e, again) {
			t.Errorf("ParseExpr(%q): rendering parses to a different tree", tc.in)
		}
	}
}

// shape renders an expression with every operator node parenthesised, to
// assert how the parser grouped it.
func shape(e Expr) string {
	switch e := e.(type) {
	case *Binary:
		return "(" + shape(e.Left) + " " + e.Op + " " + shape(e.Right) + ")"
	case *Unary:
		return "(" + e.Op + " " + shape(e.Expr) + ")"
	case *IsNull:
		return "(" + shape(e.Expr) + " IS " + not(e.Not) + "NULL)"
	case *Between:
		return "(" + shape(e.Expr) + " BETWEEN " + shape(e.Lo) + " AND " + shape(e.Hi) + ")"
	case *Like:
		return "(" + shape(e.Expr) + " LIKE " + shape(e.Pattern) + ")"
	case *InList:
		return "(" + shape(e.Expr) + " IN ...)"
	}
	return e.String()
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a OR b AND c", "(a OR (b AND c))"},
		{"a AND b OR c", "((a AND b) OR c)"},
		{"NOT a = b AND c", "((NOT (a = b)) AND c)"},
		{"NOT a OR b", "((NOT a) OR b)"},
		{"a = b + c * d", "(a = (b + (c * d)))"},
		{"a * b + c", "((a * b) + c)"},
		{"a - b - c", "((a - b) - c)"},
		{"a || b + c", "(a || (b + c))"},
		{"a + b || c", "((a + b) || c)"},
		{"-a * b", "((- a) * b)"},
		{"- a.b + 1", "((- a.b) + 1)"},
		{"a = b IS NULL", "((a = b) IS NULL)"},
		{"a IS NULL AND b", "((a IS NULL) AND b)"},
		{"NOT a IS NULL", "(NOT (a IS NULL))"},
		{"a BETWEEN b AND c AND d", "((a BETWEEN b AND c) AND d)"},
		{"a BETWEEN b + 1 AND c * 2", "(a BETWEEN (b + 1) AND (c * 2))"},
		{"x = y BETWEEN 1 AND 2", "(x = (y BETWEEN 1 AND 2))"},
		{"x = y LIKE 'a'", "(x = (y LIKE 'a'))"},
		{"a LIKE b OR c", "((a LIKE b) OR c)"},
		{"a IN (1) AND b", "((a IN ...) AND b)"},
		{"a < b = c", "((a < b) = c)"},
		{"a % b / c", "((a % b) / c)"},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.in, err)
			continue
		}
		if got := shape(e); got != tc.want {
			t.Errorf("ParseExpr(%q): got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestStatementList(t *testing.T) {
	src := `-- leading comment
SET 'a' = 'b';;
/* block
   comment */ SELECT 1; SHOW TABLES
;`
	stmts, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Statement{
		&Set{Start: Pos{19, 2, 1}, Option: &Option{Start: Pos{23, 2, 5}, Key: "a", Value: "b", ValuePos: Pos{29, 2, 11}}},
		&Select{Start: Pos{58, 4, 15}, Items: []*SelectItem{{Start: Pos{65, 4, 22}, Expr: &NumberLit{Start: Pos{65, 4, 22}, Text: "1"}}}},
		&ShowTables{Start: Pos{68, 4, 25}},
	}
	if !reflect.DeepEqual(stmts, want) {
		t.Errorf("got %#v", stmts)
	}
	for _, src := range []string{"", ";", " ;; -- nothing\n"} {
		stmts, err := Parse(src)
		if err != nil || len(stmts) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want no statements", src, stmts, err)
		}
	}
}

func TestPositions(t *testing.T) {
	src := "SELECT a,\n\tf(x) + `ü`.b\nFROM t\tWHERE  é IS NULL"
	stmts, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	s := stmts[0].(*Select)
	bin := s.Items[1].Expr.(*Binary)
	checks := []struct {
		name string
		got  Pos
		want Pos
	}{
		{"select", s.Pos(), Pos{0, 1, 1}},
		{"a", s.Items[0].Expr.Pos(), Pos{7, 1, 8}},
		{"binary", bin.Pos(), Pos{11, 2, 2}},
		{"call", bin.Left.Pos(), Pos{11, 2, 2}},
		{"x", bin.Left.(*Call).Args[0].Pos(), Pos{13, 2, 4}},
		{"op", bin.OpPos, Pos{16, 2, 7}},
		{"ident", bin.Right.Pos(), Pos{18, 2, 9}},
		{"from", s.From.Pos(), Pos{30, 3, 6}},
		{"is null", s.Where.Pos(), Pos{39, 3, 15}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v (offset %d), want %v (offset %d)", c.name, c.got, c.got.Offset, c.want, c.want.Offset)
		}
	}
}

func TestTree(t *testing.T) {
	stmts, err := Parse("INSERT INTO per_user SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start")
	if err != nil {
		t.Fatal(err)
	}
	want := &Insert{
		Table: &Ident{Parts: []string{"per_user"}},
		Query: &Select{
			Items: []*SelectItem{
				{Expr: &Ident{Parts: []string{"window_start"}}},
				{Expr: &Call{Name: "COUNT", Star: true}, Alias: "n"},
			},
			From: &TableFunc{Name: "TUMBLE", Args: []*TableFuncArg{
				{Table: &Ident{Parts: []string{"clicks"}}},
				{Descriptor: []*Ident{{Parts: []string{"ts"}}}},
				{Expr: &IntervalLit{Value: "10", Unit: "SECOND"}},
			}},
			GroupBy: []Expr{&Ident{Parts: []string{"window_start"}}},
		},
	}
	if !sameTree(stmts[0], want) {
		t.Errorf("got %#v", stmts[0])
	}
}

func TestBriefExample(t *testing.T) {
	src := `CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');
INSERT INTO per_user SELECT window_start, user_id, COUNT(*), SUM(amount) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id;
SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(DISTINCT user_id) FILTER (WHERE amount > 0) FROM clicks GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE);
`
	stmts, err := Parse(src)
	if err != nil {
		t.Fatal(FormatError("brief.sql", src, err))
	}
	want := []string{
		"CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv')",
		"INSERT INTO per_user SELECT window_start, user_id, COUNT(*), SUM(amount) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, user_id",
		"SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(DISTINCT user_id) FILTER (WHERE amount > 0) FROM clicks GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)",
	}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements", len(stmts))
	}
	for i, s := range stmts {
		if s.String() != want[i] {
			t.Errorf("statement %d:\n got %s\nwant %s", i, s, want[i])
		}
	}
	ct := stmts[0].(*CreateTable)
	if ct.Watermark.Column.Parts[0] != "ts" || ct.Watermark.Expr.(*Binary).Right.(*IntervalLit).Unit != "SECOND" || len(ct.Options) != 3 {
		t.Errorf("bad CREATE TABLE tree: %#v", ct)
	}
	c := stmts[2].(*Select).Items[1].Expr.(*Call)
	if c.Name != "COUNT" || !c.Distinct || c.Filter == nil {
		t.Errorf("bad COUNT(DISTINCT) FILTER tree: %#v", c)
	}
	checkRoundTrip(t, stmts)
}

var update = flag.Bool("update", false, "rewrite the .golden files of testdata")

// TestFiles parses every testdata/*.sql file and compares the canonical
// rendering with the file's .golden twin.
func TestFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatal("no test files", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := Parse(string(src))
		if err != nil {
			t.Errorf("%s", FormatError(f, string(src), err))
			continue
		}
		checkRoundTrip(t, stmts)
		got := render(stmts) + ";\n"
		golden := strings.TrimSuffix(f, ".sql") + ".golden"
		if *update {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: rendering differs from %s:\n%s", f, golden, got)
		}
	}
}

// TestRoundTripEdges covers renderings that need care to read back the same:
// quoting of names that are keywords in some position, signs, set operation
// grouping.
func TestRoundTripEdges(t *testing.T) {
	for _, src := range []string{
		"SELECT * FROM TABLE(`left`(x))",
		"SELECT * FROM TABLE(`current_date`())",
		"SELECT * FROM TABLE(TUMBLE(`table` => TABLE t, DESCRIPTOR(a), INTERVAL '1' SECOND))",
		"SELECT SUM(x) OVER (ORDER BY y ROWS `unbounded` PRECEDING), SUM(x) OVER (ORDER BY `rows` RANGE `current` FOLLOWING)",
		"SELECT `ſelect`, `ſum`(x), ſelect FROM ſum",
		"SELECT `FLOOR`(x) FILTER (WHERE y), `CEIL`(*), `floor`(), `ceiling`(a, b), `extract`(a), `substring`(a)",
		"SELECT `constraint` FROM t; CREATE TABLE t (`constraint` INT PRIMARY KEY NOT ENFORCED)",
		"SELECT - - - 1, 1 - -1, -(-(1)), +-1, -+1",
		"SELECT `` AS ```` FROM `a``b`",
		"SELECT x FROM t WHERE a = NOT b AND c",
		"SELECT (a IS NULL) IS NULL, a IS NULL IS NULL, NOT a IS NOT TRUE",
		"VALUES (1) UNION VALUES (2) ORDER BY 1",
		"SELECT 1 FROM t UNION (SELECT 2 UNION SELECT 3)",
		"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3",
		"SELECT CURRENT_TIMESTAMP(3), `current_timestamp`(DISTINCT x), `localtime`(*)",
		"SELECT 1e5, 1., .5, 1.e-3",
		"SELECT 'a''b', '''', ''",
		"SELECT CASE WHEN a THEN b END IS NULL, CASE x WHEN 1 THEN 2 ELSE 3 END = 4",
		"SELECT a NOT IN (SELECT 1), NOT EXISTS (SELECT 1), (SELECT 1) IN ((SELECT 2))",
		"DROP TABLE if; CREATE TABLE if (a INT); DROP VIEW IF EXISTS if",
		"SELECT POSITION((a IN (1)) IN b), POSITION(a || b IN c)",
		"SELECT x BETWEEN (a AND b) AND c, (x BETWEEN 1 AND 2) BETWEEN 3 AND 4, x LIKE (a = b) ESCAPE (c OR d)",
		"SELECT a = b = c, a = (b = c), a - (b + c), a / (b * c), (a || b) || c, a || (b || c)",
		"SELECT * FROM a, b JOIN c ON TRUE, d",
		"WITH w AS (SELECT 1) SELECT * FROM w UNION ALL (WITH v AS (SELECT 2) SELECT * FROM v)",
		"SELECT * FROM (VALUES (1, 2)) AS v",
		"SELECT a AS `from`, b `select` FROM `where`",
		"SELECT a FROM t GROUP BY ROLLUP(a, b), CUBE(c)",
		"SELECT a FROM t GROUP BY window_start, window_end, GROUPING SETS ((a), (), (a, b + 1), ROLLUP(a, (b, c)), GROUPING SETS (CUBE(c)))",
		"SELECT GROUPING(a), GROUPING_ID(a, b), GROUP_ID() FROM t GROUP BY (), (a, b), (a), ((SELECT 1, 2)), `rollup`(a), ROLLUP((a), ())",
		"SELECT grouping, rollup, cube FROM t GROUP BY grouping, rollup, cube, GROUPING(a)",
		"SELECT CAST(a AS ARRAY<ROW<`x y` INT NOT NULL COMMENT 'c'>> NOT NULL), TRY_CAST(b AS MAP<STRING, DECIMAL(10, 2)>)",
		"SELECT IF(a, b, c), `if`(a), DATE_FORMAT(ts, 'yyyy')",
	} {
		stmts, err := Parse(src)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		checkRoundTrip(t, stmts)
	}
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile("testdata/nexmark_q5.sql")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(string(src)); err != nil {
			b.Fatal(err)
		}
	}
}

// A flat chain of thousands of terms parses, renders and reads back the
// same; it is not nesting.
func TestLongChain(t *testing.T) {
	n := 5000
	if raceEnabled {
		n = 1500 // still past the nesting limit of 1000 a chain must not hit
	}
	for _, sep := range []string{" OR ", " AND ", " + ", " - ", " * ", " || "} {
		terms := make([]string, n)
		for i := range terms {
			terms[i] = fmt.Sprintf("a%d", i)
			if sep == " OR " {
				terms[i] = fmt.Sprintf("a = %d", i)
			}
		}
		src := "SELECT " + strings.Join(terms, sep) + " FROM t"
		stmts, err := Parse(src)
		if err != nil {
			t.Fatalf("%q chain: %v", sep, err)
		}
		got := stmts[0].String()
		if got != src {
			t.Errorf("%q chain renders as %s", sep, abbrev(got))
		}
		again, err := Parse(got)
		if err != nil || again[0].String() != got {
			t.Errorf("%q chain does not read back: %v", sep, err)
		}
	}
}
