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

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// exactRow is one generated input row; nil pointers are NULLs.
type exactRow struct {
	ts    int64
	k1    *int64
	k2    *string
	vInt  *int32
	vBig  *int64
	vDbl  *float64
	vDec  *int64 // unscaled, scale 2
	vStr  *string
	vBool *bool
}

const (
	exactBase  = int64(1704067200000)
	exactDelay = int64(5000)
	exactSize  = int64(10000)
)

// genExact makes rows whose disorder stays within the watermark delay: each
// row's time is above the running maximum minus the delay, so none is late.
func genExact(r *rand.Rand, n int) []exactRow {
	rows := make([]exactRow, n)
	maxTs := exactBase
	strs := []string{"a", "b", "äöü", "日本", "", "zz top"}
	for i := range rows {
		next := maxTs + r.Int63n(400)
		ts := next - r.Int63n(exactDelay)
		if ts <= maxTs-exactDelay {
			ts = maxTs - exactDelay + 1
		}
		if next > maxTs {
			maxTs = next
		}
		row := exactRow{ts: ts}
		if r.Intn(10) > 0 {
			v := int64(r.Intn(4) - 1)
			row.k1 = &v
		}
		if r.Intn(10) > 0 {
			v := strs[r.Intn(3)]
			row.k2 = &v
		}
		if r.Intn(5) > 0 {
			v := int32(r.Intn(2001) - 1000)
			row.vInt = &v
		}
		if r.Intn(5) > 0 {
			v := r.Int63n(1<<40) - 1<<39
			row.vBig = &v
		}
		if r.Intn(5) > 0 {
			v := float64(r.Intn(4001)-2000) / 4 // exact in binary: sums do not depend on order
			row.vDbl = &v
		}
		if r.Intn(5) > 0 {
			v := r.Int63n(2000001) - 1000000
			row.vDec = &v
		}
		if r.Intn(5) > 0 {
			v := strs[r.Intn(len(strs))]
			row.vStr = &v
		}
		if r.Intn(5) > 0 {
			v := r.Intn(2) == 0
			row.vBool = &v
		}
		rows[i] = row
	}
	return rows
}

// csvField renders a value as the CSV sink writes it: NULL as an empty
// field.
func csvField[T any](p *T, f func(T) string) string {
	if p == nil {
		return ""
	}
	return f(*p)
}

// inField renders an input value; the source table reads "NULL" as NULL,
// so that NULL and empty strings differ.
func inField[T any](p *T, f func(T) string) string {
	if p == nil {
		return "NULL"
	}
	return f(*p)
}

// quoted renders a string as the CSV sink does: the empty string is "" to
// tell it from NULL.
func quoted(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func (r exactRow) csv() string {
	return strings.Join([]string{
		types.FormatTimestamp(r.ts),
		inField(r.k1, func(v int64) string { return fmt.Sprint(v) }),
		inField(r.k2, func(v string) string { return v }),
		inField(r.vInt, func(v int32) string { return fmt.Sprint(v) }),
		inField(r.vBig, func(v int64) string { return fmt.Sprint(v) }),
		inField(r.vDbl, func(v float64) string { return types.FormatFloat(v, 64) }),
		inField(r.vDec, func(v int64) string { return decimal128.FromI64(v).ToString(2) }),
		inField(r.vStr, func(v string) string { return v }),
		inField(r.vBool, func(v bool) string { return fmt.Sprint(v) }),
	}, ",")
}

// exactWindow is a window of the exactness tests, and the reference's
// own, straightforward idea of which windows hold a row.
type exactWindow struct {
	kind        string // TUMBLE, HOP or CUMULATE
	size, slide int64
}

var exactTumble = exactWindow{kind: "TUMBLE", size: exactSize, slide: exactSize}

// tvf is the window's table function over src.
func (w exactWindow) tvf() string {
	ivl := func(ms int64) string { return fmt.Sprintf("INTERVAL '%d' SECOND", ms/1000) }
	if w.kind == "TUMBLE" {
		return fmt.Sprintf("TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), %s))", ivl(w.size))
	}
	return fmt.Sprintf("TABLE(%s(TABLE src, DESCRIPTOR(ts), %s, %s))", w.kind, ivl(w.slide), ivl(w.size))
}

// windows returns the [start, end) of every window holding ts, by trying
// every candidate start.
func (w exactWindow) windows(ts int64) [][2]int64 {
	floor := func(t, n int64) int64 { return t - ((t%n)+n)%n }
	var out [][2]int64
	switch w.kind {
	case "CUMULATE":
		ws := floor(ts, w.size)
		for e := ws + w.slide; e <= ws+w.size; e += w.slide {
			if ts < e {
				out = append(out, [2]int64{ws, e})
			}
		}
	default:
		for ws := floor(ts-w.size, w.slide); ws <= ts; ws += w.slide {
			if ws <= ts && ts < ws+w.size {
				out = append(out, [2]int64{ws, ws + w.size})
			}
		}
	}
	return out
}

// exactQuery is the exactness tests' query over tumbling windows.
var exactQuery = exactQueryOf(exactTumble)

// exactQueryOf is the exactness tests' query over windows w.
func exactQueryOf(w exactWindow) string {
	return fmt.Sprintf(exactQueryText, w.tvf())
}

const exactQueryText = `
CREATE TABLE src (
  ts TIMESTAMP(3), k1 BIGINT, k2 STRING, v_int INT, v_big BIGINT, v_dbl DOUBLE,
  v_dec DECIMAL(10, 2), v_str STRING, v_bool BOOLEAN,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv', 'csv.null-literal' = 'NULL');

CREATE TABLE dst (
  ws TIMESTAMP(3), we TIMESTAMP(3), k1 BIGINT, k2 STRING,
  c_star BIGINT, c_int BIGINT, c_dist BIGINT,
  s_int INT, s_big BIGINT, s_dbl DOUBLE, s_dec DECIMAL(38, 2),
  min_int INT, max_big BIGINT, min_dbl DOUBLE, max_dec DECIMAL(10, 2), min_str STRING, max_str STRING,
  max_bool BOOLEAN, avg_big BIGINT, avg_dbl DOUBLE, avg_dec DECIMAL(38, 6),
  s_big_true BIGINT, c_dist_true BIGINT
) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO dst
SELECT window_start, window_end, k1, k2,
  COUNT(*), COUNT(v_int), COUNT(DISTINCT v_str),
  SUM(v_int), SUM(v_big), SUM(v_dbl), SUM(v_dec),
  MIN(v_int), MAX(v_big), MIN(v_dbl), MAX(v_dec), MIN(v_str), MAX(v_str),
  MAX(v_bool), AVG(v_big), AVG(v_dbl), AVG(v_dec),
  SUM(v_big) FILTER (WHERE v_bool), COUNT(DISTINCT v_int) FILTER (WHERE v_bool IS NOT NULL)
FROM %s
GROUP BY window_start, window_end, k1, k2;
`

// exactGroup accumulates one group of the reference GROUP BY.
type exactGroup struct {
	ws, we           int64
	k1               *int64
	k2               *string
	cStar, cInt      int64
	dist             map[string]bool
	sInt             *int32
	sBig             *int64
	sDbl             *float64
	sDec             *int64
	minInt           *int32
	maxBig           *int64
	minDbl           *float64
	maxDec           *int64
	minStr           *string
	maxStr           *string
	maxBool          *bool
	nBig, nDbl, nDec int64
	sBigTrue         *int64
	distTrue         map[int32]bool
}

func ptr[T any](v T) *T { return &v }

// reference computes the tumbling query as a batch GROUP BY over all rows.
func reference(rows []exactRow) []string { return referenceOf(rows, exactTumble) }

// referenceOf computes the query over windows w as a batch GROUP BY over
// every (row, window holding it).
func referenceOf(rows []exactRow, w exactWindow) []string {
	groups := map[string]*exactGroup{}
	for _, r := range rows {
		for _, win := range w.windows(r.ts) {
			referenceAdd(groups, r, win[0], win[1])
		}
	}
	return referenceRows(groups)
}

func referenceAdd(groups map[string]*exactGroup, r exactRow, ws, we int64) {
	{
		key := fmt.Sprint(ws, "|", we, "|", csvField(r.k1, func(v int64) string { return fmt.Sprint("v", v) }), "|", csvField(r.k2, func(v string) string { return "v" + v }))
		g := groups[key]
		if g == nil {
			g = &exactGroup{ws: ws, we: we, k1: r.k1, k2: r.k2, dist: map[string]bool{}, distTrue: map[int32]bool{}}
			groups[key] = g
		}
		g.cStar++
		if v := r.vInt; v != nil {
			g.cInt++
			g.sInt = ptr(deref(g.sInt) + *v)
			if g.minInt == nil || *v < *g.minInt {
				g.minInt = ptr(*v)
			}
			if r.vBool != nil {
				g.distTrue[*v] = true
			}
		}
		if v := r.vStr; v != nil {
			g.dist[*v] = true
			if g.minStr == nil || *v < *g.minStr {
				g.minStr = ptr(*v)
			}
			if g.maxStr == nil || *v > *g.maxStr {
				g.maxStr = ptr(*v)
			}
		}
		if v := r.vBig; v != nil {
			g.sBig = ptr(deref(g.sBig) + *v)
			g.nBig++
			if g.maxBig == nil || *v > *g.maxBig {
				g.maxBig = ptr(*v)
			}
			if r.vBool != nil && *r.vBool {
				g.sBigTrue = ptr(deref(g.sBigTrue) + *v)
			}
		}
		if v := r.vDbl; v != nil {
			g.sDbl = ptr(deref(g.sDbl) + *v)
			g.nDbl++
			if g.minDbl == nil || *v < *g.minDbl {
				g.minDbl = ptr(*v)
			}
		}
		if v := r.vDec; v != nil {
			g.sDec = ptr(deref(g.sDec) + *v)
			g.nDec++
			if g.maxDec == nil || *v > *g.maxDec {
				g.maxDec = ptr(*v)
			}
		}
		if v := r.vBool; v != nil && (g.maxBool == nil || *v && !*g.maxBool) {
			g.maxBool = ptr(*v)
		}
	}
}

func referenceRows(groups map[string]*exactGroup) []string {
	var out []string
	for _, g := range groups {
		i64 := func(v int64) string { return fmt.Sprint(v) }
		f64 := func(v float64) string { return types.FormatFloat(v, 64) }
		dec2 := func(v int64) string { return decimal128.FromI64(v).ToString(2) }
		var avgBig, avgDbl, avgDec string
		if g.nBig > 0 {
			avgBig = fmt.Sprint(*g.sBig / g.nBig)
		}
		if g.nDbl > 0 {
			avgDbl = f64(*g.sDbl / float64(g.nDbl))
		}
		if g.nDec > 0 {
			// DECIMAL(38, 6) average, rounded half away from zero.
			num := *g.sDec * 10000
			q, rem := num/g.nDec, num%g.nDec
			if 2*abs(rem) >= g.nDec {
				if num < 0 {
					q--
				} else {
					q++
				}
			}
			avgDec = decimal128.FromI64(q).ToString(6)
		}
		var sBigTrue string
		if g.sBigTrue != nil {
			sBigTrue = i64(*g.sBigTrue)
		}
		nDist, nDistTrue := int64(len(g.dist)), int64(len(g.distTrue))
		out = append(out, strings.Join([]string{
			types.FormatTimestamp(g.ws), types.FormatTimestamp(g.we),
			csvField(g.k1, i64), csvField(g.k2, quoted),
			i64(g.cStar), i64(g.cInt), i64(nDist),
			csvField(g.sInt, func(v int32) string { return fmt.Sprint(v) }), csvField(g.sBig, i64), csvField(g.sDbl, f64), csvField(g.sDec, dec2),
			csvField(g.minInt, func(v int32) string { return fmt.Sprint(v) }), csvField(g.maxBig, i64), csvField(g.minDbl, f64), csvField(g.maxDec, dec2),
			csvField(g.minStr, quoted), csvField(g.maxStr, quoted),
			csvField(g.maxBool, func(v bool) string { return fmt.Sprint(v) }), avgBig, avgDbl, avgDec,
			sBigTrue, i64(nDistTrue),
		}, ","))
	}
	sort.Strings(out)
	return out
}

func deref[T int32 | int64 | float64](p *T) T {
	if p == nil {
		return 0
	}
	return *p
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestWindowResultsAreExact: for input whose disorder stays within the
// watermark delay, the windowed query's committed output equals a batch
// GROUP BY over the same rows, for every aggregate, at parallelism 1 and 4,
// from one file and from a directory of files.
func TestWindowResultsAreExact(t *testing.T) {
	for _, files := range []int{1, 3} {
		for _, p := range []int{1, 4} {
			t.Run(fmt.Sprintf("files%d-p%d", files, p), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(files*10 + p)))
				var all []exactRow
				t.Chdir(t.TempDir())
				for f := 0; f < files; f++ {
					rows := genExact(rng, 3000)
					all = append(all, rows...)
					var b strings.Builder
					for _, r := range rows {
						b.WriteString(r.csv())
						b.WriteByte('\n')
					}
					writeFile(t, filepath.Join("in", fmt.Sprintf("part-%d.csv", f)), b.String())
				}
				sess := session.New(io.Discard, io.Discard)
				sess.Parallelism = p
				sess.Config[session.KeyBatchSize] = fmt.Sprint(97 * p)
				if err := sess.ExecScript(context.Background(), exactQuery); err != nil {
					t.Fatal(planner.FormatError("query", exactQuery, err))
				}
				if late := sess.LastMetrics.LateRows.Load(); late != 0 {
					t.Errorf("%d rows counted late, want 0", late)
				}
				got := strings.Split(strings.TrimRight(readOutput(t, "out", false), "\n"), "\n")
				want := reference(all)
				if len(got) != len(want) {
					t.Fatalf("%d result rows, want %d", len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
					}
				}
			})
		}
	}
}

// TestSlidingWindowResultsAreExact: the same for hopping and cumulating
// windows, whose rows are in several windows each, against the reference's
// own enumeration of the windows holding a row: at several parallelisms
// and batch sizes, and with a memory budget so small that the slices spill
// and windows fire by merging spilled slices. 1,500 rows: a window's
// state depends on the rows' density, not their number, and they still
// spill over a hundred times in each budgeted case.
func TestSlidingWindowResultsAreExact(t *testing.T) {
	wins := []exactWindow{{kind: "HOP", size: exactSize, slide: 2000}, {kind: "HOP", size: exactSize, slide: 5000}, {kind: "CUMULATE", size: exactSize, slide: 2000}}
	cases := []struct {
		p, batch int
		mem      string
	}{{1, 4096, ""}, {4, 1, ""}, {2, 97, "48kb"}, {4, 7, "64kb"}}
	for wi, w := range wins {
		rng := rand.New(rand.NewSource(int64(100 + wi)))
		rows := genExact(rng, 1500)
		want := referenceOf(rows, w)
		var in strings.Builder
		for _, r := range rows {
			in.WriteString(r.csv())
			in.WriteByte('\n')
		}
		query := exactQueryOf(w)
		for ci, c := range cases {
			t.Run(fmt.Sprintf("%s%d-p%d-batch%d-mem%s", w.kind, w.slide/1000, c.p, c.batch, c.mem), func(t *testing.T) {
				if !raceRuns(t, wi+ci, 2) {
					t.Skip("every other case of each window under the race detector")
				}
				got, m := runExact(t, query, in.String(), c.p, c.batch, c.mem)
				if late := m.LateRows.Load(); late != 0 {
					t.Errorf("%d rows counted late, want 0", late)
				}
				if spills := m.Spills.Load(); c.mem != "" && spills == 0 {
					t.Errorf("no spills at memory.managed.size %s: the case tests nothing", c.mem)
				} else if c.mem != "" {
					t.Logf("%d rows, %d spills", len(rows), spills)
				}
				compareRows(t, got, want)
			})
		}
	}
}

// runExact runs query over input, the lines of in/part-0.csv, at
// parallelism p with batches of batch rows and, unless mem is empty, that
// memory.managed.size, in a temporary directory; it returns the lines of
// the output, sorted, and the job's counters.
func runExact(t *testing.T, query, input string, p, batch int, mem string) ([]string, *exec.Metrics) {
	t.Helper()
	t.Chdir(t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	writeFile(t, filepath.Join("in", "part-0.csv"), input)
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = p
	sess.Config[session.KeyBatchSize] = fmt.Sprint(batch)
	if mem != "" {
		sess.Config[session.KeyMemory] = mem
	}
	if err := sess.ExecScript(context.Background(), query); err != nil {
		t.Fatal(planner.FormatError("query", query, err))
	}
	return strings.Split(strings.TrimRight(readOutput(t, "out", false), "\n"), "\n"), sess.LastMetrics
}

// compareRows reports the rows of got that differ from want's, the first
// five of them, and how many differ.
func compareRows(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d result rows, want %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if got[i] != want[i] {
			if bad++; bad <= 5 {
				t.Errorf("row %d:\n got  %s\n want %s", i, got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rows differ", bad, len(want))
	}
}
