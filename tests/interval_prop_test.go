package tests

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// trow is a row (ts, k, v) of an interval join property test: ts in
// seconds, k NULL at times, v the row's number.
type trow struct {
	ts int64
	k  *int64
	v  int
}

const ivDelay = 2 // the tables' watermark delay, in seconds

// genTimedRows makes n rows, mostly in time order per split (row i goes
// to split i%3), some behind that split's watermark: late.
func genTimedRows(rng *rand.Rand, n, base int) []trow {
	rows := make([]trow, n)
	for i := range rows {
		rows[i] = trow{ts: int64(i/3 + rng.Intn(4) - rng.Intn(2)*rng.Intn(6)), v: base + i}
		if rng.Intn(8) > 0 {
			k := int64(rng.Intn(4))
			rows[i].k = &k
		}
	}
	return rows
}

// onTimeRows drops the rows that are late in their split, as a source with
// the watermark ts - ivDelay does: a row behind the split's watermark so
// far (ts < max ts - delay).
func onTimeRows(rows []trow) []trow {
	var out []trow
	wm := [3]int64{-1 << 40, -1 << 40, -1 << 40}
	for i, r := range rows {
		s := i % 3
		if r.ts < wm[s] {
			continue
		}
		wm[s] = max(wm[s], r.ts-ivDelay)
		out = append(out, r)
	}
	return out
}

func writeTimed(t *testing.T, dir string, rows []trow) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files [3]strings.Builder
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, r := range rows {
		k := ""
		if r.k != nil {
			k = fmt.Sprint(*r.k)
		}
		fmt.Fprintf(&files[i%3], "%s,%s,%d\n", epoch.Add(time.Duration(r.ts)*time.Second).Format("2006-01-02 15:04:05.000"), k, r.v)
	}
	for i, f := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), []byte(f.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// refInterval is the reference interval join: the pairs of equal non-NULL
// keys with lo <= a.ts - b.ts <= hi (seconds), outer rows padded, as
// "+I[a.v, b.v]" lines.
func refInterval(a, b []trow, lo, hi int64, leftOuter, rightOuter bool) []string {
	var out []string
	matched := make([]bool, len(b))
	for _, l := range a {
		any := false
		for j, r := range b {
			if l.k != nil && r.k != nil && *l.k == *r.k && l.ts-r.ts >= lo && l.ts-r.ts <= hi {
				any, matched[j] = true, true
				out = append(out, fmt.Sprintf("+I[%d, %d]", l.v, r.v))
			}
		}
		if !any && leftOuter {
			out = append(out, fmt.Sprintf("+I[%d, null]", l.v))
		}
	}
	for j, r := range b {
		if !matched[j] && rightOuter {
			out = append(out, fmt.Sprintf("+I[null, %d]", r.v))
		}
	}
	sort.Strings(out)
	return out
}

const intervalDDL = `
CREATE TABLE a (ts TIMESTAMP(3), k BIGINT, v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'a', 'format' = 'csv');
CREATE TABLE b (ts TIMESTAMP(3), k BIGINT, v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'b', 'format' = 'csv');
`

func runInterval(t *testing.T, query string, parallelism, batch int) []string {
	t.Helper()
	got, _ := runTimed(t, query, parallelism, batch, "")
	return got
}

// runTimed runs query over the tables a and b of intervalDDL at a
// parallelism and batch size, with managed memory mem (or the default,
// ""), and returns the rows it printed, sorted, and the job's counters.
func runTimed(t *testing.T, query string, parallelism, batch int, mem string) ([]string, *exec.Metrics) {
	t.Helper()
	return runWith(t, intervalDDL, query, parallelism, batch, mem)
}

// runWith runs query after the DDL ddl as runTimed does.
func runWith(t *testing.T, ddl, query string, parallelism, batch int, mem string) ([]string, *exec.Metrics) {
	t.Helper()
	var out bytes.Buffer
	sess := session.New(&out, &bytes.Buffer{})
	sess.Parallelism = parallelism
	sess.Config[session.KeyBatchSize] = fmt.Sprint(batch)
	if mem != "" {
		sess.Config[session.KeyMemory] = mem
	}
	src := ddl + query
	if err := sess.ExecScript(context.Background(), src); err != nil {
		t.Fatal(planner.FormatError("query", src, err))
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			got = append(got, l)
		}
	}
	sort.Strings(got)
	return got, sess.LastMetrics
}

// TestIntervalJoinResultsAreExact: for random inputs, out of order within
// their watermark's delay and sometimes beyond it (late, dropped at the
// source per split), every kind of interval join emits exactly the
// reference's pairs and padded rows, insertions only, at parallelism 1
// and 4 and several batch sizes (under the race detector, a third of the
// joins at each: raceRuns); and a window over the join's output counts
// them all, none found late.
func TestIntervalJoinResultsAreExact(t *testing.T) {
	kinds := []struct {
		sql         string
		left, right bool
	}{{"JOIN", false, false}, {"LEFT JOIN", true, false}, {"RIGHT JOIN", false, true}, {"FULL JOIN", true, true}}
	bounds := []struct {
		sql    string
		lo, hi int64
	}{
		{"a.ts BETWEEN b.ts - INTERVAL '3' SECOND AND b.ts + INTERVAL '1' SECOND", -3, 1},
		{"a.ts > b.ts AND b.ts + INTERVAL '4' SECOND >= a.ts", 1, 4},
		{"a.ts >= b.ts - INTERVAL '5' SECOND AND a.ts < b.ts - INTERVAL '2' SECOND", -5, -3},
	}
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		a, b := genTimedRows(rng, 60, 0), genTimedRows(rng, 60, 1000)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeTimed(t, "a", a)
			writeTimed(t, "b", b)
			oa, ob := onTimeRows(a), onTimeRows(b)
			if len(oa) == len(a) || len(ob) == len(b) {
				t.Fatalf("no late rows (%d of %d, %d of %d): the test would not show they are dropped alike", len(oa), len(a), len(ob), len(b))
			}
			for vi, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {4, 7}} {
				for i, bd := range bounds {
					for ki, k := range kinds {
						if (i+int(seed))%2 == 1 && k.left != k.right {
							continue // each seed runs half the one-sided kinds, to stay fast
						}
						if !raceRuns(t, vi+i+ki, 3) {
							continue
						}
						q := fmt.Sprintf("SELECT a.v, b.v FROM a %s b ON a.k = b.k AND %s;", k.sql, bd.sql)
						want := refInterval(oa, ob, bd.lo, bd.hi, k.left, k.right)
						if got := runInterval(t, q, v.p, v.batch); strings.Join(got, "\n") != strings.Join(want, "\n") {
							t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
								q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
						}
					}
				}
				// The inner join's pairs per 5-second window of a.ts.
				bd := bounds[0]
				counts := map[int64]int{}
				for _, l := range oa {
					for _, r := range ob {
						if l.k != nil && r.k != nil && *l.k == *r.k && l.ts-r.ts >= bd.lo && l.ts-r.ts <= bd.hi {
							counts[floorDiv(l.ts, 5)*5]++
						}
					}
				}
				var want []string
				for w, n := range counts {
					want = append(want, fmt.Sprintf("+I[%d, %d]", w, n))
				}
				sort.Strings(want)
				q := fmt.Sprintf(`CREATE VIEW j AS SELECT a.ts, a.v FROM a JOIN b ON a.k = b.k AND %s;
SELECT CAST(EXTRACT(EPOCH FROM window_start) - 1704067200 AS BIGINT), COUNT(*)
FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`, bd.sql)
				if got := runInterval(t, q, v.p, v.batch); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("window over the join at parallelism %d, batch %d:\n got %s\nwant %s", v.p, v.batch, got, want)
				}
			}
		})
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
