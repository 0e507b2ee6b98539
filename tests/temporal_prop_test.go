package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// vrow is a change of the versioned table b of the temporal join property
// test: op "c" (a version), "u" (-U then +U: a version) or "d" (a
// deletion), of key k at ts (seconds) with value v.
type vrow struct {
	op string
	trow
}

// genVersions makes n changes of keys 0-3, mostly in time order per split
// (change i goes to split i%3) and some behind their split's watermark
// (late), with at most one change per key and time, so that which change
// of a key and time comes last never depends on timing.
func genVersions(rng *rand.Rand, n int) []vrow {
	seen := map[[2]int64]bool{}
	var out []vrow
	for _, r := range genTimedRows(rng, n, 1000) {
		k := int64(rng.Intn(4))
		r.k = &k
		if seen[[2]int64{k, r.ts}] {
			continue
		}
		seen[[2]int64{k, r.ts}] = true
		op := "c"
		switch x := rng.Intn(20); {
		case x < 5:
			op = "u"
		case x < 8:
			op = "d"
		}
		out = append(out, vrow{op: op, trow: r})
	}
	return out
}

// writeVersions writes the changes as debezium-json, in three files (the
// splits), change i into file i%3.
func writeVersions(t *testing.T, dir string, rows []vrow) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files [3]strings.Builder
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, r := range rows {
		img := fmt.Sprintf(`{"ts":"%s","k":%d,"v":%d}`, epoch.Add(time.Duration(r.ts)*time.Second).Format("2006-01-02 15:04:05.000"), *r.k, r.v)
		before, after := "null", img
		switch r.op {
		case "u":
			before = img
		case "d":
			before, after = img, "null"
		}
		fmt.Fprintf(&files[i%3], `{"before":%s,"after":%s,"op":"%s"}`+"\n", before, after, r.op)
	}
	for i, f := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.json", i)), []byte(f.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// onTimeVersions drops the changes late in their split, as onTimeRows.
func onTimeVersions(rows []vrow) []vrow {
	var out []vrow
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

// refTemporal is the reference event-time temporal join: each left row
// with a key joins the change of its key with the latest time at or
// before its own, unless that change is a deletion or fails keep; a LEFT
// join pads the others.
func refTemporal(a []trow, b []vrow, leftOuter bool, keep func(v int) bool) []string {
	var out []string
	for _, l := range a {
		var found *vrow
		if l.k != nil {
			for i, r := range b {
				if *r.k == *l.k && r.ts <= l.ts && (found == nil || r.ts > found.ts) {
					found = &b[i]
				}
			}
		}
		switch {
		case found != nil && found.op != "d" && keep(found.v):
			out = append(out, fmt.Sprintf("+I[%d, %d]", l.v, found.v))
		case leftOuter:
			out = append(out, fmt.Sprintf("+I[%d, null]", l.v))
		}
	}
	sort.Strings(out)
	return out
}

const temporalDDL = `
CREATE TABLE a (ts TIMESTAMP(3), k BIGINT, v INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'a', 'format' = 'csv');
CREATE TABLE b (ts TIMESTAMP(3), k BIGINT NOT NULL, v INT, PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'b', 'format' = 'debezium-json');
`

// TestTemporalJoinResultsAreExact: for random left rows and random
// changelogs of the versioned table (versions, updates, deletions), both
// out of order within their watermark's delay and sometimes beyond it
// (late, dropped at the source per split), the event-time temporal join,
// INNER and LEFT, with and without a condition on the version, emits
// exactly the reference's rows, at parallelism 1 and 4 and several batch
// sizes.
func TestTemporalJoinResultsAreExact(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewSource(seed))
		a, b := genTimedRows(rng, 80, 0), genVersions(rng, 60)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeTimed(t, "a", a)
			writeVersions(t, "b", b)
			oa, ob := onTimeRows(a), onTimeVersions(b)
			if len(oa) == len(a) || len(ob) == len(b) {
				t.Fatalf("no late rows (%d of %d, %d of %d): the test would not show they are dropped alike", len(oa), len(a), len(ob), len(b))
			}
			nulls, deletes := 0, 0
			for _, r := range oa {
				if r.k == nil {
					nulls++
				}
			}
			for _, r := range ob {
				if r.op == "d" {
					deletes++
				}
			}
			t.Logf("%d left rows on time (%d NULL keys), %d changes on time (%d deletions); inner join: %d rows",
				len(oa), nulls, len(ob), deletes, len(refTemporal(oa, ob, false, func(int) bool { return true })))
			all := func(int) bool { return true }
			even := func(v int) bool { return v%2 == 0 }
			for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {4, 5}, {2, 3}} {
				for _, c := range []struct {
					sql  string
					left bool
					keep func(int) bool
				}{
					{"SELECT a.v, b.v FROM a JOIN b FOR SYSTEM_TIME AS OF a.ts AS b ON a.k = b.k;", false, all},
					{"SELECT a.v, b.v FROM a LEFT JOIN b FOR SYSTEM_TIME AS OF a.ts AS b ON a.k = b.k;", true, all},
					{"SELECT a.v, b.v FROM a LEFT JOIN b FOR SYSTEM_TIME AS OF a.ts AS b ON b.k = a.k AND MOD(b.v, 2) = 0;", true, even},
				} {
					want := refTemporal(oa, ob, c.left, c.keep)
					got, _ := runWith(t, temporalDDL, c.sql, v.p, v.batch, "")
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
							c.sql, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
					}
				}
			}
		})
	}
}
