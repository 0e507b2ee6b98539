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

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// jrow is a row (k, v) of a join property test's input; k may be NULL.
type jrow struct {
	k *int64
	v int64
}

func (r jrow) key() string {
	if r.k == nil {
		return "null"
	}
	return fmt.Sprint(*r.k)
}

func genJoinRows(rng *rand.Rand, n int) []jrow {
	rows := make([]jrow, n)
	for i := range rows {
		if rng.Intn(8) > 0 {
			k := int64(rng.Intn(5))
			rows[i].k = &k
		}
		rows[i].v = int64(rng.Intn(10))
	}
	return rows
}

// writeJoinInput writes rows as CSV files in dir, spread over three files
// so that a source reads them as three splits.
func writeJoinInput(t *testing.T, dir string, rows []jrow) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var files [3]strings.Builder
	for i, r := range rows {
		k := ""
		if r.k != nil {
			k = fmt.Sprint(*r.k)
		}
		fmt.Fprintf(&files[i%3], "%s,%d\n", k, r.v)
	}
	for i, f := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), []byte(f.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// refJoin is the reference: a nested-loop join, sharing no code with the
// join operator. cond is the residual condition on a pair, or nil.
func refJoin(l, r []jrow, leftOuter, rightOuter bool, cond func(a, b jrow) bool) [][2]*jrow {
	var out [][2]*jrow
	matched := make([]bool, len(r))
	for i := range l {
		any := false
		for j := range r {
			if l[i].k == nil || r[j].k == nil || *l[i].k != *r[j].k || (cond != nil && !cond(l[i], r[j])) {
				continue
			}
			any, matched[j] = true, true
			out = append(out, [2]*jrow{&l[i], &r[j]})
		}
		if !any && leftOuter {
			out = append(out, [2]*jrow{&l[i], nil})
		}
	}
	if rightOuter {
		for j := range r {
			if !matched[j] {
				out = append(out, [2]*jrow{nil, &r[j]})
			}
		}
	}
	return out
}

func pairLines(pairs [][2]*jrow) []string {
	var out []string
	for _, p := range pairs {
		cols := []string{"null", "null", "null", "null"}
		if p[0] != nil {
			cols[0], cols[1] = p[0].key(), fmt.Sprint(p[0].v)
		}
		if p[1] != nil {
			cols[2], cols[3] = p[1].key(), fmt.Sprint(p[1].v)
		}
		out = append(out, "+I["+strings.Join(cols, ", ")+"]")
	}
	sort.Strings(out)
	return out
}

const joinDDL = `
CREATE TABLE a (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'a', 'format' = 'csv');
CREATE TABLE b (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'b', 'format' = 'csv');
CREATE TABLE c (k BIGINT, v BIGINT) WITH ('connector' = 'filesystem', 'path' = 'c', 'format' = 'csv');
`

// runJoinQuery runs query in a fresh session and returns its changelog
// applied.
func runJoinQuery(t *testing.T, query string, parallelism, batch int) []string {
	t.Helper()
	var out bytes.Buffer
	sess := session.New(&out, &bytes.Buffer{})
	sess.Parallelism = parallelism
	sess.Config[session.KeyBatchSize] = fmt.Sprint(batch)
	src := joinDDL + query
	if err := sess.ExecScript(context.Background(), src); err != nil {
		t.Fatal(planner.FormatError("query", src, err))
	}
	got := strings.TrimRight(applyChangelog(out.String()), "\n")
	if got == "" {
		return nil
	}
	return strings.Split(got, "\n")
}

// TestJoinResultsAreExact: for random inputs with NULL keys and repeated
// rows, every join kind's applied changelog equals the reference's result
// at parallelism 1 and 4 and several batch sizes; so does a join over an
// outer join's retracting output, on the padded (NULL) column.
func TestJoinResultsAreExact(t *testing.T) {
	kinds := []struct {
		sql         string
		left, right bool
	}{{"JOIN", false, false}, {"LEFT JOIN", true, false}, {"RIGHT JOIN", false, true}, {"FULL OUTER JOIN", true, true}}
	for seed := int64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewSource(seed))
		a, b, c := genJoinRows(rng, 40), genJoinRows(rng, 40), genJoinRows(rng, 30)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeJoinInput(t, "a", a)
			writeJoinInput(t, "b", b)
			writeJoinInput(t, "c", c)
			for _, v := range []struct{ p, batch int }{{1, 4096}, {4, 1}, {4, 7}} {
				for _, k := range kinds {
					residual := seed%2 == 0
					q := fmt.Sprintf("SELECT a.k, a.v, b.k, b.v FROM a %s b ON a.k = b.k", k.sql)
					var cond func(x, y jrow) bool
					if residual {
						q += " AND a.v < b.v + 3"
						cond = func(x, y jrow) bool { return x.v < y.v+3 }
					}
					want := pairLines(refJoin(a, b, k.left, k.right, cond))
					got := runJoinQuery(t, q+";", v.p, v.batch)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
							q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
					}
				}
				// a semi join: the rows of a with a match in b, once each.
				semi := refSemi(a, b)
				if got := runJoinQuery(t, "SELECT k, v FROM a WHERE k IN (SELECT k FROM b);", v.p, v.batch); strings.Join(got, "\n") != strings.Join(semi, "\n") {
					t.Fatalf("semi join at parallelism %d, batch %d:\n got %q\nwant %q", v.p, v.batch, got, semi)
				}
				// (a LEFT JOIN b) FULL JOIN c on b's padded column.
				var ab []jrow
				for _, p := range refJoin(a, b, true, false, nil) {
					r := jrow{v: p[0].v} // (bv, av): bv is NULL in a padded row
					if p[1] != nil {
						bv := p[1].v
						r.k = &bv
					}
					ab = append(ab, r)
				}
				want := pairLines(refJoin(ab, c, true, true, nil))
				q := "SELECT j.bv, j.av, c.k, c.v FROM (SELECT a.v AS av, b.v AS bv FROM a LEFT JOIN b ON a.k = b.k) j FULL OUTER JOIN c ON j.bv = c.k;"
				got := runJoinQuery(t, q, v.p, v.batch)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
						q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
				}
			}
		})
	}
}

// refSemi is the reference semi join: each row of a (copies kept) that
// has a match in b, once.
func refSemi(a, b []jrow) []string {
	var out []string
	for _, l := range a {
		for _, r := range b {
			if l.k != nil && r.k != nil && *l.k == *r.k {
				out = append(out, "+I["+l.key()+", "+fmt.Sprint(l.v)+"]")
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
