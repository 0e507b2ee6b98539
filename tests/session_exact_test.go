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
	"github.com/strandsql/strand/types"
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
func sessionReference(rows []exactRow) []string { return referenceRows(sessionGroups(rows)) }

// sessionGroups are the sessions of rows, each with the aggregates of its
// rows, as sessionReference computes them.
func sessionGroups(rows []exactRow) map[string]*exactGroup {
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
	return groups
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
	for ci, c := range cases {
		t.Run(fmt.Sprintf("files%d-p%d-batch%d-mem%s", c.files, c.p, c.batch, c.mem), func(t *testing.T) {
			if !raceRuns(t, ci, 2) {
				t.Skip("every other case under the race detector")
			}
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
			compareRows(t, got, want)
		})
	}
}

// sessionTopNQueryText ranks the rows of each session of the SESSION TVF
// by v_big and keeps the first: whatever row wins a tie, its v_big is the
// session's largest, NULL only when all are.
const sessionTopNQueryText = `
CREATE TABLE src (
  ts TIMESTAMP(3), k1 BIGINT, k2 STRING, v_int INT, v_big BIGINT, v_dbl DOUBLE,
  v_dec DECIMAL(10, 2), v_str STRING, v_bool BOOLEAN,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'csv.null-literal' = 'NULL');
CREATE TABLE dst (ws TIMESTAMP(3), we TIMESTAMP(3), k1 BIGINT, k2 STRING, top_big BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst
SELECT window_start, window_end, k1, k2, v_big FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k1, k2 ORDER BY v_big DESC) AS rn
  FROM TABLE(SESSION(TABLE src PARTITION BY (k1, k2), DESCRIPTOR(ts), INTERVAL '3' SECOND))
) WHERE rn = 1;
`

// TestSessionTopNResultsAreExact: a window Top-N right over the SESSION
// TVF, which keeps every row until its session fires, gives each
// session's largest v_big, as the batch computation of the sessions of
// the rows on time in their split does, at parallelism 1, 2 and 4, batch
// sizes 1 to 4096, and with a memory.managed.size of 32kb, at which the
// sessions spill.
func TestSessionTopNResultsAreExact(t *testing.T) {
	cases := []struct {
		files, p, batch int
		mem             string
	}{{1, 1, 4096, ""}, {3, 2, 1, ""}, {3, 4, 97, ""}, {3, 1, 4096, "32kb"}, {3, 2, 7, "32kb"}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("files%d-p%d-batch%d-mem%s", c.files, c.p, c.batch, c.mem), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(c.files*100 + c.p*10 + c.batch)))
			t.Chdir(t.TempDir())
			t.Setenv("TMPDIR", t.TempDir())
			var kept []exactRow
			wantLate := 0
			for f := 0; f < c.files; f++ {
				rows := genSessionRows(rng, 1500)
				k, late := onTime(rows)
				kept, wantLate = append(kept, k...), wantLate+late
				var b strings.Builder
				for _, r := range rows {
					b.WriteString(r.csv())
					b.WriteByte('\n')
				}
				writeFile(t, filepath.Join("in", fmt.Sprintf("part-%d.csv", f)), b.String())
			}
			sess := session.New(io.Discard, io.Discard)
			sess.Parallelism = c.p
			sess.Config[session.KeyBatchSize] = fmt.Sprint(c.batch)
			if c.mem != "" {
				sess.Config[session.KeyMemory] = c.mem
			}
			if err := sess.ExecScript(context.Background(), sessionTopNQueryText); err != nil {
				t.Fatal(planner.FormatError("query", sessionTopNQueryText, err))
			}
			if late := sess.LastMetrics.LateRows.Load(); late != int64(wantLate) {
				t.Errorf("%d rows counted late, want %d", late, wantLate)
			}
			if spills := sess.LastMetrics.Spills.Load(); c.mem != "" {
				t.Logf("%d spills", spills)
				if spills == 0 {
					t.Errorf("no spills at memory.managed.size %s: the case tests less than it says", c.mem)
				}
			}
			var want []string
			for _, g := range sessionGroups(kept) {
				want = append(want, strings.Join([]string{types.FormatTimestamp(g.ws), types.FormatTimestamp(g.we),
					csvField(g.k1, func(v int64) string { return fmt.Sprint(v) }), csvField(g.k2, quoted),
					csvField(g.maxBig, func(v int64) string { return fmt.Sprint(v) })}, ","))
			}
			sort.Strings(want)
			got := strings.Split(strings.TrimRight(readOutput(t, "out", false), "\n"), "\n")
			if len(got) != len(want) {
				t.Fatalf("%d sessions, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("row %d:\n got  %s\n want %s", i, got[i], want[i])
				}
			}
		})
	}
}
