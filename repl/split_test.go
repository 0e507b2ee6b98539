package repl

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		name, src string
		stmts     []string
		rest      string
		complete  bool
	}{
		{"empty", "", nil, "", true},
		{"blank", "  \n\t", nil, "  \n\t", true},
		{"one", "SELECT 1;", []string{"SELECT 1;"}, "", true},
		{"unterminated", "SELECT 1", nil, "SELECT 1", false},
		{"two on a line", "SELECT 1; SELECT 2;", []string{"SELECT 1;", " SELECT 2;"}, "", true},
		{"one and a half", "SELECT 1; SELECT", []string{"SELECT 1;"}, " SELECT", false},
		{"multi-line", "CREATE TABLE t (\n  a INT\n) WITH ('connector' = 'datagen');\n", []string{"CREATE TABLE t (\n  a INT\n) WITH ('connector' = 'datagen');"}, "\n", true},
		{"semicolon in string", "SELECT 'a;b';", []string{"SELECT 'a;b';"}, "", true},
		{"doubled quote", "SELECT 'it''s;';", []string{"SELECT 'it''s;';"}, "", true},
		{"open string", "SELECT 'a;\nb", nil, "SELECT 'a;\nb", false},
		{"back quotes", "SELECT `a;b` FROM t;", []string{"SELECT `a;b` FROM t;"}, "", true},
		{"double quotes", `SELECT "a;b";`, []string{`SELECT "a;b";`}, "", true},
		{"line comment", "SELECT 1 -- a; b\n;", []string{"SELECT 1 -- a; b\n;"}, "", true},
		{"open line comment", "SELECT 1 -- a;", nil, "SELECT 1 -- a;", false},
		{"comment alone", "-- just a note", nil, "-- just a note", true},
		{"block comment", "SELECT /* ; */ 1;", []string{"SELECT /* ; */ 1;"}, "", true},
		{"open block comment", "SELECT /* ;", nil, "SELECT /* ;", false},
		{"block comment alone", "/* a; */ ", nil, "/* a; */ ", true},
		{"hint", "SELECT /*+ UID('a;*/b') */ x FROM t;", []string{"SELECT /*+ UID('a;*/b') */ x FROM t;"}, "", true},
		{"open hint", "SELECT /*+ UID('a') ;", nil, "SELECT /*+ UID('a') ;", false},
		{"comment after statement", "SELECT 1; -- done\n", []string{"SELECT 1;"}, " -- done\n", true},
		{"empty statement", ";", []string{";"}, "", true},
		{"statement set", "EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND; SELECT 3;",
			[]string{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;", " SELECT 3;"}, "", true},
		{"open statement set", "SELECT 0; -- sets\nexecute statement set begin INSERT INTO a SELECT 1;\n", []string{"SELECT 0;"}, " -- sets\nexecute statement set begin INSERT INTO a SELECT 1;\n", false},
		{"legacy statement set", "BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\n/* done */ end;",
			[]string{"BEGIN STATEMENT SET;\nINSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\n/* done */ end;"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stmts, rest, complete := Split(c.src)
			if !slices.Equal(stmts, c.stmts) || rest != c.rest || complete != c.complete {
				t.Errorf("Split(%q) = %q, %q, %v; want %q, %q, %v", c.src, stmts, rest, complete, c.stmts, c.rest, c.complete)
			}
		})
	}
}

// FuzzSplit checks that Split never panics and loses no input: the
// statements and the rest are src again, and each statement ends in ';'.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"SELECT 1;", "SELECT 'a;'; --x\n", "/*+ UID('*/') */;", "`a``;`;", "/* ;", "'", "\"x\";"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, rest, complete := Split(src)
		if got := strings.Join(stmts, "") + rest; got != src {
			t.Fatalf("Split(%q) lost input: %q", src, got)
		}
		for _, s := range stmts {
			if !strings.HasSuffix(s, ";") {
				t.Fatalf("Split(%q): statement %q does not end in ';'", src, s)
			}
		}
		if complete && strings.Contains(rest, ";") && !strings.ContainsAny(rest, "-/'`\"") {
			t.Fatalf("Split(%q): rest %q holds a ';'", src, rest)
		}
	})
}
