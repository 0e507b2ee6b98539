package tests

import (
	"fmt"
	"math/big"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// overFloats are the DOUBLE values of the OVER float test: row v's value
// is overFloats[v]. 1e16 absorbs the small values in a sum of doubles and
// -1e16 brings them back or not, and 1e300 needs a full accumulator, so
// a sum that subtracts the rows leaving a frame, or adds in another
// order, differs from the exact one.
var overFloats = []float64{1e16, 1, -1e16, 0.1, 3.3, -7.7, 2.5e-8, 0.001, 1e300, 123456.789, -0.3, 1e15}

// refOverFloats computes SUM(d), COUNT(d) and AVG(d) OVER (PARTITION BY k
// ORDER BY ts frame), d being overFloats[v], for every row, as lines (k,
// v, s, aggregates): refOver's frames, each sum exact in math/big and
// rounded once.
func refOverFloats(rows []rrow, f overFrame) []string {
	var out []string
	eachFrame(rows, f, func(r rrow, frame []rrow) {
		sum, n := new(big.Float).SetPrec(4096), 0
		for _, x := range frame {
			if x.v != nil {
				sum.Add(sum, big.NewFloat(overFloats[*x.v]))
				n++
			}
		}
		aggs := "null, 0, null"
		if n > 0 {
			s, _ := sum.Float64()
			aggs = fmt.Sprintf("%s, %d, %s", types.FormatFloat(s, 64), n, types.FormatFloat(s/float64(n), 64))
		}
		out = append(out, fmt.Sprintf("+I[%s, %s, %d, %s]", showInt(r.k), showInt(r.v), r.s, aggs))
	})
	slices.Sort(out)
	return out
}

// TestOverFloatSumsAreExact: SUM and AVG of DOUBLE values whose sums of
// doubles depend on the order (overFloats) OVER bounded and unbounded
// frames equal an exact reference at parallelism 1, 2 and 4, batches of 1
// and 4096 rows, with a tiny managed memory: a bounded frame takes the
// rows that leave it back exactly, whichever rows earlier firings held.
func TestOverFloatSumsAreExact(t *testing.T) {
	frames := []overFrame{
		{true, 2, "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"},
		{false, 450, "RANGE BETWEEN INTERVAL '0.45' SECOND PRECEDING AND CURRENT ROW"},
		{true, -1, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"},
	}
	var cases strings.Builder
	for i, v := range overFloats {
		fmt.Fprintf(&cases, " WHEN %d THEN CAST('%s' AS DOUBLE)", i, strconv.FormatFloat(v, 'g', -1, 64))
	}
	for seed := int64(1); seed <= 2; seed++ {
		rows := genRankRows(rand.New(rand.NewSource(seed)), 120)
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Chdir(t.TempDir())
			writeRankInput(t, "t", rows, 3)
			for _, f := range frames {
				q := fmt.Sprintf(`SELECT k, v, s, SUM(d) OVER w, COUNT(d) OVER w, AVG(d) OVER w
FROM (SELECT k, v, s, ts, CASE v%s END AS d FROM t)
WINDOW w AS (PARTITION BY k ORDER BY ts %s);`, cases.String(), f.sql)
				want := refOverFloats(rows, f)
				for _, v := range []struct{ p, batch int }{{1, 4096}, {2, 1}, {4, 4096}, {4, 1}} {
					got := runRankQueryWith(t, q, v.p, v.batch, map[string]string{session.KeyMemory: "32kb"})
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Fatalf("%s at parallelism %d, batch %d:\n got %d rows\n  %s\nwant %d rows\n  %s",
							f.sql, v.p, v.batch, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
					}
				}
			}
		})
	}
}
