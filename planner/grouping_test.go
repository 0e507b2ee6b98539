package planner

import (
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// TestGroupingIDs checks the grouping sets of GROUP BY clauses against
// the expand ids ($e) of Flink's plans for them (GroupingSetsTest.xml):
// the first key is the most significant bit, set when the key is not in
// the set; copies of a set are numbered above the keys' bits.
func TestGroupingIDs(t *testing.T) {
	sc := scopeOf(types.Schema{{Name: "a", Type: types.TInt}, {Name: "b", Type: types.TInt}, {Name: "c", Type: types.TString}, {Name: "d", Type: types.TString}}, "")
	tests := []struct {
		groupBy string
		keys    string
		ids     []int64
	}{
		{"ROLLUP(b, c)", "b, c", []int64{0, 1, 3}},
		{"CUBE(b, c)", "b, c", []int64{0, 1, 2, 3}},
		{"GROUPING SETS (b, c)", "b, c", []int64{1, 2}},
		{"GROUPING SETS (b, c, ())", "b, c", []int64{1, 2, 3}},
		{"GROUPING SETS ((), b)", "b", []int64{0, 1}},
		{"ROLLUP(a / 2, c), ROLLUP(SUBSTRING(d FROM 1 FOR 1))", "a / 2, c, SUBSTRING(d FROM 1 FOR 1)", []int64{0, 1, 2, 3, 6, 7}},
		{"ROLLUP(a, b, (c, d))", "a, b, c, d", []int64{0, 3, 7, 15}},
		{"GROUPING SETS ((a, b), (c, b, d))", "a, b, c, d", []int64{3, 8}},
		{"a, CUBE(b)", "a, b", []int64{0, 1}},
		{"GROUPING SETS (ROLLUP(a), CUBE(b))", "a, b", []int64{1, 2, 3, 3 | 1<<2}},
		{"GROUPING SETS (a, (), ())", "a", []int64{0, 1, 1 | 1<<1}},
		{"a, ROLLUP(a, b)", "a, b", []int64{0, 1, 1 | 1<<2}},
		{"ROLLUP(a), ROLLUP(a)", "a", []int64{0, 1, 1 << 1, 2 << 1}}, // {a} three times, {} once
		{"(a, b)", "a, b", nil},
		{"GROUPING SETS ((a, b))", "a, b", nil},
		{"()", "", nil},
		{"a, a", "a, a", nil},
	}
	for _, tc := range tests {
		stmts, err := parser.Parse("SELECT 1 FROM t GROUP BY " + tc.groupBy)
		if err != nil {
			t.Fatal(err)
		}
		g, err := groupingOf(stmts[0].(*parser.Select).GroupBy, sc)
		if err != nil {
			t.Errorf("%s: %v", tc.groupBy, err)
			continue
		}
		var keys []string
		for _, k := range g.keys {
			keys = append(keys, k.String())
		}
		if strings.Join(keys, ", ") != tc.keys || !slices.Equal(g.ids, tc.ids) {
			t.Errorf("%s: keys %s, ids %v; want %s, %v", tc.groupBy, strings.Join(keys, ", "), g.ids, tc.keys, tc.ids)
		}
	}
}
