package tests

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// exactIntQueryText is exactQueryText grouped by the BIGINT k1 alone and
// without DISTINCT aggregates (0 in their columns, NULL for k2): the
// window's panes then have integer tables, its hopping and cumulating
// windows fire through the slider, and at parallelism > 1 the hash
// exchange's key hashes come with the rows.
const exactIntQueryText = `
CREATE TABLE src (
  ts TIMESTAMP(3), k1 BIGINT, k2 STRING, v_int INT, v_big BIGINT, v_dbl DOUBLE,
  v_dec DECIMAL(10, 2), v_str STRING, v_bool BOOLEAN,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'csv.null-literal' = 'NULL');

CREATE TABLE dst (
  ws TIMESTAMP(3), we TIMESTAMP(3), k1 BIGINT, k2 STRING,
  c_star BIGINT, c_int BIGINT, c_dist BIGINT,
  s_int INT, s_big BIGINT, s_dbl DOUBLE, s_dec DECIMAL(38, 2),
  min_int INT, max_big BIGINT, min_dbl DOUBLE, max_dec DECIMAL(10, 2), min_str STRING, max_str STRING,
  max_bool BOOLEAN, avg_big BIGINT, avg_dbl DOUBLE, avg_dec DECIMAL(38, 6),
  s_big_true BIGINT, c_dist_true BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO dst
SELECT window_start, window_end, k1, CAST(NULL AS STRING),
  COUNT(*), COUNT(v_int), CAST(0 AS BIGINT),
  SUM(v_int), SUM(v_big), SUM(v_dbl), SUM(v_dec),
  MIN(v_int), MAX(v_big), MIN(v_dbl), MAX(v_dec), MIN(v_str), MAX(v_str),
  MAX(v_bool), AVG(v_big), AVG(v_dbl), AVG(v_dec),
  SUM(v_big) FILTER (WHERE v_bool), CAST(0 AS BIGINT)
FROM %s
GROUP BY window_start, window_end, k1;
`

// TestIntKeyedWindowResultsAreExact is TestSlidingWindowResultsAreExact
// (and tumbling windows) for windows grouped by one BIGINT key with NULLs
// and negative values, with no DISTINCT aggregate: the integer-keyed path
// of the window aggregate, end to end.
func TestIntKeyedWindowResultsAreExact(t *testing.T) {
	wins := []exactWindow{exactTumble, {kind: "HOP", size: exactSize, slide: 2000}, {kind: "CUMULATE", size: exactSize, slide: 2000}}
	cases := []struct {
		p, batch int
		mem      string
	}{{1, 4096, ""}, {4, 1, ""}, {4, 7, "64kb"}}
	for wi, w := range wins {
		rng := rand.New(rand.NewSource(int64(200 + wi)))
		rows := genExact(rng, 1500)
		for i := range rows {
			rows[i].k2 = nil
			if rng.Intn(3) == 0 && rows[i].k1 != nil {
				// Keys in many groups, so that the windows spill.
				rows[i].k1 = ptr(int64(rng.Intn(400) - 200))
			}
		}
		var want []string
		for _, l := range referenceOf(rows, w) {
			f := strings.Split(l, ",")
			f[6], f[len(f)-1] = "0", "0"
			want = append(want, strings.Join(f, ","))
		}
		var in strings.Builder
		for _, r := range rows {
			in.WriteString(r.csv())
			in.WriteByte('\n')
		}
		query := fmt.Sprintf(exactIntQueryText, w.tvf())
		for ci, c := range cases {
			t.Run(fmt.Sprintf("%s%d-p%d-batch%d-mem%s", w.kind, w.slide/1000, c.p, c.batch, c.mem), func(t *testing.T) {
				if !raceRuns(t, wi+ci, len(cases)) {
					t.Skip("one case of each window under the race detector")
				}
				got, m := runExact(t, query, in.String(), c.p, c.batch, c.mem)
				if late := m.LateRows.Load(); late != 0 {
					t.Errorf("%d rows counted late, want 0", late)
				}
				// A tumbling window's state is a window's rows (about 50):
				// whether it spills depends on how far the watermark lags,
				// which the race detector's pace changes.
				if spills := m.Spills.Load(); c.mem != "" && spills == 0 && w.kind != "TUMBLE" {
					t.Errorf("no spills at memory.managed.size %s: the case tests nothing", c.mem)
				}
				compareRows(t, got, want)
			})
		}
	}
}
