package tests

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
)

// gstat is the reference's aggregate of a list of values: a plain loop,
// sharing no code with groupagg or agg.
type gstat struct {
	n, nonNull            int
	sum, lo, hi, filtered int64
	distinct              map[int64]bool
	nFiltered             int
}

func statOf(vals []int64) gstat {
	ptrs := make([]*int64, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return statOfNullable(ptrs)
}

// statOfNullable aggregates values of which nil ones are NULL: counted by
// COUNT(*), skipped by the others.
func statOfNullable(vals []*int64) gstat {
	s := gstat{n: len(vals), distinct: map[int64]bool{}}
	for _, p := range vals {
		if p == nil {
			continue
		}
		v := *p
		s.sum += v
		if s.nonNull == 0 || v < s.lo {
			s.lo = v
		}
		if s.nonNull == 0 || v > s.hi {
			s.hi = v
		}
		s.nonNull++
		if v > 4 {
			s.filtered += v
			s.nFiltered++
		}
		s.distinct[v] = true
	}
	return s
}

func (s gstat) line(key string) string {
	f := "null"
	if s.nFiltered > 0 {
		f = fmt.Sprint(s.filtered)
	}
	if s.nonNull == 0 {
		return fmt.Sprintf("+I[%s, %d, null, null, null, 0, null]", key, s.n)
	}
	return fmt.Sprintf("+I[%s, %d, %d, %d, %d, %d, %s]", key, s.n, s.sum, s.lo, s.hi, len(s.distinct), f)
}

// statLines are the result lines of groups, by key, sorted.
func statLines(groups map[string][]int64) []string {
	var out []string
	for k, vals := range groups {
		out = append(out, statOf(vals).line(k))
	}
	sort.Strings(out)
	return out
}

// TestGroupAggResultsAreExact: for random inputs with NULL keys, the
// applied changelog of a group aggregate equals the reference's, at
// parallelism 1 and 4, several batch sizes, with mini-batches and with a
// tiny managed memory (the cache writes groups back to the store all the
// time); so do an aggregate of an aggregate, whose input retracts (-U
// of each old sum), with MIN/MAX falling back on retraction, and one over
// a LEFT JOIN, which retracts its NULL-padded rows.
func TestGroupAggResultsAreExact(t *testing.T) {
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		a := genJoinRows(rng, 120)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeJoinInput(t, "a", a)
			byKey := map[string][]int64{}
			sums := map[string]int64{}
			for _, r := range a {
				byKey[r.key()] = append(byKey[r.key()], r.v)
				sums[r.key()] += r.v
			}
			want := statLines(byKey)
			// The outer level groups the inner sums by k > 2 (NULL for
			// the NULL key).
			outer := map[string][]int64{}
			for k, s := range sums {
				outer[bigKey(k)] = append(outer[bigKey(k)], s)
			}
			want2 := statLines(outer)
			// Over a LEFT JOIN, whose NULL-padded rows are retracted (-D)
			// when their first match comes.
			b := genJoinRows(rng, 60)
			writeJoinInput(t, "b", b)
			joined := map[string][]*int64{}
			for _, p := range refJoin(a, b, true, false, nil) {
				var v *int64
				if p[1] != nil {
					v = &p[1].v
				}
				joined[p[0].key()] = append(joined[p[0].key()], v)
			}
			var want3 []string
			for k, vals := range joined {
				want3 = append(want3, statOfNullable(vals).line(k))
			}
			sort.Strings(want3)

			q1 := fmt.Sprintf("SELECT k, "+groupAggs+" FROM a GROUP BY k;", "v")
			q2 := fmt.Sprintf("SELECT k > 2, "+groupAggs+" FROM (SELECT k, SUM(v) AS s FROM a GROUP BY k) GROUP BY k > 2;", "s")
			q3 := fmt.Sprintf("SELECT a.k, "+groupAggs+" FROM a LEFT JOIN b ON a.k = b.k GROUP BY a.k;", "b.v")
			checkGroupAgg(t, groupAggCase{q1, want}, groupAggCase{q2, want2}, groupAggCase{q3, want3})
		})
	}
}

// groupAggs are the aggregates of the group aggregate exactness tests
// over a column (%[1]s), in the order of gstat.line.
const groupAggs = "COUNT(*), SUM(%[1]s), MIN(%[1]s), MAX(%[1]s), COUNT(DISTINCT %[1]s), SUM(%[1]s) FILTER (WHERE %[1]s > 4)"

// bigKey is the outer key of an aggregate of an aggregate's sums per k:
// k > 2, NULL for the NULL key.
func bigKey(k string) string {
	if k == "null" {
		return k
	}
	var n int64
	fmt.Sscan(k, &n)
	return fmt.Sprint(n > 2)
}

// groupAggCase is a query of a group aggregate exactness test and the
// result its applied changelog must have.
type groupAggCase struct {
	q    string
	want []string
}

// checkGroupAgg runs each case at parallelism 1, 2 and 4, several batch
// sizes, with mini-batches and with a tiny managed memory (the cache
// writes groups back to the store all the time), and compares its
// applied changelog with its want.
func checkGroupAgg(t *testing.T, cases ...groupAggCase) {
	t.Helper()
	for _, v := range []struct {
		p, batch int
		set      string
	}{
		{1, 4096, ""}, {4, 1, ""}, {4, 7, ""},
		{4, 5, "SET 'table.exec.mini-batch.enabled' = 'true'; SET 'table.exec.mini-batch.allow-latency' = '1 s'; SET 'table.exec.mini-batch.size' = '9';"},
		{2, 16, "SET 'memory.managed.size' = '64kb';"},
	} {
		for _, c := range cases {
			got := runJoinQuery(t, v.set+c.q, v.p, v.batch)
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
					v.set, c.q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(c.want), strings.Join(c.want, "\n  "))
			}
		}
	}
}
