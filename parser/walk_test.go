package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestChildren checks that Children reaches every node of a tree (compared
// with a reflective walk), and that every node has a position whose offset
// agrees with its line and column.
func TestChildren(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.sql")
	srcs := []string{
		"SELECT CAST(a AS ROW<x ARRAY<INT> COMMENT 'c'>), CASE a WHEN 1 THEN 2 ELSE 3 END, EXTRACT(DAY FROM b), FLOOR(c TO DAY)," +
			" SUBSTRING(d FROM 1 FOR 2), TRIM(BOTH 'x' FROM e), POSITION('a' IN f), g IS NULL, h IS TRUE, i BETWEEN 1 AND 2," +
			" j IN (1), k IN (SELECT 1), EXISTS (VALUES (1)), (SELECT 1), l LIKE 'x' ESCAPE '!', -m, DATE '2020-01-01', NULL, TRUE," +
			" INTERVAL '1' DAY, SUM(n) FILTER (WHERE o) OVER (PARTITION BY p ORDER BY q ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), t.*" +
			" FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) AS w JOIN u FOR SYSTEM_TIME AS OF w.p ON TRUE, (SELECT 1) AS s" +
			" WHERE TRUE GROUP BY a, ROLLUP(b, (c, d)), () HAVING TRUE UNION SELECT 1 ORDER BY 1 LIMIT 1",
		"WITH c (x) AS (SELECT 1) VALUES (1) ORDER BY 1 LIMIT 1; SET 'a' = 'b'; RESET 'a'; EXPLAIN SHOW TABLES; SHOW VIEWS; DESCRIBE t;" +
			" DROP TABLE t; DROP VIEW v; CREATE VIEW v (a) AS SELECT 1; INSERT INTO t /*+ OPTIONS('k' = 'v') */ (a) SELECT /*+ UID('u'), B(x, 1) */ 1 FROM u /*+ C */;" +
			" CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b AS a, CONSTRAINT k PRIMARY KEY (a) NOT ENFORCED) COMMENT 'c' PARTITIONED BY (a) WITH ('k' = 'v')",
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, string(b))
	}
	kinds := map[string]bool{}
	for _, src := range srcs {
		stmts, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			var viaChildren []Node
			Inspect(s, func(n Node) bool {
				viaChildren = append(viaChildren, n)
				kinds[fmt.Sprintf("%T", n)] = true
				checkPos(t, src, n)
				return true
			})
			var viaReflect []Node
			reflectNodes(reflect.ValueOf(s), &viaReflect)
			if len(viaChildren) != len(viaReflect) {
				t.Errorf("Children reaches %d nodes of %s, reflection %d", len(viaChildren), s, len(viaReflect))
			}
		}
	}
	if len(kinds) < 58 {
		t.Errorf("only %d node types covered: %v", len(kinds), kinds)
	}
}

func checkPos(t *testing.T, src string, n Node) {
	t.Helper()
	p := n.Pos()
	if p.Line < 1 || p.Column < 1 || p.Offset < 0 || p.Offset >= len(src) {
		t.Errorf("%T %s: bad position %+v", n, n, p)
		return
	}
	line := 1 + strings.Count(src[:p.Offset], "\n")
	col := 1 + len([]rune(src[strings.LastIndexByte(src[:p.Offset], '\n')+1:p.Offset]))
	if line != p.Line || col != p.Column {
		t.Errorf("%T %s: position %+v, offset says %d:%d", n, n, p, line, col)
	}
}

// reflectNodes collects every Node reachable through exported fields.
func reflectNodes(v reflect.Value, out *[]Node) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		if n, ok := v.Interface().(Node); ok && v.Kind() == reflect.Pointer {
			*out = append(*out, n)
		}
		reflectNodes(v.Elem(), out)
	case reflect.Slice:
		for i := range v.Len() {
			reflectNodes(v.Index(i), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			reflectNodes(v.Field(i), out)
		}
	}
}

func TestInspectSkip(t *testing.T) {
	e, err := ParseExpr("f(a + b, (SELECT c FROM t)) AND d")
	if err != nil {
		t.Fatal(err)
	}
	var idents []string
	Inspect(e, func(n Node) bool {
		if id, ok := n.(*Ident); ok {
			idents = append(idents, id.String())
		}
		_, sub := n.(*ScalarQuery)
		return !sub
	})
	if got := strings.Join(idents, " "); got != "a b d" {
		t.Errorf("got %q", got)
	}
}
