package planner

import (
	"io"
	"testing"

	"github.com/strandsql/strand/exec"
)

// TestAlignmentReachesSources: a table's alignment options, from WITH or
// from an OPTIONS hint, reach each of its scans' sources; a scan without
// them aligns nothing.
func TestAlignmentReachesSources(t *testing.T) {
	const with = `CREATE TABLE g (ts TIMESTAMP(3), a INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv',
  'scan.watermark.alignment.group' = 'grp', 'scan.watermark.alignment.max-drift' = '1 min');
`
	for _, c := range []struct {
		sql  string
		want []exec.Alignment
	}{
		{"SELECT a FROM f", []exec.Alignment{{}}},
		{with + "SELECT a FROM g", []exec.Alignment{{Group: "grp", MaxDrift: 60000}}},
		{"SELECT a FROM f /*+ OPTIONS('scan.watermark.alignment.group' = 'h', 'scan.watermark.alignment.max-drift' = '2 s') */",
			[]exec.Alignment{{Group: "h", MaxDrift: 2000}}},
		{with + "SELECT a FROM g UNION ALL SELECT a FROM f /*+ OPTIONS('scan.watermark.alignment.group' = 'grp', 'scan.watermark.alignment.max-drift' = '5 s') */",
			[]exec.Alignment{{Group: "grp", MaxDrift: 60000}, {Group: "grp", MaxDrift: 5000}}},
	} {
		plan, err := planned(t, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		g, err := Compile(Optimize(plan), Env{Parallelism: 2, Stdout: io.Discard})
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var got []exec.Alignment
		for _, v := range g.Vertices {
			if v.Source != nil {
				got = append(got, v.Source.Align)
			}
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: sources aligned %v, want %v", c.sql, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: sources aligned %v, want %v", c.sql, got, c.want)
			}
		}
	}
}
