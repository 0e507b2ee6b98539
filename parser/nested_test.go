package parser

import "testing"

func TestNestedSyntax(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a[1]", "a[1]"},
		{"t.m['k'][2]", "t.m['k'][2]"},
		{"a[i + 1].f.g", "a[i + 1].f.g"},
		{"ARRAY[1, 2] || x", "ARRAY[1, 2] || x"},
		{"MAP['a', 1, 'b', 2]['a']", "MAP['a', 1, 'b', 2]['a']"},
		{"ARRAY[]", "ARRAY[]"},
		{"ROW(1, 'a').f", "ROW(1, 'a').f"},
		{"(r).f", "(r).f"},
		{"CARDINALITY(a) + 1", "CARDINALITY(a) + 1"},
		{"CAST(x AS ARRAY<ROW<a INT, `b c` MAP<STRING, ARRAY<INT>>>>)", "CAST(x AS ARRAY<ROW<a INT, `b c` MAP<STRING, ARRAY<INT>>>>)"},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := e.String()
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
		again, err := ParseExpr(got)
		if err != nil || again.String() != got {
			t.Errorf("%s does not re-parse: %v", got, err)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"SELECT o.id, t.tag FROM o CROSS JOIN UNNEST(o.tags) AS t (tag)", "SELECT o.id, t.tag FROM o CROSS JOIN UNNEST(o.tags) AS t (tag)"},
		{"SELECT * FROM o LEFT JOIN UNNEST(m) WITH ORDINALITY u (k, v, n) ON TRUE", "SELECT * FROM o LEFT JOIN UNNEST(m) WITH ORDINALITY AS u (k, v, n) ON TRUE"},
		{"SELECT * FROM o CROSS JOIN UNNEST(a, b)", "SELECT * FROM o CROSS JOIN UNNEST(a, b)"},
	} {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := st[0].String(); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"a[1", "a[]", "ARRAY[1,", "a.[1]"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
