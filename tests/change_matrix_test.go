package tests

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
)

// matrixRows is the length of the change matrix's generated input.
const matrixRows = 12000

// matrixSource is a throttled generator with a sequence column, so that
// its rows can be read back in generation order for the reference.
var matrixSource = fmt.Sprintf(`
CREATE TABLE clicks (
  seq BIGINT, ts TIMESTAMP(3), user_id BIGINT, amount BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH ('connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '8000', 'splits' = '1', 'seed' = '5',
  'fields.seq.kind' = 'sequence', 'fields.seq.start' = '0', 'fields.seq.end' = '%d',
  'fields.ts.kind' = 'random', 'fields.ts.step' = '5 ms', 'fields.ts.max-past' = '1 s',
  'fields.user_id.min' = '1', 'fields.user_id.max' = '10', 'fields.amount.min' = '0', 'fields.amount.max' = '9');
`, matrixRows, matrixRows-1)

const matrixSink = `
CREATE TABLE out_t (ws TIMESTAMP(3), user_id BIGINT, clicks BIGINT, total BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
`

// matrixBase is the query that is stopped with a savepoint and then
// changed.
const matrixBase = `INSERT INTO out_t
SELECT window_start, user_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, user_id;
`

type genRow struct{ seq, ts, user, amount int64 }

// matrixInput generates the source's rows once, in sequence order.
func matrixInput(t *testing.T) []genRow {
	t.Helper()
	dir := t.TempDir()
	q := strings.Replace(matrixSource, "'rows-per-second' = '8000'", "'rows-per-second' = '100000000'", 1) + `
CREATE TABLE dump (seq BIGINT, ts TIMESTAMP(3), user_id BIGINT, amount BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'dump', 'format' = 'csv');
INSERT INTO dump SELECT seq, ts, user_id, amount FROM clicks;`
	writeFile(t, filepath.Join(dir, "gen.sql"), q)
	if _, errs, code := runStrand(t, dir, "run", "gen.sql", "--parallelism", "1"); code != 0 {
		t.Fatalf("generating the input: %s", errs)
	}
	var rows []genRow
	for _, l := range committed(t, filepath.Join(dir, "dump")) {
		f := strings.Split(l, ",")
		ts, err := time.Parse("2006-01-02 15:04:05.000", f[1])
		if err != nil {
			t.Fatal(err)
		}
		r := genRow{ts: ts.UnixMilli()}
		r.seq, _ = strconv.ParseInt(f[0], 10, 64)
		r.user, _ = strconv.ParseInt(f[2], 10, 64)
		r.amount, _ = strconv.ParseInt(f[3], 10, 64)
		rows = append(rows, r)
	}
	slices.SortFunc(rows, func(a, b genRow) int { return int(a.seq - b.seq) })
	if len(rows) != matrixRows {
		t.Fatalf("generated %d rows, want %d", len(rows), matrixRows)
	}
	return rows
}

// version is one side of a change: which rows its window aggregate takes
// and how it prints a window's group (ok false drops it).
type version struct {
	keep func(genRow) bool
	out  func(ws, user, clicks, total int64) (line string, ok bool)
}

func plainOut(ws, user, clicks, total int64) (string, bool) {
	return fmt.Sprintf("%s,%d,%d,%d", time.UnixMilli(ws).UTC().Format("2006-01-02 15:04:05.000"), user, clicks, total), true
}

var baseVersion = version{keep: func(genRow) bool { return true }, out: plainOut}

// expectAfter is the reference for the output of the changed query resumed
// from a savepoint taken when the source had read cut rows with split
// watermark wm: the windows that had not fired then, aggregating the rows
// before the cut as the old query took them and the rows after it, less
// the late ones, as the new one takes them, printed the new way. Lateness
// is decided per row against the split's running watermark (max event
// time so far minus 2 s), as strand's sources do.
func expectAfter(rows []genRow, cut int64, wm int64, old, changed version) []string {
	const size, delay = 1000, 2000
	fires := func(ts int64) int64 { return ts - ((ts%size)+size)%size + size - 1 }
	type key struct{ ws, user int64 }
	type acc struct{ clicks, total int64 }
	groups := map[key]*acc{}
	w := int64(math.MinInt64)
	for i, r := range rows {
		if fires(r.ts) <= w {
			continue // late
		}
		w = max(w, r.ts-delay)
		v := changed
		if int64(i) < cut {
			v = old
		}
		if int64(i) < cut && fires(r.ts) <= wm {
			continue // its window fired before the savepoint
		}
		if !v.keep(r) {
			continue
		}
		k := key{r.ts - ((r.ts%size)+size)%size, r.user}
		if groups[k] == nil {
			groups[k] = &acc{}
		}
		groups[k].clicks++
		groups[k].total += r.amount
	}
	var out []string
	for k, a := range groups {
		if l, ok := changed.out(k.ws, k.user, a.clicks, a.total); ok {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// TestQueryChangeMatrix stops a query with a savepoint, changes it, and
// resumes the changed query from the savepoint. An edit that leaves what
// the window's state means alone restores it, and the output is exactly
// what was committed before the savepoint plus what the changed query
// computes from the restored state and the rest of the input; an edit that
// changes it is refused, naming the operator. Nothing is ever mapped onto
// the wrong operator.
func TestQueryChangeMatrix(t *testing.T) {
	rows := matrixInput(t)
	cases := []struct {
		name    string
		file    string // the changed file, with the source's and sink's DDL
		refused bool
		changed version
	}{
		{name: "filter upstream", file: matrixSource + matrixSink + strings.Replace(matrixBase, "GROUP BY", "WHERE amount > 3\nGROUP BY", 1),
			changed: version{keep: func(r genRow) bool { return r.amount > 3 }, out: plainOut}},
		{name: "filter downstream", file: matrixSource + matrixSink + strings.Replace(matrixBase, "user_id;", "user_id\nHAVING COUNT(*) > 20;", 1),
			changed: version{keep: baseVersion.keep, out: func(ws, u, c, s int64) (string, bool) {
				l, _ := plainOut(ws, u, c, s)
				return l, c > 20
			}}},
		{name: "output column", file: matrixSource + strings.Replace(matrixSink, "total BIGINT", "total BIGINT, twice BIGINT", 1) +
			strings.Replace(matrixBase, "SUM(amount)", "SUM(amount), COUNT(*) * 2", 1),
			changed: version{keep: baseVersion.keep, out: func(ws, u, c, s int64) (string, bool) {
				l, _ := plainOut(ws, u, c, s)
				return fmt.Sprintf("%s,%d", l, 2*c), true
			}}},
		{name: "alias and comment", file: matrixSource + matrixSink + "-- per user\n" + strings.Replace(matrixBase, "COUNT(*)", "COUNT(*) AS n", 1),
			changed: baseVersion},
		{name: "reordered DDL", file: matrixSink + matrixSource + matrixBase, changed: baseVersion},
		{name: "second insert", file: matrixSource + matrixSink + matrixBase + `
CREATE TABLE out2 (ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out2', 'format' = 'csv');
INSERT INTO out2 SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;`,
			changed: baseVersion},
		{name: "window size", file: matrixSource + matrixSink + strings.Replace(matrixBase, "'1' SECOND", "'2' SECOND", 1), refused: true},
		{name: "group by key", file: matrixSource + matrixSink + strings.NewReplacer("user_id,", "amount,", "user_id;", "amount;").Replace(matrixBase), refused: true},
		{name: "aggregate added", file: matrixSource + strings.Replace(matrixSink, "total BIGINT", "total BIGINT, mx BIGINT", 1) +
			strings.Replace(matrixBase, "SUM(amount)", "SUM(amount), MAX(amount)", 1), refused: true},
		{name: "sink renamed", file: matrixSource + strings.Replace(matrixSink, "out_t", "out_u", 1) + strings.Replace(matrixBase, "out_t", "out_u", 1), refused: true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			wait := time.Duration(200+150*i%700) * time.Millisecond
			path, _ := stopAt(t, matrixSource+matrixSink+matrixBase, 2, wait, false)
			before := committed(t, "out")
			md, err := checkpoint.LoadSavepoint(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(md.Sources) != 1 || len(md.Sources[0].Splits) != 1 {
				t.Fatalf("savepoint sources %+v, want one split", md.Sources)
			}
			sp := md.Sources[0].Splits[0]

			var log syncBuffer
			s := spSession(3, &log)
			s.Durable.FromSavepoint = path
			err = s.ExecScript(context.Background(), c.file)
			if c.refused {
				if err == nil || !strings.Contains(err.Error(), exec.ErrUnmapped.Error()) || !strings.Contains(err.Error(), md.Operators[0].UID) && !strings.Contains(c.name, "sink") {
					t.Fatalf("the changed query was not refused naming %s: %v\n%s", md.Operators[0].UID, err, log.String())
				}
				if after := committed(t, "out"); len(after) != len(before) {
					t.Fatalf("the refused run changed the output")
				}
				return
			}
			if err != nil {
				t.Fatalf("the changed query: %v\n%s", err, log.String())
			}
			if strings.Contains(log.String(), "not restoring") || !strings.Contains(log.String(), "resuming from savepoint") {
				t.Fatalf("the changed query did not restore everything:\n%s", log.String())
			}
			got := committed(t, "out")
			want := append(slices.Clone(before), expectAfter(rows, sp.Line, sp.Watermark, baseVersion, c.changed)...)
			slices.Sort(want)
			if sp.Line == int64(len(rows)) && !slices.Equal(got, want) {
				// The stop came after the source had read every row: if
				// it came after the source ended, the end of the input had
				// fired every window before the savepoint (its split
				// watermark does not say so), and the resumed query has
				// nothing left to emit.
				want = slices.Clone(before)
			}
			diffRows(t, got, want)
			if c.name == "second insert" {
				if _, err := os.Stat("out2"); err != nil {
					t.Fatalf("the second INSERT did not run: %v", err)
				}
			}
		})
	}
}
