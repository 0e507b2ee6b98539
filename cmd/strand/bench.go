package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/strandsql/strand/bench"
)

const benchUsage = `Usage:
  strand bench nexmark [--query q0,q1,...|all] [--events N] [--parallelism P]
                       [--checkpoint-interval D] [--cpuprofile FILE] [--baseline] [--format text|json]

Runs Nexmark queries (` + "q0, q1, q2, q12, q12e, q7w" + `) into a blackhole sink and prints, per
query: events, wall seconds, CPU seconds of the process, events per CPU-second,
peak RSS and checkpoints taken. --baseline also runs a hand-written Go loop over
the same events, prints the ratio engine / baseline, and fails if the results
differ.
`

// benchCmd is strand bench: flags to a bench.Config.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("strand bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, benchUsage) }
	query := fs.String("query", "all", "queries to run: a comma-separated list, or all")
	events := fs.Int64("events", 0, "events of all types per query (default: the DDL's events.num)")
	parallelism := fs.Int("parallelism", 0, "subtasks per operator (default: number of CPUs)")
	interval := fs.Duration("checkpoint-interval", 0, "take exactly-once checkpoints this often, e.g. 10s")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the runs to this file (samples are labeled run=engine|baseline)")
	baseline := fs.Bool("baseline", false, "also run the hand-written baseline loops and check the results against them")
	format := fs.String("format", "text", "text or json (one object per query and line)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 || pos[0] != "nexmark" {
		fmt.Fprintf(stderr, "strand bench: expected the benchmark name nexmark\n\n%s", benchUsage)
		return 2
	}
	cfg := bench.Config{Events: *events, Parallelism: *parallelism, Interval: *interval, Baseline: *baseline, JSON: *format == "json"}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "strand bench: --format must be text or json, got %q\n", *format)
		return 2
	}
	if cfg.Events < 0 || cfg.Parallelism < 0 || cfg.Interval < 0 {
		fmt.Fprintln(stderr, "strand bench: --events, --parallelism and --checkpoint-interval must not be negative")
		return 2
	}
	if cfg.Queries, err = bench.ParseQueries(*query); err != nil {
		fmt.Fprintf(stderr, "strand bench: %v\n", err)
		return 2
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "strand bench: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "strand bench: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Nexmark(ctx, cfg, stdout, stderr); err != nil {
		if !errors.Is(err, bench.ErrMismatch) { // a mismatch is reported as it is found
			fmt.Fprintf(stderr, "strand bench: %v\n", err)
		}
		return 1
	}
	return 0
}
