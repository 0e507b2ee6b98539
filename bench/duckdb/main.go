// Command duckdb compares strand with DuckDB on reading files: it generates
// a CSV file and the same rows as JSON lines, runs the strand binary and
// DuckDB on the same queries, each as a whole process doing the whole job
// (read the file, compute, write a CSV result), alternating, and prints
// rows per CPU-second (the child's user + system time, from rusage) and
// their ratio, after checking that both wrote the same result.
//
// It is a module of its own because DuckDB needs cgo, which the strand
// binary must not: `go test ./...` in the strand module never builds it.
//
//	go run . -strand ../../bin/strand -rows 1000000 -runs 3
//
// DuckDB runs in a child process too (this program started with -duck),
// with one thread, so that both figures are whole processes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	duck := flag.String("duck", "", "internal: run this SQL file in DuckDB and exit")
	strand := flag.String("strand", "bin/strand", "the strand binary")
	rows := flag.Int("rows", 1_000_000, "rows per input file")
	runs := flag.Int("runs", 3, "runs per engine and query (the median is reported)")
	dir := flag.String("dir", "", "working directory (default: a temporary one, removed afterwards)")
	shapes := flag.String("query", "all", "comma-separated query names, or all: "+strings.Join(shapeNames(), ", "))
	formats := flag.String("format", "csv,json", "input formats")
	par := flag.Int("parallelism", 1, "strand's parallelism")
	flag.Parse()
	if *duck != "" {
		if err := runDuck(*duck); err != nil {
			fmt.Fprintln(os.Stderr, "duckdb:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*strand, *rows, *runs, *dir, *shapes, *formats, *par); err != nil {
		fmt.Fprintln(os.Stderr, "bench-files:", err)
		os.Exit(1)
	}
}

func shapeNames() []string {
	var names []string
	for _, s := range shapes {
		names = append(names, s.name)
	}
	return names
}

func run(strand string, rows, runs int, dir, only, formats string, par int) error {
	strand, err := filepath.Abs(strand)
	if err != nil {
		return err
	}
	if _, err := os.Stat(strand); err != nil {
		return fmt.Errorf("strand binary: %w (run make build)", err)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "bench-files-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var selected []shape
	for _, s := range shapes {
		if only == "all" || contains(strings.Split(only, ","), s.name) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		return fmt.Errorf("no query named %q; the queries are %s", only, strings.Join(shapeNames(), ", "))
	}
	fmt.Printf("generating %d rows ...\n", rows)
	if err := generate(dir, rows); err != nil {
		return err
	}
	fmt.Printf("%-9s %-5s %12s %12s %7s %s\n", "query", "input", "strand r/cs", "duckdb r/cs", "ratio", "results")
	for _, format := range strings.Split(formats, ",") {
		for _, s := range selected {
			r, err := compare(dir, self, strand, s, format, rows, runs, par)
			if err != nil {
				return fmt.Errorf("%s over %s: %w", s.name, format, err)
			}
			fmt.Printf("%-9s %-5s %12s %12s %6.2fx %s\n", s.name, format, millions(r.strand.rate), millions(r.duck.rate), r.strand.rate/r.duck.rate, r.check)
			fmt.Printf("          strand: cpu %s, wall %s; duckdb: cpu %s, wall %s (medians of %d)\n",
				secs(r.strand.cpu), secs(r.strand.wall), secs(r.duck.cpu), secs(r.duck.wall), runs)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func millions(v float64) string { return fmt.Sprintf("%.2fM", v/1e6) }

func secs(v float64) string { return fmt.Sprintf("%.3fs", v) }

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
