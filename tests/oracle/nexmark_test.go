package oracle

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The events every query reads (see doc.go): 200000 of them
// (STRAND_ORACLE_EVENTS, a multiple of 50, overrides it), 10 per second
// of event time from 18:30, from a fixed seed.
const (
	defaultEvents = 200000
	rate          = "10"
	baseTime      = "2024-01-01 18:30:00"
	seed          = "1"
)

// runs are the parallelisms and batch sizes every query runs at. The
// batches are smaller than strand's default (4096 rows) because a source
// subtask reads its splits (8) in turn, a batch at a time, and its
// watermark is its slowest split's: at 10 events per second, 4096-row
// batches hold an hour of event time between the splits' watermarks, so
// thousands of windows are open at once and spill (which is tested
// elsewhere, and slow: q5 takes minutes).
var runs = []struct{ p, batch int }{{1, 1024}, {4, 256}}

func TestNexmark(t *testing.T) {
	f := newFixture(t)
	for _, name := range f.names {
		t.Run(name, func(t *testing.T) {
			o, want, cols := expect(t, f.db, name)
			for _, r := range runs {
				t.Run(fmt.Sprintf("p%d", r.p), func(t *testing.T) {
					got := runQuery(t, f.bin, f.root, f.ddl, name, r.p, r.batch, cols)
					if o.bidderTotals {
						checkProcTime(t, f.db, got)
						return
					}
					if d := diff(got, want, 10); d != "" {
						t.Fatalf("%s at parallelism %d: %s", name, r.p, d)
					}
					t.Logf("%s at parallelism %d: %d rows, equal", name, r.p, len(got))
				})
			}
		})
	}
}

// expect returns query name's oracle, its rows as DuckDB computes them
// (none for q12's invariants) and the number of its columns; it skips a
// query whose oracle says so.
func expect(t *testing.T, db *sql.DB, name string) (oracle, []string, int) {
	o := oracles[name]
	if o.skip != "" {
		t.Skip(o.skip)
	}
	var want []string
	cols := 4 // q12's
	if o.duck != "" {
		var err error
		if want, cols, err = duckRows(db, o.duck); err != nil {
			t.Fatalf("the oracle: %v", err)
		}
	}
	return o, want, cols
}

// fixture is what the runs of every query share: the strand binary, the
// DDL of the test's events (in a file and as text), and DuckDB holding the
// events.
type fixture struct {
	root, bin, dir string
	ddl, ddlText   string
	events         int
	names          []string // the queries, in order
	db             *sql.DB
}

// newFixture builds strand, dumps the events and loads them into DuckDB.
func newFixture(t *testing.T) *fixture {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	events := defaultEvents
	if s := os.Getenv("STRAND_ORACLE_EVENTS"); s != "" {
		if events, err = strconv.Atoi(s); err != nil || events <= 0 || events%50 != 0 {
			t.Fatalf("STRAND_ORACLE_EVENTS=%q: want a positive multiple of 50", s)
		}
	}
	f := &fixture{root: root, names: queryNames(t, filepath.Join(root, "queries", "nexmark")), bin: strandBinary(t, root), dir: t.TempDir(), events: events}
	f.ddl, f.ddlText = filepath.Join(f.dir, "ddl.sql"), eventsDDL(t, root, events)
	if err := os.WriteFile(f.ddl, []byte(f.ddlText), 0o644); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(f.dir, "dump.sql")
	if err := os.WriteFile(dump, []byte(dumpSQL(filepath.Join(f.dir, "events"))), 0o644); err != nil {
		t.Fatal(err)
	}
	runStrand(t, f.bin, f.dir, f.ddl, dump, "--parallelism", "2")
	f.db = loadEvents(t, filepath.Join(f.dir, "events"), events)
	return f
}

// queryNames lists the queries in order (q0, q1, ..., q7, q7w, ..., q22):
// every file q*.sql of dir and every query with an oracle. A file without
// an oracle, an oracle without a file, and a file for a skipped query
// fail the test.
func queryNames(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "q*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		have[name] = true
		switch o, ok := oracles[name]; {
		case !ok:
			t.Errorf("%s has no oracle: add one to oracles", f)
		case o.skip != "":
			t.Errorf("%s exists, but its oracle is skipped (%s): write it", f, o.skip)
		}
	}
	var names []string
	for name, o := range oracles {
		if !have[name] && o.skip == "" {
			t.Errorf("the oracle of %s has no file %s.sql in %s", name, name, dir)
		}
		names = append(names, name)
	}
	if t.Failed() {
		t.FailNow()
	}
	num := func(name string) int {
		n, _ := strconv.Atoi(strings.TrimRight(name[1:], "abcdefghijklmnopqrstuvwxyz"))
		return n
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(num(a), num(b)), cmp.Compare(a, b))
	})
	return names
}

// strandBinary is STRAND_BIN, or the strand binary built from root.
func strandBinary(t *testing.T, root string) string {
	if bin := os.Getenv("STRAND_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "strand")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/strand")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building strand: %v\n%s", err, out)
	}
	return bin
}

// eventsDDL is queries/nexmark/ddl.sql with the test's events: the rate,
// count, start and seed of the generator.
func eventsDDL(t *testing.T, root string, events int) string {
	b, err := os.ReadFile(filepath.Join(root, "queries", "nexmark", "ddl.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ddl := string(b)
	for _, r := range []struct{ old, new string }{
		{"'first-event.rate' = '10000000'", fmt.Sprintf("'first-event.rate' = '%s', 'base-time' = '%s', 'seed' = '%s'", rate, baseTime, seed)},
		{"'events.num' = '10000000'", fmt.Sprintf("'events.num' = '%d'", events)},
	} {
		if n := strings.Count(ddl, r.old); n != 3 {
			t.Fatalf("ddl.sql has %s %d times, want 3 (once per table)", r.old, n)
		}
		ddl = strings.ReplaceAll(ddl, r.old, r.new)
	}
	return ddl
}

// dumpSQL writes the three tables, every column, to CSV files under
// dir/<table>/.
func dumpSQL(dir string) string {
	var b strings.Builder
	for _, table := range []string{"person", "auction", "bid"} {
		fmt.Fprintf(&b, "CREATE TABLE %s_dump WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv') LIKE %s (EXCLUDING ALL);\n",
			table, filepath.Join(dir, table), table)
		fmt.Fprintf(&b, "INSERT INTO %s_dump SELECT * FROM %s;\n", table, table)
	}
	return b.String()
}

// summary is the line strand run writes on stderr when a job ends.
var summary = regexp.MustCompile(`job \S+ (finished|failed|stopped): .*`)

// runStrand runs strand run with args in dir and returns its stdout. Every
// job must finish without late or bad rows: the oracle has no watermarks.
func runStrand(t *testing.T, bin, dir string, args ...string) string {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"run"}, args...)...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("strand run %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	checkJobs(t, args, stderr.String())
	return stdout.String()
}

// checkJobs checks that every job of a run of strand run with args, whose
// stderr is given, finished without late or bad rows.
func checkJobs(t *testing.T, args []string, stderr string) {
	t.Helper()
	jobs := summary.FindAllString(stderr, -1)
	if len(jobs) == 0 {
		t.Fatalf("strand run %s: no job summary on stderr:\n%s", strings.Join(args, " "), stderr)
	}
	for _, job := range jobs {
		if !strings.Contains(job, " finished: ") || !strings.Contains(job, "late rows dropped 0,") || !strings.Contains(job, "bad rows skipped 0") {
			t.Fatalf("strand run %s: %s", strings.Join(args, " "), job)
		}
	}
}

// runQuery runs query name at parallelism p with batches of batch rows
// into the print sink (q10 into its partitioned files) and returns its
// final rows.
func runQuery(t *testing.T, bin, root, ddl, name string, p, batch, cols int) []string {
	dir := t.TempDir()
	file := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(file, []byte(queryText(t, root, dir, name, "'connector' = 'print'")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runStrand(t, bin, dir, ddl, file, "--parallelism", strconv.Itoa(p), "--set", "strand.batch-size="+strconv.Itoa(batch))
	if name == "q10" {
		return partitionRows(t, filepath.Join(dir, "data", "output", "oracle", "bid"))
	}
	rows, err := applyChangelog(out, cols)
	if err != nil {
		t.Fatalf("%s at parallelism %d: %v", name, p, err)
	}
	return rows
}

// queryText is query name's file with its sink's blackhole connector
// replaced by sink; q10 instead writes its partitioned files under dir
// (dir/data/output/oracle/bid).
func queryText(t *testing.T, root, dir, name, sink string) string {
	src, err := os.ReadFile(filepath.Join(root, "queries", "nexmark", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	query := string(src)
	if name == "q13" {
		query = strings.ReplaceAll(query, "${NEXMARK_DIR}", dir)
		writeSideInput(t, dir)
	}
	if name == "q10" {
		return strings.NewReplacer("${NEXMARK_DIR}", dir, "${SUBMIT_TIME}", "oracle").Replace(query)
	}
	const blackhole = "'connector' = 'blackhole'"
	if n := strings.Count(query, blackhole); n != 1 {
		t.Fatalf("%s.sql has %s %d times, want once (its sink)", name, blackhole, n)
	}
	return strings.Replace(query, blackhole, sink, 1)
}

// partitionRows reads the rows of a partitioned CSV sink's directory, each
// with its partition values appended (unescaped from the directory names),
// sorted, and checks that every partition has been committed (_SUCCESS)
// and that no in-progress file is left.
func partitionRows(t *testing.T, dir string) []string {
	var rows []string
	committed := map[string]bool{}
	parts := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		part := filepath.Dir(rel)
		switch base := d.Name(); {
		case base == "_SUCCESS":
			committed[part] = true
			return nil
		case strings.HasPrefix(base, "."):
			return fmt.Errorf("%s: an in-progress file is left", rel)
		}
		parts[part] = true
		var values []string
		for _, kv := range strings.Split(part, string(filepath.Separator)) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("%s: %q is no partition directory", rel, kv)
			}
			if v, err = url.PathUnescape(v); err != nil {
				return fmt.Errorf("%s: %s: %w", rel, k, err)
			}
			values = append(values, v)
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		for _, rec := range recs {
			rows = append(rows, strings.Join(append(rec, values...), ", "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for part := range parts {
		if !committed[part] {
			t.Errorf("partition %s has no _SUCCESS file", part)
		}
	}
	slices.Sort(rows)
	return rows
}

// checkProcTime checks q12's rows (bidder, bid_count, starttime, endtime),
// whose windows depend on timing, by invariants: each window is 10 seconds
// long and aligned to 10 seconds, each bidder has a window once, and each
// bidder's counts add up to its bids.
func checkProcTime(t *testing.T, db *sql.DB, rows []string) {
	got := map[string]int64{}
	seen := map[string]bool{}
	for _, row := range rows {
		f := strings.Split(row, ", ")
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || n <= 0 {
			t.Fatalf("%q: bid_count is not a positive count", row)
		}
		start, err1 := time.Parse(time.DateTime+".000", f[2])
		end, err2 := time.Parse(time.DateTime+".000", f[3])
		if err1 != nil || err2 != nil || end.Sub(start) != 10*time.Second || start.UnixMilli()%10000 != 0 {
			t.Fatalf("%q: not an aligned 10-second window", row)
		}
		if k := f[0] + "@" + f[2]; seen[k] {
			t.Fatalf("%q: the bidder's window is there twice", row)
		} else {
			seen[k] = true
		}
		got[f[0]] += n
	}
	want, _, err := duckRows(db, `SELECT bidder, count(*) FROM bid GROUP BY bidder`)
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for bidder, n := range got {
		sums = append(sums, bidder+", "+strconv.FormatInt(n, 10))
	}
	slices.Sort(sums)
	if d := diff(sums, want, 10); d != "" {
		t.Fatalf("per-bidder totals: %s", d)
	}
	t.Logf("q12: %d windows, the totals of %d bidders equal", len(rows), len(sums))
}

// writeSideInput writes q13's side input, data/side_input.txt under dir:
// the rows "i,i" for i in [0, 10000), as Flink's nexmark generates it
// (strand bench writes the same with nexmark.WriteSideInput; this module
// does not import strand's).
func writeSideInput(t *testing.T, dir string) {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "%d,%d\n", i, i)
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "side_input.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
