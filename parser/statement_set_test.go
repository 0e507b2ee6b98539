package parser

import (
	"strings"
	"testing"
)

func TestStatementSet(t *testing.T) {
	tests := []struct{ in, want string }{
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT x FROM t; INSERT INTO b SELECT y FROM t; END",
			"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT x FROM t; INSERT INTO b SELECT y FROM t; END"},
		{"execute statement set begin insert into a select 1;; end", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END"},
		{"BEGIN STATEMENT SET;\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND",
			"BEGIN STATEMENT SET; INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END"},
		{"EXPLAIN STATEMENT SET BEGIN INSERT INTO a SELECT 1; END", "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END"},
		{"EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END", "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END"},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.in + ";")
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
	// The statements after a set are statements of their own.
	stmts, err := Parse("BEGIN STATEMENT SET; INSERT INTO a SELECT 1; END; SELECT 2;")
	if err != nil || len(stmts) != 2 {
		t.Fatalf("a set and a query: %d statements, %v", len(stmts), err)
	}
	set := stmts[0].(*StatementSet)
	if len(set.Inserts) != 1 || set.Inserts[0].Start != (Pos{Offset: 21, Line: 1, Column: 22}) {
		t.Errorf("the set's INSERT: %+v", set.Inserts)
	}
}

func TestStatementSetErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"EXECUTE STATEMENT SET BEGIN END", `1:1: syntax error: a statement set needs at least one INSERT before END`},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;", `1:52: syntax error: the statement set that starts at 1:1 has no END`},
		{"EXECUTE STATEMENT SET BEGIN\n  SELECT 1; END", `2:3: syntax error: a statement set holds only INSERT statements, found "SELECT"`},
		{"BEGIN STATEMENT SET;\nCREATE TABLE t (a INT); END", `2:1: syntax error: a statement set holds only INSERT statements, found "CREATE"`},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1 END", `1:52: syntax error: unexpected "END", expecting`},
		{"EXECUTE STATEMENT SET INSERT INTO a SELECT 1; END", `1:23: syntax error: unexpected "INSERT", expecting BEGIN`},
		{"BEGIN STATEMENT SET INSERT INTO a SELECT 1; END", `1:21: syntax error: unexpected "INSERT", expecting ";"`},
		{"EXECUTE STATEMENT SET BEGIN BEGIN STATEMENT SET; END", `1:29: syntax error: a statement set cannot hold another one`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q):\n got %v\nwant %s...", tc.src, err, tc.want)
		}
	}
}

func TestCreateTableLike(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CREATE TABLE t2 WITH ('path' = 'x') LIKE t1", "CREATE TABLE t2 WITH ('path' = 'x') LIKE t1"},
		{"CREATE TABLE t2 (WATERMARK FOR ts AS ts) LIKE t1 (EXCLUDING ALL INCLUDING GENERATED OVERWRITING OPTIONS)",
			"CREATE TABLE t2 (WATERMARK FOR ts AS ts) LIKE t1 (EXCLUDING ALL INCLUDING GENERATED OVERWRITING OPTIONS)"},
		{"create table t2 (c int) like db.t1 (including watermarks, excluding partitions, overwriting metadata)",
			"CREATE TABLE t2 (c INT) LIKE db.t1 (INCLUDING WATERMARKS EXCLUDING PARTITIONS OVERWRITING METADATA)"},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := stmts[0].String(); got != tc.want {
			t.Errorf("Parse(%q).String():\n got %s\nwant %s", tc.in, got, tc.want)
		}
		checkRoundTrip(t, stmts)
	}
	stmts, _ := Parse("CREATE TABLE t2 (a INT)\nLIKE t1 (EXCLUDING OPTIONS)")
	like := stmts[0].(*CreateTable).Like
	if like.Start != (Pos{Offset: 24, Line: 2, Column: 1}) || like.Options[0].Start != (Pos{Offset: 33, Line: 2, Column: 10}) {
		t.Errorf("positions: LIKE at %v, its option at %v", like.Start, like.Options[0].Start)
	}
	errs := []struct{ src, want string }{
		{"CREATE TABLE t2 WITH ('k' = 'v')", `1:17: syntax error: unexpected "WITH", expecting "("`},
		{"CREATE TABLE t2 LIKE t1 (OVERWRITING ALL)", `1:26: syntax error: OVERWRITING does not apply to ALL, only to GENERATED, METADATA, OPTIONS and WATERMARKS; use INCLUDING or EXCLUDING`},
		{"CREATE TABLE t2 LIKE t1 (EXCLUDING COLUMNS)", `1:36: syntax error: unexpected "COLUMNS", expecting ALL, CONSTRAINTS, GENERATED, METADATA, OPTIONS, PARTITIONS, ...`},
		{"CREATE TABLE t2 LIKE t1 (EXCLUDING OPTIONS INCLUDING OPTIONS)", `1:44: syntax error: a LIKE clause sets the strategy for OPTIONS more than once`},
		{"CREATE TABLE t2 LIKE t1 (KEEPING OPTIONS)", `1:26: syntax error: unexpected "KEEPING", expecting INCLUDING, EXCLUDING or OVERWRITING`},
	}
	for _, tc := range errs {
		_, err := Parse(tc.src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}
