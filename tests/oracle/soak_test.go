package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// soaks are the configurations TestSoak runs every query in: exactly-once
// checkpoints every interval, the generator throttled so that the events
// take about span of wall-clock time, one SIGKILL at a random moment
// between the first completed checkpoint and kill later, and a restart
// from the latest checkpoint that runs to the end. The issue asks for
// checkpoints every 10 s; the second configuration, at parallelism 4,
// checkpoints every 2 s, so that the kill lands after several of them.
var soaks = []struct {
	p, batch       int
	interval, span time.Duration
	kill           time.Duration // the most the kill waits after the first checkpoint
}{
	{1, 1024, 10 * time.Second, 40 * time.Second, 20 * time.Second},
	{4, 256, 2 * time.Second, 20 * time.Second, 12 * time.Second},
}

// TestSoak (STRAND_SOAK=1, make soak) runs each query of TestNexmark with
// checkpoints, kills the strand binary with SIGKILL once a checkpoint has
// completed, runs it again, which resumes from the latest checkpoint, and
// compares what the query's sink committed with DuckDB's rows. The sink
// is the filesystem in debezium-json (every changelog, exactly-once: a
// file is visible once the checkpoint that holds it has completed), q10's
// its partitioned CSV files; q12 is checked by its invariants, as in
// TestNexmark.
func TestSoak(t *testing.T) {
	if os.Getenv("STRAND_SOAK") == "" {
		t.Skip("STRAND_SOAK=1 runs it (make soak)")
	}
	f := newFixture(t)
	for _, name := range f.names {
		t.Run(name, func(t *testing.T) {
			o, want, cols := expect(t, f.db, name)
			for _, c := range soaks {
				t.Run(fmt.Sprintf("p%d", c.p), func(t *testing.T) {
					eps := max(1, int64(f.events)*int64(time.Second)/int64(c.span))
					ddl := strings.ReplaceAll(f.ddlText, "'connector' = 'nexmark'", fmt.Sprintf("'connector' = 'nexmark', 'events-per-second' = '%d'", eps))
					h := fnv.New64a()
					io.WriteString(h, t.Name())
					rng := rand.New(rand.NewSource(int64(h.Sum64())))
					dir := t.TempDir()
					out := filepath.Join(dir, "out")
					query := queryText(t, f.root, dir, name, fmt.Sprintf("'connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json'", out))
					for file, text := range map[string]string{"ddl.sql": ddl, name + ".sql": query} {
						if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					args := []string{"run", "ddl.sql", name + ".sql", "--parallelism", strconv.Itoa(c.p),
						"--set", "strand.batch-size=" + strconv.Itoa(c.batch), "--checkpoint-interval", c.interval.String()}
					killRun(t, f.bin, dir, args, time.Duration(rng.Int63n(int64(c.kill))))
					stderr := finalRun(t, f.bin, dir, args)
					var got []string
					switch name {
					case "q10":
						got = partitionRows(t, filepath.Join(dir, "data", "output", "oracle", "bid"))
					default:
						var err error
						if got, err = debeziumRows(out, cols); err != nil {
							t.Fatal(err)
						}
					}
					if o.bidderTotals {
						checkProcTime(t, f.db, got)
					} else if d := diff(got, want, 10); d != "" {
						t.Fatalf("%s at parallelism %d after a kill: %s", name, c.p, d)
					}
					t.Logf("%s at parallelism %d: %d rows, equal; %s", name, c.p, len(got), resumed.FindString(stderr))
				})
			}
		})
	}
}

// killRun starts strand with args in dir, waits for its first completed
// checkpoint and then for wait, and kills it with SIGKILL. It fails the
// test if the run ends before: the run is too short to be killed.
func killRun(t *testing.T, bin, dir string, args []string, wait time.Duration) {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stderr = dir, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// newest is the number of the newest completed checkpoint (older ones
	// are pruned), 0 before the first.
	newest := func() int {
		chks, _ := filepath.Glob(filepath.Join(dir, ".strand", "checkpoints", "*", "chk-*", "_metadata"))
		n := 0
		for _, c := range chks {
			k, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(c)), "chk-"))
			n = max(n, k)
		}
		return n
	}
	first := time.Duration(0)
	for tick := time.NewTicker(20 * time.Millisecond); first == 0; {
		select {
		case err := <-done:
			t.Fatalf("the run ended (%v) before its first checkpoint completed, after %s:\n%s", err, time.Since(start), stderr.Bytes())
		case <-tick.C:
			if newest() > 0 {
				first = time.Since(start)
				tick.Stop()
			}
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the run ended (%v) before the kill, %s after its first checkpoint:\n%s", err, time.Since(start)-first, stderr.Bytes())
	case <-time.After(wait):
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	t.Logf("killed after %s (the first checkpoint completed after %s), the newest checkpoint %d", time.Since(start).Round(time.Millisecond), first.Round(time.Millisecond), newest())
}

// resumed is what strand run says when it restores a checkpoint.
var resumed = regexp.MustCompile(`resuming from checkpoint \d+`)

// finalRun runs strand with args in dir to its end and returns its
// stderr; it must resume from a checkpoint and finish as runStrand's jobs
// do.
func finalRun(t *testing.T, bin, dir string, args []string) string {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("the run after the kill: %v\n%s", err, stderr.Bytes())
	}
	if !resumed.Match(stderr.Bytes()) {
		t.Fatalf("the run after the kill did not resume from a checkpoint:\n%s", stderr.Bytes())
	}
	checkJobs(t, args, stderr.String())
	t.Logf("the run after the kill took %s", time.Since(start).Round(time.Millisecond))
	return stderr.String()
}

// debeziumRows reads the debezium-json messages of the visible files of
// dir (a file sink's committed files; a hidden one is in progress) and
// returns the final rows, sorted, each as its values rendered as the print
// sink renders them, joined by ", ". "c" adds after, "d" takes before
// back; the order of the files does not matter, for the result is their
// sum, but a row taken back more often than added is an error, as is a row
// without cols values.
func debeziumRows(dir string, cols int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	count := map[string]int{}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var msg struct {
				Before, After json.RawMessage
				Op            string
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", e.Name(), i+1, err)
			}
			row, delta := msg.After, 1
			if msg.Op == "d" {
				row, delta = msg.Before, -1
			} else if msg.Op != "c" {
				return nil, fmt.Errorf("%s:%d: op %q", e.Name(), i+1, msg.Op)
			}
			vals, err := jsonValues(row)
			if err != nil || len(vals) != cols {
				return nil, fmt.Errorf("%s:%d: %d values, want %d (%v): %s", e.Name(), i+1, len(vals), cols, err, line)
			}
			count[strings.Join(vals, ", ")] += delta
		}
	}
	var rows []string
	for row, n := range count {
		if n < 0 {
			return nil, fmt.Errorf("%q is taken back %d times more than it is added", row, -n)
		}
		for range n {
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	return rows, nil
}

// jsonValues returns the values of a JSON object's fields, in order, as
// the print sink writes them: a number as written (a DECIMAL keeps its
// scale), a string unquoted, null as null.
func jsonValues(obj []byte) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %s", obj)
	}
	var vals []string
	for d.More() {
		if _, err := d.Token(); err != nil { // the key
			return nil, err
		}
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch v := tok.(type) {
		case nil:
			vals = append(vals, "null")
		case json.Number:
			vals = append(vals, v.String())
		case string:
			vals = append(vals, v)
		case bool:
			vals = append(vals, strconv.FormatBool(v))
		default:
			return nil, fmt.Errorf("value %v: not a scalar", tok)
		}
	}
	return vals, nil
}

func TestDebeziumRows(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"part-0": `{"before":null,"after":{"a":1,"b":"x, y","c":2.50,"d":null},"op":"c"}` + "\n" +
			`{"before":null,"after":{"a":2,"b":"z","c":1.00,"d":"2024-01-01 00:00:00.000"},"op":"c"}` + "\n",
		"part-1":             `{"before":{"a":2,"b":"z","c":1.00,"d":"2024-01-01 00:00:00.000"},"after":null,"op":"d"}` + "\n",
		".part-2.inprogress": `{"before":null,"after":{"a":3,"b":"q","c":0,"d":null},"op":"c"}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := debeziumRows(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1, x, y, 2.50, null"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := debeziumRows(dir, 3); err == nil {
		t.Error("3 columns: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, "part-3"), []byte(`{"before":{"a":9,"b":"","c":0,"d":null},"after":null,"op":"d"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := debeziumRows(dir, 4); err == nil {
		t.Error("a row taken back that is not there: no error")
	}
}
