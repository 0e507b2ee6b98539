package tests

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// refAnti is the reference NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k
// AND cond): the rows of l (copies kept) that no row of r matches; a NULL
// key matches nothing.
func refAnti(l, r []jrow, cond func(a, b jrow) bool) []jrow {
	var out []jrow
	for _, a := range l {
		match := false
		for _, b := range r {
			if a.k != nil && b.k != nil && *a.k == *b.k && (cond == nil || cond(a, b)) {
				match = true
			}
		}
		if !match {
			out = append(out, a)
		}
	}
	return out
}

// refNotIn is the reference l.k NOT IN (SELECT k FROM r) in SQL's
// three-valued logic: TRUE over no rows; else NULL (not TRUE) for a NULL
// l.k or when some r.k is NULL; else TRUE if no r.k equals l.k.
func refNotIn(l, r []jrow) []jrow {
	if len(r) == 0 {
		return l
	}
	var out []jrow
	for _, a := range l {
		keep := a.k != nil
		for _, b := range r {
			if b.k == nil || keep && *b.k == *a.k {
				keep = false
			}
		}
		if keep {
			out = append(out, a)
		}
	}
	return out
}

func rowLines(rows []jrow) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("+I[%s, %d]", r.key(), r.v))
	}
	sort.Strings(out)
	return out
}

func where(rows []jrow, keep func(jrow) bool) []jrow {
	var out []jrow
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// TestAntiJoinResultsAreExact: for random inputs with NULL keys and
// repeated rows, NOT EXISTS and NOT IN give the reference's rows at
// parallelism 1 and 4 and several batch sizes, over insert-only inputs
// and over inputs that retract (an outer join's padded rows, taken back
// as matches come), and NOT IN over subqueries with and without NULLs and
// without rows.
func TestAntiJoinResultsAreExact(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewSource(seed))
		a, b, c := genJoinRows(rng, 40), genJoinRows(rng, 30), genJoinRows(rng, 12)
		notNull := func(r jrow) bool { return r.k != nil }
		// The rows of b (or a) without a match in c, as b LEFT JOIN c
		// ... WHERE c.v IS NULL computes them, retracting padded rows.
		bAlone, aAlone := refAnti(b, c, nil), refAnti(a, c, nil)
		cases := []struct {
			q    string
			want []jrow
		}{
			{"SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)", refAnti(a, b, nil)},
			{"SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v > a.v)", refAnti(a, b, func(x, y jrow) bool { return y.v > x.v })},
			{"SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b)", refNotIn(a, b)},
			{"SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b WHERE v < 2)", refNotIn(a, where(b, func(r jrow) bool { return r.v < 2 }))},
			{"SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b WHERE k IS NOT NULL)", refNotIn(a, where(b, notNull))},
			{"SELECT k, v FROM a WHERE k NOT IN (SELECT k FROM b WHERE v > 100)", refNotIn(a, nil)},
			{"SELECT k, v FROM a WHERE NOT EXISTS (SELECT 1 FROM (SELECT b.k FROM b LEFT JOIN c ON b.k = c.k WHERE c.v IS NULL) j WHERE j.k = a.k)", refAnti(a, bAlone, nil)},
			{"SELECT k, v FROM a WHERE k NOT IN (SELECT b.k FROM b LEFT JOIN c ON b.k = c.k WHERE c.v IS NULL AND b.k IS NOT NULL)", refNotIn(a, where(bAlone, notNull))},
			{"SELECT k, v FROM (SELECT a.k, a.v FROM a LEFT JOIN c ON a.k = c.k WHERE c.v IS NULL) l WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = l.k)", refAnti(aAlone, b, nil)},
		}
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeJoinInput(t, "a", a)
			writeJoinInput(t, "b", b)
			writeJoinInput(t, "c", c)
			for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {4, 7}} {
				for _, c := range cases {
					want := rowLines(c.want)
					got := runJoinQuery(t, c.q+";", v.p, v.batch)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
							c.q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
					}
				}
			}
		})
	}
}
