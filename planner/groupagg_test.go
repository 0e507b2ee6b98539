package planner

import (
	"slices"
	"strings"
	"testing"
)

// TestGroupAggUID: edits that keep what a group aggregate's state means
// keep its uid; a key, an aggregate, or a retracting input change it.
func TestGroupAggUID(t *testing.T) {
	const q = "SELECT i, COUNT(*) AS n, MAX(d) AS top, COUNT(DISTINCT s) FILTER (WHERE b > 0) AS ss FROM t GROUP BY i"
	base := mustUIDs(t, q)
	if !strings.HasPrefix(base[0], "groupagg-") {
		t.Fatalf("uid %s", base[0])
	}
	for what, src := range map[string]string{
		"an output alias":     strings.Replace(q, "AS n", "AS rows", 1),
		"a HAVING":            q + " HAVING COUNT(*) > 1",
		"a filter above":      "SELECT * FROM (" + q + ") WHERE n > 1",
		"a view around it":    "CREATE VIEW v AS " + q + ";\nSELECT i, n FROM v",
		"a comment":           "-- per i\n" + q,
		"a filter below":      strings.Replace(q, " GROUP BY", " WHERE s <> 'x' GROUP BY", 1),
		"another parallelism": "SET 'parallelism.default' = '3';\n" + q,
	} {
		if got := mustUIDs(t, src); !slices.Equal(got, base) {
			t.Errorf("%s changes the uid: %v, was %v", what, got, base)
		}
	}
	for what, src := range map[string]string{
		"a key replaced":       strings.ReplaceAll(strings.Replace(q, "SELECT i,", "SELECT b,", 1), "GROUP BY i", "GROUP BY b"),
		"an aggregate added":   strings.Replace(q, "AS ss", "AS ss, SUM(d) AS total", 1),
		"DISTINCT dropped":     strings.Replace(q, "COUNT(DISTINCT s)", "COUNT(s)", 1),
		"the FILTER changed":   strings.Replace(q, "b > 0", "b > 1", 1),
		"a retracting input":   "SELECT i, COUNT(*) AS n, MAX(d) AS top, COUNT(DISTINCT s) FILTER (WHERE b > 0) AS ss FROM (SELECT i, MAX(d) AS d, MAX(s) AS s, MAX(b) AS b FROM t GROUP BY i) GROUP BY i",
		"an aggregate's input": strings.Replace(q, "MAX(d)", "MAX(b)", 1),
	} {
		got := mustUIDs(t, src)
		if got[0] == base[0] {
			t.Errorf("%s keeps the uid %s", what, got[0])
		}
	}
}
