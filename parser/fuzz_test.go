package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input panics, and that whatever parses renders
// to text that parses back to the same rendering.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"SELECT a, b FROM t WHERE a > 1 AND NOT b IS NULL",
		"SELECT COUNT(DISTINCT x) FILTER (WHERE y BETWEEN 1 AND 2) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)",
		"CREATE TABLE t (a INT NOT NULL, b AS a + 1, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) WITH ('k' = 'v')",
		"INSERT INTO t (a) SELECT * FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '10' SECOND))",
		"SELECT CASE WHEN a THEN 1 ELSE 2 END, CAST(x AS DECIMAL(10, 2)), EXTRACT(YEAR FROM ts), FLOOR(ts TO HOUR)",
		"SELECT SUBSTRING(s FROM 1 FOR 2), TRIM(BOTH 'x' FROM s), POSITION('a' IN s), a || b, -a, - -a",
		"WITH x AS (SELECT 1) SELECT * FROM x UNION ALL SELECT 2 ORDER BY 1 DESC NULLS LAST LIMIT 3",
		"SELECT * FROM a LEFT JOIN b ON a.x = b.x, c; SET 'a' = 'b'; RESET; SHOW TABLES; EXPLAIN PLAN FOR SELECT 1",
		"SELECT a IN (1, 2), b NOT LIKE 'x' ESCAPE '!', c IS NOT TRUE, `select`.`a``b` FROM t",
		"SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t",
		"CREATE VIEW v (a) AS VALUES (1), (2); DROP VIEW IF EXISTS v; DESCRIBE t",
		"SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00', INTERVAL '1:30' HOUR TO MINUTE, CURRENT_TIMESTAMP",
		"SELECT (SELECT 1), EXISTS (SELECT 1), a IN (SELECT b FROM t) -- c\n/* d */",
		"SELECT 'unterminated",
		"SELECT a FORM t",
		"HELP; SOURCE 'a.sql'; SHOW FUNCTIONS; SHOW CREATE TABLE a.b; SHOW CREATE VIEW v; STOP JOB 'x' WITH SAVEPOINT",
		"SELECT /*+ UID('a*/b'), B(t, `x`, 1), C */ a FROM t /*+ OPTIONS('k'='v', k2='w') */ AS s; INSERT INTO t /*+ X */ SELECT 1 /*+ y",
		"SELECT a, GROUPING(a, b), GROUP_ID() FROM t GROUP BY GROUPING SETS ((a, b), a, ()), ROLLUP((a, b), c), CUBE(a) HAVING GROUPING_ID(a) = 0",
		"SELECT SUM(a) OVER w, RANK() OVER (PARTITION BY a ORDER BY b DESC) FROM t WINDOW w AS (PARTITION BY a ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW), w2 AS (ORDER BY b ROWS 2 PRECEDING)",
		"SELECT DISTINCT a FROM t UNION SELECT b FROM u INTERSECT ALL SELECT c FROM v EXCEPT SELECT d FROM w UNION DISTINCT SELECT e FROM x",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	files, _ := filepath.Glob("testdata/*.sql")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := Parse(src)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			_ = FormatError("f.sql", src, err)
			return
		}
		text := render(stmts)
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("rendering of %q does not parse: %v\n%s", src, err, text)
		}
		if text2 := render(again); text2 != text {
			t.Fatalf("rendering of %q is not stable:\n%s\n%s", src, text, text2)
		}
		if !sameTree(stmts, again) {
			t.Fatalf("rendering of %q parses to a different tree:\n%s", src, text)
		}
	})
}

func render(stmts []Statement) string {
	parts := make([]string, len(stmts))
	for i, s := range stmts {
		parts[i] = s.String()
	}
	return strings.Join(parts, ";\n")
}

// FuzzParseExpr is FuzzParse for single expressions.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{"a + b * c", "NOT a = b IS NULL", "x BETWEEN 1 AND 2 OR y IN (1)", "f(DISTINCT a) OVER ()", "-(-1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src)
		if err != nil {
			return
		}
		again, err := ParseExpr(e.String())
		if err != nil {
			t.Fatalf("rendering of %q does not parse: %v\n%s", src, err, e)
		}
		if !sameTree(e, again) {
			t.Fatalf("rendering of %q parses to a different tree:\n%s", src, e)
		}
	})
}
