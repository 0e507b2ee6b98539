package parser

import (
	"strings"
	"testing"
)

func TestHints(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT /*+ UID('per_user') */ a FROM t", "SELECT /*+ UID('per_user') */ a FROM t"},
		{"select /*+uid('x'),broadcast(t1, `select`),NEST_LOOP*/ distinct a from t", "SELECT /*+ UID('x'), BROADCAST(t1, `select`), NEST_LOOP */ DISTINCT a FROM t"},
		{"SELECT /*+ LOOKUP('table'='D', retry = 'fixed_delay'), N(1, 2.5), E() */ 1", "SELECT /*+ LOOKUP('table' = 'D', retry = 'fixed_delay'), N(1, 2.5), E */ 1"},
		{"SELECT /*+ A */ /*+ B */ 1", "SELECT /*+ A, B */ 1"},
		{"SELECT * FROM t /*+ OPTIONS('scan.startup.mode'='earliest-offset') */ AS x", "SELECT * FROM t /*+ OPTIONS('scan.startup.mode' = 'earliest-offset') */ AS x"},
		{"SELECT * FROM a /*+ OPTIONS('k'='v') */ JOIN b /*+ OPTIONS('k'='w') */ FOR SYSTEM_TIME AS OF a.p ON TRUE",
			"SELECT * FROM a /*+ OPTIONS('k' = 'v') */ JOIN b /*+ OPTIONS('k' = 'w') */ FOR SYSTEM_TIME AS OF a.p ON TRUE"},
		{"INSERT INTO t /*+ OPTIONS('sink.x'='1') */ (a) SELECT 1", "INSERT INTO t /*+ OPTIONS('sink.x' = '1') */ (a) SELECT 1"},
		// A hint may hold */ and -- in quotes.
		{"SELECT /*+ UID('a*/b--c'), X(`*/`) */ 1", "SELECT /*+ UID('a*/b--c'), X(`*/`) */ 1"},
		{"SELECT /*+ UID('it''s') */ 1", "SELECT /*+ UID('it''s') */ 1"},
		// Plain comments stay comments, wherever they are.
		{"SELECT /* x */ a /**/ FROM t /*+x*/", "SELECT a FROM t /*+ X */"},
		{"SELECT /* +x */ a FROM t /***/", "SELECT a FROM t"},
		{"SELECT /*+ A(b) -- c\n */ 1", "SELECT /*+ A(b) */ 1"},
		// Comments do not nest: the first */ ends one.
		{"SELECT 1 /* a /* b */", "SELECT 1"},
	}
	for _, tc := range tests {
		stmts, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := stmts[0].String(); got != tc.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
		checkRoundTrip(t, stmts)
	}
}

func TestHintTree(t *testing.T) {
	src := "SELECT\n  /*+ UID('u'),\n   OPTIONS(k = 'v') */ a FROM t /*+ B(x, 3) */ AS s"
	stmts, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	s := stmts[0].(*Select)
	if len(s.Hints) != 2 || s.Hints[0].Name != "UID" || s.Hints[1].Name != "OPTIONS" {
		t.Fatalf("query hints %v", s.Hints)
	}
	uid := s.Hints[0]
	if v, ok := uid.Options[0].Value.(*StringLit); !ok || v.Value != "u" || uid.Options[0].Key != nil {
		t.Errorf("UID option %#v", uid.Options[0])
	}
	if got := uid.Start.String(); got != "2:7" {
		t.Errorf("UID at %s, want 2:7", got)
	}
	kv := s.Hints[1].Options[0]
	if k, ok := kv.Key.(*Ident); !ok || k.Parts[0] != "k" || kv.Value.(*StringLit).Value != "v" {
		t.Errorf("OPTIONS option %#v", kv)
	}
	if got := kv.Start.String(); got != "3:12" {
		t.Errorf("OPTIONS option at %s, want 3:12", got)
	}
	ref := s.From.(*TableRef)
	if len(ref.Hints) != 1 || ref.Alias != "s" || ref.Hints[0].Name != "B" || ref.Hints[0].Options[1].Value.(*NumberLit).Text != "3" {
		t.Errorf("table hints %v alias %q", ref.Hints, ref.Alias)
	}
	var n int
	Inspect(s, func(x Node) bool {
		if _, ok := x.(*Hint); ok {
			n++
		}
		checkPos(t, src, x)
		return true
	})
	if n != 3 {
		t.Errorf("Inspect reaches %d hints, want 3", n)
	}
}

func TestHintErrors(t *testing.T) {
	const misplaced = "a hint /*+ ... */ may only follow SELECT, or a table name before its alias; write /* ... */ for a comment"
	tests := []struct{ src, want string }{
		{"SELECT a /*+ UID('x') */ FROM t", "1:10: syntax error: " + misplaced},
		{"SELECT a FROM t AS s /*+ OPTIONS('k'='v') */", "1:22: syntax error: " + misplaced},
		{"SELECT a FROM (SELECT 1) /*+ X */", "1:26: syntax error: " + misplaced},
		{"SELECT a FROM t WHERE a = /*+ X */ 1", "1:27: syntax error: " + misplaced},
		{"/*+ X */ SELECT 1", "1:1: syntax error: " + misplaced},
		{"SELECT DISTINCT /*+ X */ a FROM t", "1:17: syntax error: " + misplaced},
		{"SELECT /*+ UID('x') 1", "1:8: syntax error: unterminated /*+ hint: no */ closes it outside quotes"},
		{"SELECT /*+ UID('x */') 1", "1:8: syntax error: unterminated /*+ hint: no */ closes it outside quotes"},
		{"SELECT /*+ */ 1", `1:12: syntax error: unexpected "*/", expecting hint name`},
		{"SELECT /*+ UID('x') UID('y') */ 1", `1:21: syntax error: unexpected "UID", expecting "," or "*/"`},
		{"SELECT /*+ UID('x' */ 1", `1:20: syntax error: unexpected "*/", expecting "=", "," or ")"`},
		{"SELECT /*+ OPTIONS('k' = v) */ 1", `1:26: syntax error: unexpected "v", expecting string`},
		{"SELECT /*+ X(a.b) */ 1", `1:15: syntax error: unexpected ".", expecting "=", "," or ")"`},
		{"SELECT /*+ X(1 = '2') */ 1", `1:16: syntax error: unexpected "=", expecting "," or ")"`},
		{"SELECT /*+ FROM */ 1", `1:12: syntax error: unexpected "FROM", expecting hint name`},
		{"SELECT\n /*+ X('a\n */ 1", "2:2: syntax error: unterminated /*+ hint: no */ closes it outside quotes"},
		// The first */ ends a hint, leaving a comment opened in it open.
		{"SELECT /*+ A /* b */ 1", `1:14: syntax error: unterminated /* comment`},
		{"SELECT 1 /* a /* b */ */", `1:24: syntax error: unexpected "/", expecting expression`},
		{"SELECT\n  /*+ X(\n  ;) */ 1", `3:3: syntax error: unexpected ";", expecting ")", string, number or identifier`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want %s", tc.src, tc.want)
			continue
		}
		if got := err.Error(); got != tc.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
	// A caret points into the hint.
	src := "SELECT /*+ OPTIONS('k' = v) */ 1"
	_, err := Parse(src)
	if got := FormatError("", src, err); !strings.HasSuffix(got, "\n  "+src+"\n  "+strings.Repeat(" ", 25)+"^") {
		t.Errorf("caret:\n%s", got)
	}
}
