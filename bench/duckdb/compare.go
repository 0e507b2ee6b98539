package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// figure is one engine's medians over the runs.
type figure struct {
	rate, cpu, wall float64
}

type result struct {
	strand, duck figure
	check        string
}

// compare runs shape s over the input in format with both engines, runs
// times each, alternating which goes first, and checks the results of
// every run against each other.
func compare(dir, self, strand string, s shape, format string, rows, runs, par int) (result, error) {
	in := filepath.Join(dir, "clicks."+format)
	var sc, sw, dc, dw []float64
	var want []string
	for i := range runs {
		sOut := filepath.Join(dir, fmt.Sprintf("strand-%s-%s-%d", s.name, format, i))
		dOut := filepath.Join(dir, fmt.Sprintf("duck-%s-%s-%d.csv", s.name, format, i))
		sFile := filepath.Join(dir, "q.sql")
		dFile := filepath.Join(dir, "q.duck.sql")
		if err := os.WriteFile(sFile, []byte(s.strandSQL(in, format, sOut)), 0o644); err != nil {
			return result{}, err
		}
		if err := os.WriteFile(dFile, []byte(s.duckSQL(in, format, dOut)), 0o644); err != nil {
			return result{}, err
		}
		runStrand := func() error {
			cpu, wall, err := child(strand, "run", sFile, "--parallelism", strconv.Itoa(par))
			sc, sw = append(sc, cpu), append(sw, wall)
			return err
		}
		runDuckDB := func() error {
			cpu, wall, err := child(self, "-duck", dFile)
			dc, dw = append(dc, cpu), append(dw, wall)
			return err
		}
		first, second := runStrand, runDuckDB
		if i%2 == 1 {
			first, second = runDuckDB, runStrand
		}
		if err := first(); err != nil {
			return result{}, err
		}
		if err := second(); err != nil {
			return result{}, err
		}
		got, err := readRows(s.kinds, sOut)
		if err != nil {
			return result{}, fmt.Errorf("strand's result: %w", err)
		}
		ref, err := readRows(s.kinds, dOut)
		if err != nil {
			return result{}, fmt.Errorf("duckdb's result: %w", err)
		}
		if msg := equal(s.kinds, got, ref); msg != "" {
			return result{}, fmt.Errorf("run %d: results differ: %s", i+1, msg)
		}
		if want != nil && !slices.Equal(want, got) {
			return result{}, fmt.Errorf("run %d: strand's result differs from its first run's", i+1)
		}
		want = got
		os.RemoveAll(sOut)
		os.Remove(dOut)
	}
	r := result{check: fmt.Sprintf("equal (%d rows)", len(want))}
	r.strand = figure{rate: float64(rows) / median(sc), cpu: median(sc), wall: median(sw)}
	r.duck = figure{rate: float64(rows) / median(dc), cpu: median(dc), wall: median(dw)}
	return r, nil
}

// child runs a process to its end and returns its user + system CPU
// seconds and its wall seconds.
func child(name string, args ...string) (float64, float64, error) {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.Bytes())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	return cpu, wall, nil
}

// runDuck executes the statement in file with one DuckDB thread.
func runDuck(file string) error {
	q, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("SET threads = 1"); err != nil {
		return err
	}
	_, err = db.Exec(string(q))
	return err
}

// readRows reads a CSV result (a file, or a directory of part files) as
// normalised lines: timestamps as milliseconds, exact floats in Go's
// shortest form, sorted. Float sums ('S') are kept last, after a tab, to
// be compared with a tolerance.
func readRows(kinds, path string) ([]string, error) {
	files := []string{path}
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if fi.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return nil, err
		}
		files = files[:0]
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "" {
				continue
			}
			fields := strings.Split(line, ",")
			if len(fields) != len(kinds) {
				return nil, fmt.Errorf("%s: %q: want %d fields", f, line, len(kinds))
			}
			var key, sums []string
			for i, k := range kinds {
				v := fields[i]
				switch k {
				case 't':
					t, err := time.Parse("2006-01-02 15:04:05.999999999", v)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", f, err)
					}
					v = strconv.FormatInt(t.UnixMilli(), 10)
				case 'f', 'S':
					x, err := strconv.ParseFloat(v, 64)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", f, err)
					}
					v = strconv.FormatFloat(x, 'g', -1, 64)
				}
				if k == 'S' {
					sums = append(sums, v)
				} else {
					key = append(key, v)
				}
			}
			out = append(out, strings.Join(key, ",")+"\t"+strings.Join(sums, ","))
		}
	}
	slices.Sort(out)
	return out, nil
}

// equal compares two normalised results; "" if they agree.
func equal(kinds string, a, b []string) string {
	if len(a) != len(b) {
		return fmt.Sprintf("strand has %d rows, duckdb %d", len(a), len(b))
	}
	for i := range a {
		ka, sa, _ := strings.Cut(a[i], "\t")
		kb, sb, _ := strings.Cut(b[i], "\t")
		if ka != kb {
			return fmt.Sprintf("row %d: strand %q, duckdb %q", i, a[i], b[i])
		}
		if sa == sb {
			continue
		}
		xa, xb := strings.Split(sa, ","), strings.Split(sb, ",")
		for j := range xa {
			fa, _ := strconv.ParseFloat(xa[j], 64)
			fb, _ := strconv.ParseFloat(xb[j], 64)
			if math.Abs(fa-fb) > 1e-9*math.Max(math.Abs(fa), math.Abs(fb)) {
				return fmt.Sprintf("row %d: strand %q, duckdb %q", i, a[i], b[i])
			}
		}
	}
	return ""
}
