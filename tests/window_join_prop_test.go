package tests

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// wspec is a window of a window join property test, in seconds: TUMBLE
// (slide = size), HOP or CUMULATE (slide is the step).
type wspec struct {
	sql         string
	kind        string
	size, slide int64
}

type twin struct{ start, end int64 }

// windowsOf are the windows holding a row at ts, computed from their
// definitions: every [s, s+size) with s a multiple of slide for TUMBLE
// and HOP; every [b, b+k*step) over ts with b a multiple of size for
// CUMULATE.
func (w wspec) windowsOf(ts int64) []twin {
	var out []twin
	if w.kind == "CUMULATE" {
		b := floorDiv(ts, w.size) * w.size
		for e := b + w.slide; e <= b+w.size; e += w.slide {
			if e > ts {
				out = append(out, twin{b, e})
			}
		}
		return out
	}
	for s := floorDiv(ts, w.slide) * w.slide; s > ts-w.size; s -= w.slide {
		out = append(out, twin{s, s + w.size})
	}
	return out
}

// onTimeWindowed drops the rows that are late in their split for windows
// of w, as a source with the watermark ts - ivDelay does: a row whose
// first window ends at or before the split's watermark so far (the window
// fires when the watermark reaches its end less a millisecond, and these
// times are whole seconds).
func onTimeWindowed(rows []trow, w wspec) []trow {
	var out []trow
	wm := [3]int64{-1 << 40, -1 << 40, -1 << 40}
	for i, r := range rows {
		s := i % 3
		if first := floorDiv(r.ts, w.slide)*w.slide + w.slide; first <= wm[s] {
			continue
		}
		wm[s] = max(wm[s], r.ts-ivDelay)
		out = append(out, r)
	}
	return out
}

// refWindowJoin is the reference window join: per window, the pairs of
// equal non-NULL keys for which cond holds, sides padded where outer, as
// "+I[a.v, b.v, window start]"; or for a semi (anti) join the rows of a
// with (without) a match in their window, as "+I[a.v, window start]".
func refWindowJoin(a, b []trow, w wspec, kind string, cond func(x, y trow) bool) []string {
	byWin := map[twin][2][]trow{}
	for side, rows := range [][]trow{a, b} {
		for _, r := range rows {
			for _, win := range w.windowsOf(r.ts) {
				p := byWin[win]
				p[side] = append(p[side], r)
				byWin[win] = p
			}
		}
	}
	leftOuter, rightOuter := kind == "LEFT JOIN" || kind == "FULL JOIN", kind == "RIGHT JOIN" || kind == "FULL JOIN"
	var out []string
	for win, p := range byWin {
		matched := make([]bool, len(p[1]))
		for _, l := range p[0] {
			any := false
			for j, r := range p[1] {
				if l.k != nil && r.k != nil && *l.k == *r.k && (cond == nil || cond(l, r)) {
					any, matched[j] = true, true
					if kind != "SEMI" && kind != "ANTI" {
						out = append(out, fmt.Sprintf("+I[%d, %d, %d]", l.v, r.v, win.start))
					}
				}
			}
			switch {
			case kind == "SEMI" && any, kind == "ANTI" && !any:
				out = append(out, fmt.Sprintf("+I[%d, %d]", l.v, win.start))
			case leftOuter && !any:
				out = append(out, fmt.Sprintf("+I[%d, null, %d]", l.v, win.start))
			}
		}
		for j, r := range p[1] {
			if rightOuter && !matched[j] {
				out = append(out, fmt.Sprintf("+I[null, %d, %d]", r.v, win.start))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestWindowJoinResultsAreExact: for random inputs, out of order within
// the watermark's delay and sometimes beyond it (late: dropped at the
// source per split, by the first window of the row), every kind of window
// join over TUMBLE, HOP and CUMULATE window TVFs emits exactly the
// reference's rows, at parallelism 1, 2 and 4, batches of 4096 rows and
// of 1, and with a managed memory so small that windows spill; the rows
// counted late are the reference's. Under the race detector each window
// and join runs at one of those by turns (raceRuns).
func TestWindowJoinResultsAreExact(t *testing.T) {
	specs := []wspec{
		{"TUMBLE(TABLE %s, DESCRIPTOR(ts), INTERVAL '10' SECOND)", "TUMBLE", 10, 10},
		{"HOP(TABLE %s, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)", "HOP", 6, 2},
		{"CUMULATE(TABLE %s, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '9' SECOND)", "CUMULATE", 9, 3},
	}
	kinds := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "SEMI", "ANTI"}
	variants := []struct {
		p, batch int
		mem      string
	}{{1, 4096, ""}, {4, 1, ""}, {2, 4096, "32kb"}}
	rng := rand.New(rand.NewSource(7))
	a, b := genTimedRows(rng, 300, 0), genTimedRows(rng, 300, 1000)
	t.Chdir(t.TempDir())
	writeTimed(t, "a", a)
	writeTimed(t, "b", b)
	for si, w := range specs {
		oa, ob := onTimeWindowed(a, w), onTimeWindowed(b, w)
		late := int64(len(a) - len(oa) + len(b) - len(ob))
		if len(oa) == len(a) || len(ob) == len(b) {
			t.Fatalf("%s: no late rows: the test would not show they are dropped alike", w.kind)
		}
		views := fmt.Sprintf("CREATE VIEW aw AS SELECT * FROM TABLE(%s);\nCREATE VIEW bw AS SELECT * FROM TABLE(%s);\n",
			fmt.Sprintf(w.sql, "a"), fmt.Sprintf(w.sql, "b"))
		const start = "CAST(EXTRACT(EPOCH FROM %s) - 1704067200 AS BIGINT)"
		for ki, kind := range kinds {
			// Half the kinds take a residual condition, by turns.
			var cond func(x, y trow) bool
			on := "aw.k = bw.k AND aw.window_start = bw.window_start AND aw.window_end = bw.window_end"
			if (si+ki)%2 == 1 {
				on += " AND aw.v + 1000 < bw.v + 150"
				cond = func(x, y trow) bool { return x.v+1000 < y.v+150 }
			}
			var q string
			switch kind {
			case "SEMI", "ANTI":
				not := map[bool]string{true: "NOT "}[kind == "ANTI"]
				q = fmt.Sprintf("SELECT v, "+start+" FROM aw WHERE %sEXISTS (SELECT * FROM bw WHERE %s);", "window_start", not, on)
			default:
				q = fmt.Sprintf("SELECT aw.v, bw.v, "+start+" FROM aw %s bw ON %s;", "COALESCE(aw.window_start, bw.window_start)", kind, on)
			}
			want := refWindowJoin(oa, ob, w, kind, cond)
			for vi, v := range variants {
				if !raceRuns(t, si+ki+vi, len(variants)) {
					continue
				}
				got, m := runTimed(t, views+q, v.p, v.batch, v.mem)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s %s at parallelism %d, batch %d, memory %q:\n got %d rows\n  %s\nwant %d rows\n  %s",
						w.kind, q, v.p, v.batch, v.mem, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
				}
				if n := m.LateRows.Load(); n != late {
					t.Errorf("%s %s: %d rows late, want %d", w.kind, kind, n, late)
				}
				if v.mem != "" && m.Spills.Load() == 0 {
					t.Errorf("%s %s: no window spilled at memory.managed.size %s: the case tests nothing", w.kind, kind, v.mem)
				}
			}
		}
	}
}
