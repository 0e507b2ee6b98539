package tests

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
)

// cubeQuery turns an exactness query grouping by window_start,
// window_end, k1, k2 (exactQueryText) into one grouping by CUBE (k1, k2),
// with GROUPING_ID(k1, k2) as the last column.
func cubeQuery(t *testing.T, q string) string {
	t.Helper()
	for _, r := range [][2]string{
		{"c_dist_true BIGINT\n)", "c_dist_true BIGINT, gid BIGINT\n)"},
		{"\nFROM ", ", GROUPING_ID(k1, k2)\nFROM "},
		{"GROUP BY window_start, window_end, k1, k2;", "GROUP BY window_start, window_end, CUBE (k1, k2);"},
	} {
		if n := strings.Count(q, r[0]); n != 1 {
			t.Fatalf("%q is %d times in the exactness query, want once", r[0], n)
		}
		q = strings.Replace(q, r[0], r[1], 1)
	}
	return q
}

// cubeReference is the result of a CUBE (k1, k2) query as the reference
// ref of the same query grouping by (k1, k2) computes it: per grouping
// set, ref over the rows with the keys the set lacks made NULL, each of
// its rows followed by the set's GROUPING_ID (k1 its high bit). It does
// not know of $e or Expand: a set's groups are apart from another's
// because ref runs once per set.
func cubeReference(rows []exactRow, ref func([]exactRow) []string) []string {
	var out []string
	for gid := range 4 {
		masked := slices.Clone(rows)
		for i := range masked {
			if gid&2 != 0 {
				masked[i].k1 = nil
			}
			if gid&1 != 0 {
				masked[i].k2 = nil
			}
		}
		for _, line := range ref(masked) {
			out = append(out, fmt.Sprintf("%s,%d", line, gid))
		}
	}
	sort.Strings(out)
	return out
}

func csvLines(rows []exactRow) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.csv())
		b.WriteByte('\n')
	}
	return b.String()
}

// groupingSetsCases run each query at parallelism 1, 2 and 4, with batches
// of 4096 rows and of 1, and with a managed memory so small that the state
// of a TUMBLE, HOP or CUMULATE window spills.
var groupingSetsCases = []struct {
	p, batch int
	mem      string
}{{1, 4096, ""}, {2, 1, "48kb"}, {4, 4096, "64kb"}}

// TestGroupingSetsResultsAreExact: a window aggregate by CUBE (k1, k2),
// whose keys are often NULL, over random rows equals, set by set, the
// reference of the window aggregate by (k1, k2) over the rows with the
// set's absent keys made NULL, for every aggregate, at every case of
// groupingSetsCases: TUMBLE, HOP and CUMULATE windows over rows none of
// which is late, and SESSION windows (per grouping set's key, without the
// memory budget) over rows some of which are late and counted once each,
// not once per grouping set.
func TestGroupingSetsResultsAreExact(t *testing.T) {
	wins := []exactWindow{exactTumble, {kind: "HOP", size: exactSize, slide: 5000}, {kind: "CUMULATE", size: exactSize, slide: 2000}}
	for wi, w := range wins {
		rows := genExact(rand.New(rand.NewSource(int64(200+wi))), 800)
		want := cubeReference(rows, func(rs []exactRow) []string { return referenceOf(rs, w) })
		query := cubeQuery(t, exactQueryOf(w))
		for ci, c := range groupingSetsCases {
			t.Run(fmt.Sprintf("%s-p%d-batch%d-mem%s", w.kind, c.p, c.batch, c.mem), func(t *testing.T) {
				if !raceRuns(t, wi+ci, len(groupingSetsCases)) {
					t.Skip("one case of each window under the race detector")
				}
				got, m := runExact(t, query, csvLines(rows), c.p, c.batch, c.mem)
				if late := m.LateRows.Load(); late != 0 {
					t.Errorf("%d rows counted late, want 0", late)
				}
				if spills := m.Spills.Load(); c.mem != "" && spills == 0 {
					t.Errorf("no spills at memory.managed.size %s: the case tests nothing", c.mem)
				}
				compareRows(t, got, want)
			})
		}
	}
	rows := genSessionRows(rand.New(rand.NewSource(210)), 800)
	kept, late := onTime(rows)
	if late == 0 {
		t.Fatal("no late rows: the session case tests less than it says")
	}
	want := cubeReference(kept, sessionReference)
	query := cubeQuery(t, fmt.Sprintf(exactQueryText,
		fmt.Sprintf("TABLE(SESSION(TABLE src, DESCRIPTOR(ts), INTERVAL '%d' SECOND))", exactGap/1000)))
	for _, c := range groupingSetsCases {
		// Session windows keep their state in memory (they do not spill).
		t.Run(fmt.Sprintf("SESSION-p%d-batch%d", c.p, c.batch), func(t *testing.T) {
			got, m := runExact(t, query, csvLines(rows), c.p, c.batch, "")
			if n := m.LateRows.Load(); n != int64(late) {
				t.Errorf("%d rows counted late, want %d", n, late)
			}
			compareRows(t, got, want)
		})
	}
}

// TestGroupAggGroupingSetsAreExact: a non-windowed aggregate by CUBE (k,
// MOD(v, 3)), with NULL keys, and one by ROLLUP over an aggregate's
// retracting output, applied as changelogs, equal a plain reference's
// grouping of the rows once per grouping set, in every run of
// checkGroupAgg: parallelism 1, 2 and 4, batches of 1 to 4096 rows,
// mini-batches and a tiny managed memory.
func TestGroupAggGroupingSetsAreExact(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	rows := genJoinRows(rng, 150)
	t.Chdir(t.TempDir())
	writeJoinInput(t, "a", rows)
	// sets are the CUBE's grouping sets: whether each grouping set has k
	// and MOD(v, 3), and its GROUPING_ID.
	sets := []struct {
		k, m bool
		gid  int
	}{{true, true, 0}, {true, false, 1}, {false, true, 2}, {false, false, 3}}
	groups := map[string][]int64{}
	for _, s := range sets {
		for _, r := range rows {
			k, m := "null", "null"
			if s.k {
				k = r.key()
			}
			if s.m {
				m = fmt.Sprint(r.v % 3)
			}
			key := fmt.Sprintf("%s, %s, %d", k, m, s.gid)
			groups[key] = append(groups[key], r.v)
		}
	}
	want := statLines(groups)
	// The outer level groups the inner sums per k by k > 2 (NULL for the
	// NULL key), and in all.
	sums := map[string]int64{}
	for _, r := range rows {
		sums[r.key()] += r.v
	}
	outer := map[string][]int64{}
	for k, s := range sums {
		outer[bigKey(k)+", 0"] = append(outer[bigKey(k)+", 0"], s)
		outer["null, 1"] = append(outer["null, 1"], s)
	}
	want2 := statLines(outer)

	q1 := fmt.Sprintf("SELECT k, MOD(v, 3), GROUPING_ID(k, MOD(v, 3)), "+groupAggs+" FROM a GROUP BY CUBE (k, MOD(v, 3));", "v")
	q2 := fmt.Sprintf("SELECT k > 2, GROUPING(k > 2), "+groupAggs+" FROM (SELECT k, SUM(v) AS s FROM a GROUP BY k) GROUP BY ROLLUP (k > 2);", "s")
	checkGroupAgg(t, groupAggCase{q1, want}, groupAggCase{q2, want2})
}
