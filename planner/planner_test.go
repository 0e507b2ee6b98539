package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

const testDDL = `CREATE TABLE t (ts TIMESTAMP(3), i INT, b BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'blackhole')`

// testSession applies DDL to a catalog and plans queries, the part of a
// session the planner's tests need.
type testSession struct{ Catalog *Catalog }

func (s *testSession) Exec(_ context.Context, st parser.Statement) error {
	switch st := st.(type) {
	case *parser.CreateTable:
		return s.Catalog.CreateTable(st, "", "")
	case *parser.CreateView:
		return s.Catalog.CreateView(st)
	case *parser.DropTable:
		return s.Catalog.Drop(st.Name, st.IfExists, false)
	case *parser.DropView:
		return s.Catalog.Drop(st.Name, st.IfExists, true)
	case *parser.Set:
		return nil // options are the session's; planning does not read them
	}
	_, err := PlanQuery(s.Catalog, st)
	return err
}

func (s *testSession) ExecScript(ctx context.Context, src string) error {
	stmts, err := parser.Parse(src)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := s.Exec(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

func session(t *testing.T) *testSession {
	t.Helper()
	s := &testSession{Catalog: NewCatalog()}
	if err := s.ExecScript(t.Context(), testDDL); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExpressionTypes checks Flink's typing rules as the binder applies
// them.
func TestExpressionTypes(t *testing.T) {
	s := session(t)
	cases := map[string]string{
		"i + 1":                             "INT",
		"i + b":                             "BIGINT",
		"i / 2":                             "INT",
		"i + d":                             "DOUBLE",
		"m + m":                             "DECIMAL(11, 2)",
		"m * m":                             "DECIMAL(20, 4)",
		"m / m":                             "DECIMAL(23, 13)",
		"m + i":                             "DECIMAL(13, 2)",
		"1.5":                               "DECIMAL(2, 1) NOT NULL",
		"1e3":                               "DOUBLE NOT NULL",
		"ts + INTERVAL '1' HOUR":            "TIMESTAMP(3)",
		"s || 'x'":                          "STRING",
		"CASE WHEN i > 0 THEN b ELSE 0 END": "BIGINT",
		"COALESCE(i, 0)":                    "INT NOT NULL",
		"i IS NULL":                         "BOOLEAN NOT NULL",
		"CAST(s AS DATE)":                   "DATE",
		"EXTRACT(YEAR FROM ts)":             "BIGINT",
	}
	for src, want := range cases {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := bindExpr(&exprCtx{scope: scopeOf(s.Catalog.Table("t").Schema, "t")}, e)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if typ := got.Type().Plain().String(); typ != want {
			t.Errorf("%s: type %s, want %s", src, typ, want)
		}
	}
}

func TestTypeErrors(t *testing.T) {
	s := session(t)
	for _, src := range []string{"s + 1", "i AND TRUE", "ts < 1", "UPPER(i)", "nope(1)", "x"} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = bindExpr(&exprCtx{scope: scopeOf(s.Catalog.Table("t").Schema, "t")}, e)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want a positioned planner error", src, err)
		}
	}
}

func TestOptimizeMergesProjections(t *testing.T) {
	s := session(t)
	stmts, err := parser.Parse("SELECT x + 1 FROM (SELECT i AS x, s FROM (SELECT * FROM t)) WHERE x > 0")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanQuery(s.Catalog, stmts[0])
	if err != nil {
		t.Fatal(err)
	}
	got := Explain(Optimize(plan))
	want := "Collect(fields=[EXPR$0], changelogMode=[I])\n+- Project(($1:i + 1) AS EXPR$0, changelogMode=[I])\n   +- Filter(condition=[($1:i > 0)], changelogMode=[I])\n      +- Scan("
	if !strings.HasPrefix(got, want) {
		t.Errorf("optimized plan:\n%s\nwant prefix:\n%s", got, want)
	}
}

func TestIntervalLiterals(t *testing.T) {
	for src, want := range map[string]int64{
		"INTERVAL '10' SECOND":                  10 * types.MsSecond,
		"INTERVAL '1.5' SECOND":                 1500,
		"INTERVAL '1:30' HOUR TO MINUTE":        90 * types.MsMinute,
		"INTERVAL '1 02:03:04.5' DAY TO SECOND": types.MsDay + 2*types.MsHour + 3*types.MsMinute + 4500,
		"INTERVAL '-2' MINUTE":                  -2 * types.MsMinute,
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		ms, _, err := intervalValue(e.(*parser.IntervalLit))
		if err != nil || ms != want {
			t.Errorf("%s = %d, %v; want %d", src, ms, err, want)
		}
	}
}

// TestExplainTreeLines: inputs hang under their parent after "+- ", and
// an input with siblings after it after ":- ", whose subtree the ":"
// continues down to.
func TestExplainTreeLines(t *testing.T) {
	leaf := func(name string) Node { return &Scan{Table: &Table{Name: name}} }
	two := &Union{Ins: []Node{&Filter{Input: leaf("a"), Cond: &expr.Lit{V: types.Value{Type: types.TBoolean, Bool: true}}}, leaf("b")}}
	got := Explain(&Sink{Input: two})
	want := `Collect(fields=[], changelogMode=[I])
+- Union(all=[true], union=[], changelogMode=[I])
   :- Filter(condition=[TRUE], changelogMode=[I])
   :  +- Scan(table=[a], fields=[], changelogMode=[I])
   +- Scan(table=[b], fields=[], changelogMode=[I])
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
