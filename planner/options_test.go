package planner

import (
	"errors"
	"strings"
	"testing"

	"github.com/strandsql/strand/parser"
)

const optionsDDL = `CREATE TABLE f (ts TIMESTAMP(3), a INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv')`

// planned plans the last statement of src after running the others in a
// session with the table f.
func planned(t *testing.T, src string) (Node, error) {
	t.Helper()
	s := session(t)
	stmts, err := parser.Parse(optionsDDL + ";\n" + src)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:len(stmts)-1] {
		if err := s.Exec(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := PlanQuery(s.Catalog, stmts[len(stmts)-1])
	if err == nil && s.Catalog.Table("f").Options["path"] != "in.csv" {
		t.Errorf("the hint changed the catalog's table: %v", s.Catalog.Table("f").Options)
	}
	return plan, err
}

func tableOf(n Node) *Table {
	switch n := n.(type) {
	case *Scan:
		return n.Table
	case *Sink:
		if n.Table != nil {
			return n.Table
		}
	}
	for _, in := range n.Inputs() {
		if t := tableOf(in); t != nil {
			return t
		}
	}
	return nil
}

// TestOptionsHint: OPTIONS after a table name overrides its WITH options
// for that reference only, the later of two for one key winning.
func TestOptionsHint(t *testing.T) {
	plan, err := planned(t, "SELECT a FROM f /*+ OPTIONS('path' = 'other.csv'), OPTIONS(`format` = 'csv', 'path' = 'last.csv') */ AS x WHERE x.a > 1")
	if err != nil {
		t.Fatal(err)
	}
	if got := tableOf(plan).Options; got["path"] != "last.csv" || got["format"] != "csv" || got["connector"] != "filesystem" {
		t.Errorf("options %v", got)
	}
	plan, err = planned(t, "CREATE TABLE o (a INT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');\n"+
		"INSERT INTO o /*+ OPTIONS('path' = 'elsewhere') */ SELECT a FROM f")
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.(*Sink).Table; got.Name != "o" || got.Options["path"] != "elsewhere" {
		t.Errorf("sink table %s %v", got.Name, got.Options)
	}
}

func TestOptionsHintErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind error
		want string
	}{
		{"SELECT a FROM f /*+ OPTIONS('nope' = 'x') */", ErrOption, "3:29: unknown option 'nope' for connector 'filesystem'"},
		{"SELECT a FROM f /*+ OPTIONS('format' = 'xml') */", ErrOption, "3:29:"},
		{"SELECT a FROM f /*+ OPTIONS('path') */", ErrHint, "3:29: OPTIONS takes 'key' = 'value' pairs"},
		{"SELECT a FROM f /*+ OPTIONS */", ErrHint, "3:21: OPTIONS takes 'key' = 'value' pairs"},
		{"CREATE VIEW v AS SELECT a FROM f;\nSELECT a FROM v /*+ OPTIONS('path' = 'x') */", ErrHint, "4:21: OPTIONS overrides the WITH options of a table, and 'v' is a view or WITH query"},
		{"WITH w AS (SELECT a FROM f) SELECT a FROM w /*+ OPTIONS('path' = 'x') */", ErrHint, "3:49: OPTIONS overrides the WITH options of a table, and 'w' is a view or WITH query"},
		{"CREATE TABLE o (a INT) WITH ('connector' = 'blackhole');\nINSERT INTO o /*+ OPTIONS('path' = 'x') */ SELECT a FROM f", ErrOption, "4:27: unknown option 'path' for connector 'blackhole'"},
	}
	for _, tc := range tests {
		_, err := planned(t, tc.src)
		if !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s\n got %v\nwant %v: %s", tc.src, err, tc.kind, tc.want)
		}
	}
}
