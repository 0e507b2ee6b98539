package tests

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// exactGap is the session gap of the session exactness test: rows of a key
// come a few seconds apart, so sessions both merge and split.
const exactGap = int64(3000)

// genSessionRows makes rows like genExact, with some disorder beyond the
// watermark delay: about one row in 30 is up to 3 s further behind, late
// or not depending on its split's watermark.
func genSessionRows(r *rand.Rand, n int) []exactRow {
	rows := genExact(r, n)
	maxTs := int64(0)
	for i := range rows {
		if i > 0 && r.Intn(30) == 0 {
			rows[i].ts = maxTs - exactDelay - r.Int63n(3000) + 1500
		}
		maxTs = max(maxTs, rows[i].ts)
	}
	return rows
}

// onTime keeps the rows of one split that are not late: a row is late when
// its time is before the split's watermark as it stood before the row, the
// watermark being the greatest ts - delay of the rows kept so far.
func onTime(rows []exactRow) (kept []exactRow, late int) {
	wm := int64(-1 << 63)
	for _, r := range rows {
		if r.ts < wm {
			late++
			continue
		}
		kept = append(kept, r)
		wm = max(wm, r.ts-exactDelay)
	}
	return kept, late
}

// sessionReference computes session windows as a batch job would: per key
// (k1, k2), the rows in time order, a session running on while the next
// row is at most one gap after its end so far.
func sessionReference(rows []exactRow) []string {
	byKey := map[string][]exactRow{}
	for _, r := range rows {
		k := csvField(r.k1, func(v int64) string { return fmt.Sprint("v", v) }) + "|" + csvField(r.k2, func(v string) string { return "v" + v })
		byKey[k] = append(byKey[k], r)
	}
	groups := map[string]*exactGroup{}
	for _, rs := range byKey {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].ts < rs[j].ts })
		for i := 0; i < len(rs); {
			start, end := rs[i].ts, rs[i].ts+exactGap
			j := i
			for ; j < len(rs) && rs[j].ts <= end; j++ {
				end = max(end, rs[j].ts+exactGap)
			}
			for _, r := range rs[i:j] {
				referenceAdd(groups, r, start, end)
			}
			i = j
		}
	}
	return referenceRows(groups)
}

// TestSessionWindowResultsAreExact: a SESSION window query over random rows,
// some of them late, in one file or three (each a split with its own
// watermark), equals the batch computation of the sessions of the rows
// that are on time in their split, with the late rows counted, at
// parallelism 1, 2 and 4 and batch sizes 1 to 4096, DISTINCT aggregates
// included; and with a memory.managed.size of 64kb, far below the
// sessions' state, which spills and fires from the store.
func TestSessionWindowResultsAreExact(t *testing.T) {
	query := fmt.Sprintf(exactQueryText,
		fmt.Sprintf("TABLE(SESSION(TABLE src PARTITION BY (k1, k2), DESCRIPTOR(ts), INTERVAL '%d' SECOND))", exactGap/1000))
	cases := []struct {
		files, p, batch int
		mem             string
	}{{1, 1, 4096, ""}, {1, 4, 1, ""}, {3, 2, 97, ""}, {3, 4, 7, ""}, {1, 1, 4096, "64kb"}, {3, 2, 97, "64kb"}, {3, 4, 1, "64kb"}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("files%d-p%d-batch%d-mem%s", c.files, c.p, c.batch, c.mem), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(c.files*100 + c.p*10 + c.batch)))
			t.Chdir(t.TempDir())
			var kept []exactRow
			wantLate := 0
			for f := 0; f < c.files; f++ {
				rows := genSessionRows(rng, 2000)
				k, late := onTime(rows)
				kept, wantLate = append(kept, k...), wantLate+late
				var b strings.Builder
				for _, r := range rows {
					b.WriteString(r.csv())
					b.WriteByte('\n')
				}
				writeFile(t, filepath.Join("in", fmt.Sprintf("part-%d.csv", f)), b.String())
			}
			if wantLate == 0 {
				t.Fatal("no late rows: the case tests less than it says")
			}
			sess := session.New(io.Discard, io.Discard)
			sess.Parallelism = c.p
			sess.Config[session.KeyBatchSize] = fmt.Sprint(c.batch)
			if c.mem != "" {
				sess.Config[session.KeyMemory] = c.mem
				t.Setenv("TMPDIR", t.TempDir())
			}
			if err := sess.ExecScript(context.Background(), query); err != nil {
				t.Fatal(planner.FormatError("query", query, err))
			}
			if spills := sess.LastMetrics.Spills.Load(); c.mem != "" {
				t.Logf("%d spills", spills)
				if spills == 0 {
					t.Errorf("no spills at memory.managed.size %s: the case tests less than it says", c.mem)
				}
			}
			if late := sess.LastMetrics.LateRows.Load(); late != int64(wantLate) {
				t.Errorf("%d rows counted late, want %d", late, wantLate)
			}
			got := strings.Split(strings.TrimRight(readOutput(t, "out", false), "\n"), "\n")
			want := sessionReference(kept)
			if len(got) != len(want) {
				t.Fatalf("%d sessions, want %d", len(got), len(want))
			}
			bad := 0
			for i := range want {
				if got[i] != want[i] {
					if bad++; bad <= 5 {
						t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
					}
				}
			}
		})
	}
}
