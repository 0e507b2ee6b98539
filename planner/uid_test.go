package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/parser"
)

// planUIDs runs every statement of src but the last in a session that has
// testDDL's table t, plans the last as strand runs it (bound, then
// optimized), and returns the uids of its stateful operators, root first.
func planUIDs(t *testing.T, src string) ([]string, error) {
	t.Helper()
	s := session(t)
	stmts, err := parser.Parse(src)
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	last := stmts[len(stmts)-1]
	for _, st := range stmts[:len(stmts)-1] {
		if err := s.Exec(t.Context(), st); err != nil {
			return nil, err
		}
	}
	plan, err := PlanQuery(s.Catalog, last)
	if err != nil {
		return nil, err
	}
	return StatefulUIDs(Optimize(plan)), nil
}

func mustUIDs(t *testing.T, src string) []string {
	t.Helper()
	uids, err := planUIDs(t, src)
	if err != nil {
		t.Fatalf("%s\n%v", src, err)
	}
	if len(uids) == 0 {
		t.Fatalf("%s\nhas no stateful operator", src)
	}
	return uids
}

const (
	tvf      = "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
	aggQuery = "SELECT window_start, window_end, i, COUNT(*) AS n, SUM(d) AS total FROM " + tvf + " GROUP BY window_start, window_end, i"
)

// TestUIDStability checks which edits of a query keep the uid of its
// window aggregate, so that a restore maps the old state, and which change
// it, so that a restore refuses state that means something else.
func TestUIDStability(t *testing.T) {
	base := mustUIDs(t, aggQuery)
	same := map[string]string{
		"a comment":        "-- per i\n" + strings.Replace(aggQuery, "FROM", "/* the window */ FROM", 1),
		"an output alias":  strings.Replace(aggQuery, "AS n", "AS clicks", 1),
		"no output alias":  strings.Replace(aggQuery, " AS total", "", 1),
		"a filter above":   "SELECT * FROM (" + aggQuery + ") WHERE n > 1",
		"a project above":  "SELECT i, n + 1 AS m, window_end FROM (" + aggQuery + ")",
		"a filter below":   strings.Replace(aggQuery, " GROUP BY", " WHERE s <> 'x' AND b > 0 GROUP BY", 1),
		"a view around it": "CREATE VIEW v AS " + aggQuery + ";\nSELECT i, n FROM v",
		"another statement": "CREATE TABLE u (a INT) WITH ('connector' = 'blackhole');\n" +
			"CREATE VIEW w AS SELECT a FROM u;\nSET 'parallelism.default' = '3';\n" + aggQuery,
		"an INSERT": "CREATE TABLE o (ws TIMESTAMP(3), we TIMESTAMP(3), i INT, n BIGINT, total DOUBLE) WITH ('connector' = 'blackhole');\nINSERT INTO o " + aggQuery,
	}
	for what, src := range same {
		if got := mustUIDs(t, src); !slices.Equal(got, base) {
			t.Errorf("%s changes the uid: %v, was %v\n%s", what, got, base, src)
		}
	}
	differ := map[string]string{
		"the window size":         strings.Replace(aggQuery, "'10' SECOND", "'20' SECOND", 1),
		"the window offset":       strings.Replace(aggQuery, "'10' SECOND))", "'10' SECOND, INTERVAL '1' SECOND))", 1),
		"a key replaced":          strings.ReplaceAll(aggQuery, " i", " b"),
		"a key added":             strings.Replace(aggQuery+", s", "i, COUNT", "i, s, COUNT", 1),
		"an aggregate added":      strings.Replace(aggQuery, "SUM(d) AS total", "SUM(d) AS total, MAX(b) AS top", 1),
		"an aggregate's argument": strings.Replace(aggQuery, "SUM(d)", "SUM(b)", 1),
		"an aggregate's kind":     strings.Replace(aggQuery, "SUM(d)", "MIN(d)", 1),
		"DISTINCT":                strings.Replace(aggQuery, "COUNT(*)", "COUNT(DISTINCT s)", 1),
		"the aggregates' order":   strings.Replace(aggQuery, "COUNT(*) AS n, SUM(d) AS total", "SUM(d) AS total, COUNT(*) AS n", 1),
		"the time column":         "CREATE VIEW v AS SELECT ts AS ts2, i, d FROM t;\n" + strings.ReplaceAll(strings.ReplaceAll(aggQuery, "TABLE t", "TABLE v"), "(ts)", "(ts2)"),
	}
	for what, src := range differ {
		got := mustUIDs(t, src)
		if slices.Equal(got, base) {
			t.Errorf("%s keeps the uid %v\n%s", what, got, src)
		}
	}
	if !strings.HasPrefix(base[0], "window-") {
		t.Errorf("derived uid %s", base[0])
	}
}

// TestWindowUIDComputedColumns checks that a window aggregate's uid says
// what its computed keys, arguments and FILTERs compute: changing one keeps
// its column's name and type, yet the state means something else, so a
// restore must refuse it. Reordering the table's columns changes only
// their positions, and keeps the uid.
func TestWindowUIDComputedColumns(t *testing.T) {
	const q = "SELECT window_start, UPPER(s) AS k, COUNT(*) FILTER (WHERE i > 1) AS n, SUM(d + 1) AS total FROM " + tvf +
		" GROUP BY window_start, window_end, UPPER(s)"
	base := mustUIDs(t, q)
	reordered := "CREATE TABLE r (s STRING, d DOUBLE, ts TIMESTAMP(3), i INT, " +
		"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'blackhole');\n" + strings.Replace(q, "TABLE t,", "TABLE r,", 1)
	got := mustUIDs(t, reordered)
	// The tables' names differ; with the same name and another column
	// order the uid would be base's.
	same := mustUIDs(t, "CREATE TABLE r (d DOUBLE, s STRING, i INT, ts TIMESTAMP(3), "+
		"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'blackhole');\n"+strings.Replace(q, "TABLE t,", "TABLE r,", 1))
	if !slices.Equal(got, same) {
		t.Errorf("reordering a table's columns changes the uid: %v, was %v", same, got)
	}
	differ := map[string]string{
		"a FILTER's predicate":     strings.Replace(q, "i > 1", "i > 2", 1),
		"an argument's expression": strings.Replace(q, "d + 1", "d + 2", 1),
		"a key's expression":       strings.ReplaceAll(q, "UPPER(s)", "LOWER(s)"),
	}
	for what, src := range differ {
		if got := mustUIDs(t, src); slices.Equal(got, base) {
			t.Errorf("%s keeps the uid %v\n%s", what, got, src)
		}
	}
}

// TestTopNUIDStability is TestUIDStability for a window Top-N, in both of
// its forms.
func TestTopNUIDStability(t *testing.T) {
	limit := "SELECT window_start, window_end, i, d FROM " + tvf + " ORDER BY d DESC LIMIT 3"
	rownum := "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, i ORDER BY n DESC) AS rn FROM (" + aggQuery + ")) WHERE rn <= 2"
	for _, base := range []string{limit, rownum} {
		uids := mustUIDs(t, base)
		same := []string{
			"-- a comment\n" + base,
			strings.Replace(strings.Replace(base, "LIMIT 3", "LIMIT 5", 1), "rn <= 2", "rn <= 4", 1), // the limit
			"SELECT * FROM (" + base + ") WHERE window_start IS NOT NULL",
			"SELECT i AS x FROM (" + base + ")",
			strings.ReplaceAll(base, "rn", "rownum"),
		}
		for _, src := range same {
			if got := mustUIDs(t, src); !slices.Equal(got, uids) {
				t.Errorf("uids %v, were %v\n%s", got, uids, src)
			}
		}
		differ := []string{
			strings.Replace(strings.Replace(base, "d DESC", "d ASC", 1), "n DESC", "n ASC", 1), // the order
			// The Top-N keeps its input's rows, whose names are those of
			// the select list of the SELECT it is in.
			strings.Replace(strings.Replace(base, "i, d FROM", "i AS k, d FROM", 1), "SELECT *, ROW", "SELECT window_start, window_end, i AS k, n, total, ROW", 1),
			strings.Replace(strings.Replace(base, "ORDER BY d", "ORDER BY i", 1), "ORDER BY n", "ORDER BY total", 1),
		}
		for _, src := range differ {
			got := mustUIDs(t, src)
			if got[0] == uids[0] {
				t.Errorf("the Top-N keeps uid %s\n%s", got[0], src)
			}
		}
		if !strings.HasPrefix(uids[0], "topn-") {
			t.Errorf("derived uid %s", uids[0])
		}
	}
}

// TestUIDHint checks that /*+ UID('...') */ names the operator of the
// SELECT it follows, and only that one.
func TestUIDHint(t *testing.T) {
	hinted := func(q, uid string) string { return strings.Replace(q, "SELECT", "SELECT /*+ UID('"+uid+"') */", 1) }
	derived := mustUIDs(t, aggQuery)
	if got := mustUIDs(t, hinted(aggQuery, "per_i")); !slices.Equal(got, []string{"per_i"}) {
		t.Errorf("hinted aggregate: %v", got)
	}
	// The hint survives edits that change the derived uid.
	if got := mustUIDs(t, hinted(strings.Replace(aggQuery, "'10' SECOND", "'20' SECOND", 1), "per_i")); !slices.Equal(got, []string{"per_i"}) {
		t.Errorf("hinted aggregate with another size: %v", got)
	}
	// ORDER BY ... LIMIT over the aggregate in one SELECT defines two
	// operators; in two, each SELECT names its own.
	twoLevels := hinted("SELECT * FROM ("+hinted(aggQuery, "counts")+") ORDER BY n DESC LIMIT 3", "top.3")
	if got := mustUIDs(t, twoLevels); !slices.Equal(got, []string{"top.3", "counts"}) {
		t.Errorf("Top-N over aggregate: %v", got)
	}
	// Only the Top-N named: the aggregate keeps its derived uid.
	if got := mustUIDs(t, hinted("SELECT * FROM ("+aggQuery+") ORDER BY n DESC LIMIT 3", "top-3")); got[0] != "top-3" || got[1] != derived[0] {
		t.Errorf("hinted Top-N: %v, aggregate was %s", got, derived[0])
	}
	// The ROW_NUMBER form: the outer SELECT bounds rownum and names the
	// Top-N; the inner one's aggregate is its own.
	rownum := hinted("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS rn FROM ("+hinted(aggQuery, "A")+")) WHERE rn <= 2", "B")
	if got := mustUIDs(t, rownum); !slices.Equal(got, []string{"B", "A"}) {
		t.Errorf("ROW_NUMBER Top-N: %v", got)
	}
	// GROUP BY TUMBLE(...) is a window aggregate too.
	legacy := "SELECT /*+ UID('legacy') */ TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE)"
	if got := mustUIDs(t, legacy); !slices.Equal(got, []string{"legacy"}) {
		t.Errorf("legacy window: %v", got)
	}
	// A view's hint holds wherever the view is read.
	if got := mustUIDs(t, "CREATE VIEW v AS "+hinted(aggQuery, "in_view")+";\nSELECT /* */ * FROM v ORDER BY n LIMIT 1"); got[1] != "in_view" {
		t.Errorf("view: %v", got)
	}
}

func TestUIDHintErrors(t *testing.T) {
	tests := []struct {
		src  string
		kind error
		want string
	}{
		{"SELECT /*+ UID('x') */ i FROM t", ErrHint, "1:12: UID names a stateful operator, and this SELECT defines none"},
		{"SELECT /*+ UID('x') */ * FROM (" + aggQuery + ")", ErrHint, "1:12: UID names a stateful operator, and this SELECT defines none"},
		{"SELECT /*+ UID('x') */ *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY i) AS rn FROM " + tvf, ErrHint, "1:12: UID names a stateful operator, and this SELECT defines none"},
		{"SELECT * FROM (SELECT /*+ UID('x') */ *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY i) AS rn FROM " + tvf + ") WHERE rn <= 1", ErrHint, "1:27: UID names a stateful operator, and this SELECT defines none"},
		{"SELECT /*+ UID('x') */ window_start, i, COUNT(*) AS n FROM " + tvf + " GROUP BY window_start, window_end, i ORDER BY n LIMIT 2", ErrHint,
			"1:12: this SELECT defines a window aggregate and a window Top-N, and UID names one operator"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID() */", 1), ErrHint, "1:12: UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('a', 'b') */", 1), ErrHint, "1:12: UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID(a) */", 1), ErrHint, "1:16: UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('k' = 'v') */", 1), ErrHint, "1:16: UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('') */", 1), ErrHint, "1:16: UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('a b') */", 1), ErrHint, "1:16: UID 'a b' holds ' ': UID takes one string"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('ä') */", 1), ErrHint, "1:16: UID 'ä' holds 'ä'"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('window-1') */", 1), ErrHint, "1:16: UID 'window-1' begins with 'window-', as the uids strand derives do"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('topn-1') */", 1), ErrHint, "begins with 'topn-'"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('source-t') */", 1), ErrHint, "begins with 'source-'"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('a'), uid('b') */", 1), ErrHint, "1:22: a SELECT takes one UID hint; another is at 1:12"},
		{"SELECT /*+ UID('x') */ * FROM (" + strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('x') */", 1) + ") ORDER BY n LIMIT 1", ErrHint,
			"1:12: UID 'x' is already given to another operator at 1:43"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ BROADCAST(t) */", 1), ErrUnsupported, "1:12: hint BROADCAST is not supported yet"},
		{strings.Replace(aggQuery, "SELECT", "SELECT /*+ UID('x'), state_ttl('t' = '1d') */", 1), ErrHint, "1:22: STATE_TTL sets the state TTL of a regular join or a group aggregate, and this SELECT defines neither"},
		{"SELECT i FROM t /*+ LOOKUP('table' = 't') */", ErrUnsupported, "1:21: hint LOOKUP is not supported yet"},
		{"SELECT i FROM t /*+ UID('x') */", ErrHint, "1:21: UID is a query hint"},
		{"CREATE TABLE o (i INT) WITH ('connector' = 'blackhole');\nINSERT INTO o /*+ X */ SELECT i FROM t", ErrUnsupported, "2:19: hint X is not supported yet"},
		{"WITH unused AS (SELECT /*+ NEST_LOOP */ 1) SELECT i FROM t", ErrUnsupported, "1:28: hint NEST_LOOP is not supported yet"},
		{"WITH unused AS (SELECT 1 FROM t /*+ OPTIONS() */) SELECT i FROM t", ErrHint, "1:37: OPTIONS takes 'key' = 'value' pairs"},
		{"CREATE VIEW v AS SELECT /*+ UID('x') */ i FROM t;\nSELECT 1", ErrHint, "1:29: UID names a stateful operator"},
	}
	for _, tc := range tests {
		_, err := planUIDs(t, tc.src)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, tc.kind) {
			t.Errorf("%s\nerror %v, want a %v", tc.src, err, tc.kind)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// TestDerivedUIDsDiffer: two operators that derive one uid, a Top-N over
// the same Top-N, would share state on restore; the statement is refused
// until a hint names one of them.
func TestDerivedUIDsDiffer(t *testing.T) {
	inner := "SELECT window_start, window_end, i, d FROM " + tvf + " ORDER BY d DESC LIMIT 3"
	_, err := planUIDs(t, "SELECT * FROM ("+inner+") ORDER BY d DESC LIMIT 2")
	if !errors.Is(err, ErrHint) || !strings.HasPrefix(err.Error(), "1:1: two stateful operators of this statement have the uid topn-") {
		t.Fatalf("error %v", err)
	}
	got := mustUIDs(t, "SELECT /*+ UID('top2') */ * FROM ("+inner+") ORDER BY d DESC LIMIT 2")
	if len(got) != 2 || got[0] != "top2" || !strings.HasPrefix(got[1], "topn-") {
		t.Errorf("uids %v", got)
	}
}

// TestJoinUIDs: a join's uid keeps through edits that leave its state's
// meaning alone (aliases, the select list, a filter above it), and changes
// with its kind, keys and residual condition; a UID hint names it.
func TestJoinUIDs(t *testing.T) {
	const q = "SELECT a.i, b.s FROM t AS a LEFT JOIN t AS b ON a.i = b.i AND a.d < b.d"
	base := mustUIDs(t, q)
	if len(base) != 1 || !strings.HasPrefix(base[0], "join-") {
		t.Fatalf("uids %v", base)
	}
	for name, src := range map[string]string{
		"other aliases":  strings.NewReplacer("a.", "x.", "AS a", "AS x", "b.", "y.", "AS b", "AS y").Replace(q),
		"another select": strings.Replace(q, "a.i, b.s", "b.s, a.d", 1),
		"a filter above": "SELECT * FROM (" + q + ") WHERE i > 1",
	} {
		if got := mustUIDs(t, src); !slices.Equal(got, base) {
			t.Errorf("%s: uid %v, want %v", name, got, base)
		}
	}
	for name, src := range map[string]string{
		"another kind":      strings.Replace(q, "LEFT JOIN", "FULL JOIN", 1),
		"another key":       strings.Replace(q, "a.i = b.i", "a.b = b.b", 1),
		"another condition": strings.Replace(q, "a.d < b.d", "a.d > b.d", 1),
	} {
		if got := mustUIDs(t, src); slices.Equal(got, base) {
			t.Errorf("%s: uid %v unchanged", name, got)
		}
	}
	if got := mustUIDs(t, strings.Replace(q, "SELECT", "SELECT /*+ UID('orders-users') */", 1)); !slices.Equal(got, []string{"orders-users"}) {
		t.Errorf("hinted: %v", got)
	}
}

// TestAlikeSubtreesNumbered: two window aggregates that compute the same
// thing from the same input (Nexmark q5's two subqueries) hold equal
// state, so the second gets its uid with a suffix instead of a refusal.
func TestAlikeSubtreesNumbered(t *testing.T) {
	got := mustUIDs(t, "SELECT * FROM ("+aggQuery+") UNION ALL SELECT * FROM ("+aggQuery+")")
	if len(got) != 2 || !strings.HasPrefix(got[0], "window-") || got[1] != got[0]+"-2" {
		t.Errorf("uids %v", got)
	}
}

// TestGroupingSetsUIDs: the uid of an aggregate after an Expand encodes
// its grouping sets, so that a savepoint of GROUPING SETS ((i), ()) is not
// restored into GROUPING SETS ((i), (s)), nor ((i, s), (i)) into ((i, s),
// (s)), which have the same keys; spellings of the same sets, and what is
// selected over them, keep it.
func TestGroupingSetsUIDs(t *testing.T) {
	for _, q := range []string{
		"SELECT window_start, COUNT(*) AS n FROM " + tvf + " GROUP BY window_start, window_end, %s",
		"SELECT COUNT(*) AS n FROM t GROUP BY %s",
	} {
		uid := func(groupBy string) string { return mustUIDs(t, fmt.Sprintf(q, groupBy))[0] }
		base := uid("GROUPING SETS ((i), ())")
		for _, same := range []string{"ROLLUP(i)", "GROUPING SETS ((), i)", "GROUPING SETS ((i), ()) HAVING GROUPING(i) >= 0"} {
			if got := uid(same); got != base {
				t.Errorf("%s: uid %s, want %s as for GROUPING SETS ((i), ())", same, got, base)
			}
		}
		if got := mustUIDs(t, strings.Replace(fmt.Sprintf(q, "ROLLUP(i)"), "COUNT(*) AS n", "COUNT(*) AS n, GROUPING_ID(i) AS g", 1))[0]; got != base {
			t.Errorf("GROUPING_ID selected: uid %s, want %s", got, base)
		}
		seen := map[string]string{base: "GROUPING SETS ((i), ())"}
		for _, other := range []string{"GROUPING SETS ((i), (s))", "i", "GROUPING SETS ((i), (), ())", "GROUPING SETS ((i, s), (i))", "GROUPING SETS ((i, s), (s))", "CUBE(i, s)", "ROLLUP(i + 1)", "ROLLUP(i + 2)"} {
			got := uid(other)
			if was, ok := seen[got]; ok {
				t.Errorf("%s has the uid %s of %s", other, got, was)
			}
			seen[got] = other
		}
	}
}

// TestOverUIDComputedColumns checks that an OVER aggregation's uid says
// what its computed columns compute, as a window aggregate's does: its
// state holds its input's rows, partitioned by the partition key, so a
// changed partition expression, or a changed column kept in the rows,
// means other state.
func TestOverUIDComputedColumns(t *testing.T) {
	const q = "SELECT ts, x, SUM(d + 1) OVER w AS total FROM (SELECT ts, s, d, i * 2 AS x FROM t) " +
		"WINDOW w AS (PARTITION BY UPPER(s) ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"
	base := mustUIDs(t, q)
	if got := mustUIDs(t, strings.Replace(q, "total", "sum_d", 1)); !slices.Equal(got, base) {
		t.Errorf("renaming the result changes the uid: %v, was %v", got, base)
	}
	differ := map[string]string{
		"the partition's expression": strings.Replace(q, "UPPER(s)", "LOWER(s)", 1),
		"an argument's expression":   strings.Replace(q, "d + 1", "d + 2", 1),
		"a kept column's expression": strings.Replace(q, "i * 2", "i * 3", 1),
	}
	for what, src := range differ {
		if got := mustUIDs(t, src); slices.Equal(got, base) {
			t.Errorf("%s keeps the uid %v\n%s", what, got, src)
		}
	}
}

// TestUIDComputedBelow checks that a column an aggregate's own
// projection reads from a projection below it that computes it (the
// optimizer merges the two only when one of them computes nothing) is
// encoded with that computation.
func TestUIDComputedBelow(t *testing.T) {
	const q = "SELECT UPPER(x) AS u, SUM(y) AS n FROM (SELECT s || 'a' AS x, i * 2 AS y FROM t) GROUP BY UPPER(x)"
	base := mustUIDs(t, q)
	for _, src := range []string{strings.Replace(q, "'a'", "'b'", 1), strings.Replace(q, "i * 2", "i * 3", 1)} {
		if got := mustUIDs(t, src); slices.Equal(got, base) {
			t.Errorf("the uid %v stays\n%s", got, src)
		}
	}
}

// TestRankUIDComputedColumns: a Top-N (and a window Top-N) keeps its input's rows, so a
// changed computation of a column it keeps, orders or partitions by is
// other state.
func TestRankUIDComputedColumns(t *testing.T) {
	for _, q := range []string{
		"SELECT s, x FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY s ORDER BY x DESC) AS rn FROM (SELECT s, i * 2 AS x FROM t)) WHERE rn <= 3",
		"SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY x DESC) AS rn FROM (SELECT window_start, window_end, i * 2 AS x FROM " + tvf + ")) WHERE rn <= 3",
	} {
		base := mustUIDs(t, q)
		if got := mustUIDs(t, strings.Replace(q, "i * 2", "i * 3", 1)); slices.Equal(got, base) {
			t.Errorf("the uid %v stays when the ORDER BY column's computation changes\n%s", got, q)
		}
	}
}

// TestUIDFilterBelow: a filter between an aggregate and the projection
// that computes its key (a WHERE on a subquery's computed column, which
// stays above that projection) keeps the uid, as a filter below does
// elsewhere.
func TestUIDFilterBelow(t *testing.T) {
	const q = "SELECT x, COUNT(*) AS n FROM (SELECT ts, i + 1 AS x FROM t)%s GROUP BY x"
	if a, b := mustUIDs(t, fmt.Sprintf(q, "")), mustUIDs(t, fmt.Sprintf(q, " WHERE x > 2")); !slices.Equal(a, b) {
		t.Errorf("the filter changes the uid: %v, was %v", b, a)
	}
}
