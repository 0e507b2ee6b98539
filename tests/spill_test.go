package tests

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strandsql/strand/session"
)

// genSpill makes n rows for exactQuery whose windows hold many groups:
// times a few milliseconds apart (thousands of rows per 10 s window,
// disordered within the watermark delay) and k1 drawn from keys values.
func genSpill(r *rand.Rand, n, keys int) []exactRow {
	rows := genExact(r, n)
	maxTs := exactBase
	for i := range rows {
		maxTs += r.Int63n(6)
		rows[i].ts = maxTs - r.Int63n(exactDelay/2)
		k := r.Int63n(int64(keys))
		rows[i].k1 = &k
	}
	return rows
}

// TestWindowStateLargerThanMemory: a window query whose state is many
// times memory.managed.size spills to the state store and still commits
// exactly the batch GROUP BY's rows, every aggregate (DISTINCT ones, MIN
// and MAX of strings) included, and leaves no spill files behind. A
// window's state depends on the rows' density, not their number: 60,000
// rows are 15 such windows (over 100 spills at p1).
func TestWindowStateLargerThanMemory(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	rows := genSpill(rng, 60000, 40000)
	want := reference(rows)
	var in strings.Builder
	for _, r := range rows {
		in.WriteString(r.csv())
		in.WriteByte('\n')
	}
	for _, p := range []int{1, 2} {
		t.Run(fmt.Sprintf("p%d", p), func(t *testing.T) {
			t.Chdir(t.TempDir())
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			out, sess := runOnFile(t, filepath.Join("in", "part-0.csv"), in.String(), exactQuery, p, map[string]string{session.KeyMemory: "256kb"})
			// The windows' state: ~8,000 groups of ~300 bytes each per
			// window, two or three windows open at a time, against a
			// share of 256 KiB / p.
			spills := sess.LastMetrics.Spills.Load()
			if spills < 10 {
				t.Errorf("%d spills: the state fit in memory, the test tests nothing", spills)
			}
			got := strings.Split(strings.TrimRight(out, "\n"), "\n")
			compareRows(t, got, want)
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("spill files left behind: %s", left[0].Name())
			}
			t.Logf("p%d: %d rows, %d groups, %d spills", p, len(rows), len(want), spills)
		})
	}
}
