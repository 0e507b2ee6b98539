package tests

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
)

// overFrame is an OVER window's frame for the reference: ROWS or RANGE,
// reaching back preceding rows or milliseconds, -1 for UNBOUNDED.
type overFrame struct {
	rows      bool
	preceding int64
	sql       string
}

// refOver computes SUM(v), COUNT(*), MIN(v), MAX(v) and AVG(v) OVER
// (PARTITION BY k ORDER BY ts frame) for every row, as lines (k, v, s,
// aggregates), by brute force over each row's partition: rows in time
// order, rows of the same time in the order of their other columns (v
// NULLs first, then s); a RANGE frame holds the row's peers. It shares
// no code with over/.
func refOver(rows []rrow, f overFrame) []string {
	var out []string
	eachFrame(rows, f, func(r rrow, frame []rrow) {
		var sum, n int64
		var lo, hi *int64
		for _, x := range frame {
			if x.v == nil {
				continue
			}
			v := *x.v
			sum, n = sum+v, n+1
			if lo == nil || v < *lo {
				lo = &v
			}
			if hi == nil || v > *hi {
				hi = &v
			}
		}
		agg := "null, %d, null, null, null"
		if n > 0 {
			agg = fmt.Sprintf("%d, %%d, %d, %d, %d", sum, *lo, *hi, sum/n)
		}
		out = append(out, fmt.Sprintf("+I[%s, %s, %d, "+agg+"]", showInt(r.k), showInt(r.v), r.s, len(frame)))
	})
	slices.Sort(out)
	return out
}

// eachFrame calls fn with every row of rows and its frame (PARTITION BY k
// ORDER BY ts f): the row's partition in time order, rows of the same
// time in the order of their other columns (v NULLs first, then s); a
// RANGE frame holds the row's peers.
func eachFrame(rows []rrow, f overFrame, fn func(r rrow, frame []rrow)) {
	for _, part := range partitions(rows) {
		slices.SortFunc(part, func(a, b rrow) int {
			return cmp.Or(cmp.Compare(a.ts, b.ts), cmpNullsFirst(a.v, b.v), cmp.Compare(a.s, b.s))
		})
		for i, r := range part {
			var frame []rrow
			for j, x := range part {
				in := x.ts <= r.ts && (f.preceding < 0 || x.ts >= r.ts-f.preceding)
				if f.rows {
					in = j <= i && (f.preceding < 0 || int64(i-j) <= f.preceding)
				}
				if in {
					frame = append(frame, x)
				}
			}
			fn(r, frame)
		}
	}
}

// TestOverResultsAreExact: for random inputs with NULL keys and values
// and many rows of equal time, every OVER frame's output equals the
// reference's, at parallelism 1, 2 and 4, batches of 1 and 4096 rows,
// with a tiny managed memory, over rows read from three splits.
func TestOverResultsAreExact(t *testing.T) {
	frames := []overFrame{
		{true, 2, "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"},
		{false, 450, "RANGE BETWEEN INTERVAL '0.45' SECOND PRECEDING AND CURRENT ROW"},
		{true, -1, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"},
		{false, -1, "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"},
	}
	for seed := int64(1); seed <= 2; seed++ {
		rows := genRankRows(rand.New(rand.NewSource(seed)), 80)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeRankInput(t, "t", rows, 3)
			for _, f := range frames {
				q := fmt.Sprintf(`SELECT k, v, s, SUM(v) OVER w, COUNT(*) OVER w, MIN(v) OVER w, MAX(v) OVER w, AVG(v) OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts %s);`, f.sql)
				want := refOver(rows, f)
				for _, v := range []struct{ p, batch int }{{1, 4096}, {2, 1}, {4, 4096}, {4, 1}} {
					got := runRankQueryWith(t, q, v.p, v.batch, map[string]string{session.KeyMemory: "32kb"})
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
							q, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
					}
				}
			}
		})
	}
}
