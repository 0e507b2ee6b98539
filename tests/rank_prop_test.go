package tests

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// rrow is a row (k, v, ts, s) of a rank property test's input: k and v
// may be NULL (nil), s numbers the rows in input order.
type rrow struct {
	k, v *int64
	ts   int64 // ms after 2024-01-01 00:00:00
	s    int64
}

func genRankRows(rng *rand.Rand, n int) []rrow {
	rows := make([]rrow, n)
	for i := range rows {
		r := rrow{ts: int64(rng.Intn(20)) * 150, s: int64(i)} // coarse: times tie
		if rng.Intn(8) > 0 {
			k := int64(rng.Intn(4))
			r.k = &k
		}
		if rng.Intn(6) > 0 {
			v := int64(rng.Intn(12))
			r.v = &v
		}
		rows[i] = r
	}
	return rows
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}

func showInt(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func rankTS(ms int64) string {
	return fmt.Sprintf("2024-01-01 00:00:%02d.%03d", ms/1000, ms%1000)
}

// writeRankInput writes rows as CSV, in files files: with one, every
// partition's rows arrive in input order; with more, rows of one partition
// arrive interleaved from several splits.
func writeRankInput(t *testing.T, dir string, rows []rrow, files int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	parts := make([]strings.Builder, files)
	for i, r := range rows {
		fmt.Fprintf(&parts[i%files], "%s,%s,%s,%d\n", optInt(r.k), optInt(r.v), rankTS(r.ts), r.s)
	}
	for i := range parts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), []byte(parts[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The reference below shares no code with rank/: plain sorting and
// grouping over the rows.

// cmpNullsLastDesc orders v descending, NULLs last (ORDER BY v DESC).
func cmpNullsLastDesc(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(*b, *a)
}

// cmpNullsFirst orders ascending, NULLs first: how ties on the ORDER BY
// are broken, by the other columns.
func cmpNullsFirst(a, b *int64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}

// partitions groups rows by k, NULL a partition of its own.
func partitions(rows []rrow) map[string][]rrow {
	byKey := map[string][]rrow{}
	for _, r := range rows {
		byKey[showInt(r.k)] = append(byKey[showInt(r.k)], r)
	}
	return byKey
}

// refTopN is ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) in
// lo..hi: each partition's rows sorted by v, ties by the other columns
// (k, v, ts, s), numbered.
func refTopN(rows []rrow, lo, hi int) []string {
	var out []string
	for _, part := range partitions(rows) {
		slices.SortFunc(part, func(a, b rrow) int {
			return cmp.Or(cmpNullsLastDesc(a.v, b.v), cmp.Compare(a.ts, b.ts), cmp.Compare(a.s, b.s))
		})
		for i, r := range part {
			if n := i + 1; n >= lo && n <= hi {
				out = append(out, fmt.Sprintf("+I[%s, %s, %d, %d]", showInt(r.k), showInt(r.v), r.s, n))
			}
		}
	}
	slices.Sort(out)
	return out
}

// refDedup keeps one row per k, as Flink's deduplication: by event time
// the last row whose ts is not earlier than the kept one's, or the first
// row unless a strictly earlier one comes; by arrival the first or the
// last row.
func refDedup(rows []rrow, last, eventTime bool) []string {
	kept := map[string]rrow{}
	for _, r := range rows {
		old, ok := kept[showInt(r.k)]
		switch {
		case !ok:
		case !eventTime && !last:
			continue
		case eventTime && last && r.ts < old.ts:
			continue
		case eventTime && !last && r.ts >= old.ts:
			continue
		}
		kept[showInt(r.k)] = r
	}
	var out []string
	for _, r := range kept {
		out = append(out, fmt.Sprintf("+I[%s, %s, %d]", showInt(r.k), showInt(r.v), r.s))
	}
	slices.Sort(out)
	return out
}

const rankDDL = `
CREATE TABLE t (k BIGINT, v BIGINT, ts TIMESTAMP(3), s BIGINT, pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't', 'format' = 'csv');
CREATE TABLE u (k BIGINT, w BIGINT) WITH ('connector' = 'filesystem', 'path' = 'u', 'format' = 'csv');
`

func runRankQuery(t *testing.T, query string, parallelism, batch int) []string {
	t.Helper()
	return runRankQueryWith(t, query, parallelism, batch, nil)
}

// runRankQueryWith is runRankQuery with further session settings.
func runRankQueryWith(t *testing.T, query string, parallelism, batch int, conf map[string]string) []string {
	t.Helper()
	var out bytes.Buffer
	sess := session.New(&out, &bytes.Buffer{})
	sess.Parallelism = parallelism
	sess.Config[session.KeyBatchSize] = fmt.Sprint(batch)
	for k, v := range conf {
		sess.Config[k] = v
	}
	src := rankDDL + query
	if err := sess.ExecScript(context.Background(), src); err != nil {
		t.Fatal(planner.FormatError("query", src, err))
	}
	got := strings.TrimRight(applyChangelog(out.String()), "\n")
	if got == "" {
		return nil
	}
	return strings.Split(got, "\n")
}

// TestRankResultsAreExact: for random inputs with NULL partition and order
// keys and ties, the applied changelog of a Top-N (insert-only input, and
// updating input: a left join's), and of every deduplication, equals an
// independent reference's result, at parallelism 1 and 4 and several
// batch sizes.
func TestRankResultsAreExact(t *testing.T) {
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		rows := genRankRows(rng, 60)
		var us []jrow // u's rows (k, w)
		for range 12 {
			k, w := int64(rng.Intn(5)), int64(rng.Intn(6))
			us = append(us, jrow{k: &k, v: w})
		}
		n := 2 + rng.Intn(3)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			// A Top-N's result depends on the rows alone: rows come
			// from three splits. A deduplication's depends on the order
			// of a partition's rows: one file keeps it.
			for _, files := range []int{3, 1} {
				t.Chdir(t.TempDir())
				writeRankInput(t, "t", rows, files)
				writeJoinInput(t, "u", us)
				type check struct {
					q    string
					want []string
				}
				var checks []check
				if files == 3 {
					checks = []check{
						{fmt.Sprintf("SELECT k, v, s, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= %d;", n), refTopN(rows, 1, n)},
						{fmt.Sprintf("SELECT k, v, s, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn BETWEEN 2 AND %d;", n+1), refTopN(rows, 2, n+1)},
						{topNOverJoin(n), refTopNOverJoin(rows, us, n)},
					}
					// Over an aggregate's counts per (k, v), partitioned by k:
					// the UpdateFast strategy.
					checks = append(checks, check{fmt.Sprintf(`SELECT k, v, n, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY n DESC) AS rn
  FROM (SELECT k, v, COUNT(*) AS n FROM t GROUP BY k, v)) WHERE rn <= %d;`, n), refTopCounts(rows, n)})
					for _, fn := range []string{"RANK", "DENSE_RANK"} {
						q := fmt.Sprintf("SELECT k, v, s, rn FROM (SELECT *, %s() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn BETWEEN 2 AND %d;", fn, n)
						checks = append(checks, check{q, refRanked(rows, fn == "DENSE_RANK", 2, int64(n), showKVS)})
						q = fmt.Sprintf(`SELECT k, w, s, rn FROM (
  SELECT t.k, u.w, t.s, %s() OVER (PARTITION BY t.k ORDER BY u.w DESC) AS rn
  FROM t LEFT JOIN u ON t.k = u.k) WHERE rn <= %d;`, fn, n)
						checks = append(checks, check{q, refRanked(joinedRows(rows, us), fn == "DENSE_RANK", 1, int64(n), showKVS)})
						// Over an aggregate's counts: many ties, and
						// rows that move up a group as their counts grow.
						q = fmt.Sprintf("SELECT v, n, rn FROM (SELECT v, n, %s() OVER (ORDER BY n DESC) AS rn FROM (SELECT v, COUNT(*) AS n FROM t GROUP BY v)) WHERE rn <= 2;", fn)
						counts, show := countRows(rows)
						checks = append(checks, check{q, refRanked(counts, fn == "DENSE_RANK", 1, 2, show)})
					}
				} else {
					for _, d := range []struct {
						order     string
						last, evt bool
					}{{"ts DESC", true, true}, {"ts", false, true}, {"pt", false, false}, {"pt DESC", true, false}} {
						q := fmt.Sprintf("SELECT k, v, s FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY %s) AS rn FROM t) WHERE rn = 1;", d.order)
						checks = append(checks, check{q, refDedup(rows, d.last, d.evt)})
					}
				}
				for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {4, 7}} {
					for _, c := range checks {
						got := runRankQuery(t, c.q, v.p, v.batch)
						if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
							t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
								c.q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(c.want), strings.Join(c.want, "\n  "))
						}
					}
				}
			}
		})
	}
}

// topNOverJoin ranks the rows of t LEFT JOIN u by u.w: updating input,
// the retract strategy.
func topNOverJoin(n int) string {
	return fmt.Sprintf(`SELECT k, w, s, rn FROM (
  SELECT t.k, u.w, t.s, ROW_NUMBER() OVER (PARTITION BY t.k ORDER BY u.w DESC) AS rn
  FROM t LEFT JOIN u ON t.k = u.k) WHERE rn <= %d;`, n)
}

// refTopNOverJoin joins t and u by nested loops (a NULL key matches
// nothing, an unmatched t row is padded) and ranks the joined rows (k, w,
// s) by w descending, ties by k, w, s ascending.
func refTopNOverJoin(rows []rrow, us []jrow, n int) []string {
	type jr struct {
		k, w *int64
		s    int64
	}
	byKey := map[string][]jr{}
	for _, r := range rows {
		matched := false
		for _, u := range us {
			if r.k != nil && *r.k == *u.k {
				w := u.v
				byKey[showInt(r.k)] = append(byKey[showInt(r.k)], jr{r.k, &w, r.s})
				matched = true
			}
		}
		if !matched {
			byKey[showInt(r.k)] = append(byKey[showInt(r.k)], jr{r.k, nil, r.s})
		}
	}
	var out []string
	for _, part := range byKey {
		slices.SortFunc(part, func(a, b jr) int {
			return cmp.Or(cmpNullsLastDesc(a.w, b.w), cmpNullsFirst(a.k, b.k), cmpNullsFirst(a.w, b.w), cmp.Compare(a.s, b.s))
		})
		for i, r := range part[:min(n, len(part))] {
			out = append(out, fmt.Sprintf("+I[%s, %s, %d, %d]", showInt(r.k), showInt(r.w), r.s, i+1))
		}
	}
	slices.Sort(out)
	return out
}

// refRanked is RANK() (or DENSE_RANK()) OVER (PARTITION BY k ORDER BY v
// DESC) in lo..hi: rows that tie on v share a rank, the next rank is the
// number of rows before plus one (or the number of distinct values before
// plus one).
func refRanked(rows []rrow, dense bool, lo, hi int64, show func(rrow) string) []string {
	var out []string
	for _, part := range partitions(rows) {
		slices.SortFunc(part, func(a, b rrow) int { return cmpNullsLastDesc(a.v, b.v) })
		var rank, distinct int64
		for i, r := range part {
			if i == 0 || cmpNullsLastDesc(part[i-1].v, r.v) != 0 {
				rank, distinct = int64(i)+1, distinct+1
			}
			n := rank
			if dense {
				n = distinct
			}
			if n >= lo && n <= hi {
				out = append(out, fmt.Sprintf("+I[%s, %d]", show(r), n))
			}
		}
	}
	slices.Sort(out)
	return out
}

// showKVS shows a row as k, v, s.
func showKVS(r rrow) string { return fmt.Sprintf("%s, %s, %d", showInt(r.k), showInt(r.v), r.s) }

// joinedRows is t LEFT JOIN u ON t.k = u.k as rows (k, w as v, s), by
// nested loops: a NULL key matches nothing, an unmatched row is padded.
func joinedRows(rows []rrow, us []jrow) []rrow {
	var out []rrow
	for _, r := range rows {
		matched := false
		for _, u := range us {
			if r.k != nil && *r.k == *u.k {
				w := u.v
				out = append(out, rrow{k: r.k, v: &w, s: r.s})
				matched = true
			}
		}
		if !matched {
			out = append(out, rrow{k: r.k, s: r.s})
		}
	}
	return out
}

// countRows is SELECT v, COUNT(*) AS n FROM t GROUP BY v as rows of one
// partition (k NULL) ordered by n (as v), and how each shows: "v, n".
func countRows(rows []rrow) ([]rrow, func(rrow) string) {
	n := map[string]int64{}
	for _, r := range rows {
		n[showInt(r.v)]++
	}
	var out []rrow
	var labels []string
	for v, c := range n {
		c := c
		out = append(out, rrow{v: &c, s: int64(len(labels))})
		labels = append(labels, fmt.Sprintf("%s, %d", v, c))
	}
	return out, func(r rrow) string { return labels[r.s] }
}

// refTopCounts counts the rows of each (k, v) and keeps, per k, the n
// largest counts, ties by v ascending (NULLs first), numbered.
func refTopCounts(rows []rrow, n int) []string {
	type group struct {
		k, v *int64
		n    int64
	}
	counts := map[string]*group{}
	for _, r := range rows {
		id := showInt(r.k) + "/" + showInt(r.v)
		if counts[id] == nil {
			counts[id] = &group{k: r.k, v: r.v}
		}
		counts[id].n++
	}
	byKey := map[string][]*group{}
	for _, g := range counts {
		byKey[showInt(g.k)] = append(byKey[showInt(g.k)], g)
	}
	var out []string
	for _, part := range byKey {
		slices.SortFunc(part, func(a, b *group) int { return cmp.Or(cmp.Compare(b.n, a.n), cmpNullsFirst(a.v, b.v)) })
		for i, g := range part[:min(n, len(part))] {
			out = append(out, fmt.Sprintf("+I[%s, %s, %d, %d]", showInt(g.k), showInt(g.v), g.n, i+1))
		}
	}
	slices.Sort(out)
	return out
}
