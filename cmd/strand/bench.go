package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/queries/nexmark"
	"github.com/strandsql/strand/session"
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

// benchConfig is what the flags of strand bench say.
type benchConfig struct {
	queries     []string
	events      int64
	parallelism int
	interval    time.Duration
	baseline    bool
	json        bool
}

// benchResult is one query's figures; the JSON keys are the ones scripts
// track.
type benchResult struct {
	Query          string   `json:"query"`
	Events         int64    `json:"events"`
	WallS          float64  `json:"wall_s"`
	CPUS           float64  `json:"cpu_s"`
	EventsPerCPUS  float64  `json:"events_per_cpu_s"`
	PeakRSSBytes   int64    `json:"peak_rss_bytes"`
	Checkpoints    int64    `json:"checkpoints"`
	BaselinePerCPU *float64 `json:"baseline_events_per_cpu_s,omitempty"`
	Ratio          *float64 `json:"ratio,omitempty"`
	Matched        *bool    `json:"baseline_matched,omitempty"`
}

// errMismatch marks an engine result that differs from its baseline's.
var errMismatch = errors.New("result differs from the baseline's")

func bench(args []string, stdout, stderr io.Writer) int {
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
	cfg := benchConfig{events: *events, parallelism: *parallelism, interval: *interval, baseline: *baseline, json: *format == "json"}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "strand bench: --format must be text or json, got %q\n", *format)
		return 2
	}
	if cfg.events < 0 || cfg.parallelism < 0 || cfg.interval < 0 {
		fmt.Fprintln(stderr, "strand bench: --events, --parallelism and --checkpoint-interval must not be negative")
		return 2
	}
	if cfg.parallelism == 0 {
		cfg.parallelism = runtime.NumCPU()
	}
	if *query == "all" {
		cfg.queries = nexmark.Queries
	} else {
		for _, q := range strings.Split(*query, ",") {
			q = strings.TrimSpace(q)
			if !slices.Contains(nexmark.Queries, q) {
				fmt.Fprintf(stderr, "strand bench: unknown query %q (queries: %s, all)\n", q, strings.Join(nexmark.Queries, ", "))
				return 2
			}
			cfg.queries = append(cfg.queries, q)
		}
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
	if !cfg.json {
		fmt.Fprintf(stdout, textRow, "query", "events", "wall_s", "cpu_s", "events/cpu-s", "peak_rss_MiB", "checkpoints")
		if cfg.baseline {
			fmt.Fprintf(stdout, textBaseline, "baseline_events/cpu-s", "ratio")
		}
		fmt.Fprintln(stdout)
	}
	status := 0
	for _, q := range cfg.queries {
		r, err := benchQuery(ctx, q, cfg)
		if err != nil && !errors.Is(err, errMismatch) {
			fmt.Fprintf(stderr, "strand bench: %s: %v\n", q, err)
			return 1
		}
		if cfg.json {
			b, _ := json.Marshal(r)
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			fmt.Fprintf(stdout, textRow, r.Query, strconv.FormatInt(r.Events, 10), fmt.Sprintf("%.2f", r.WallS), fmt.Sprintf("%.2f", r.CPUS),
				millions(r.EventsPerCPUS), fmt.Sprintf("%.0f", float64(r.PeakRSSBytes)/(1<<20)), strconv.FormatInt(r.Checkpoints, 10))
			if r.Ratio != nil {
				fmt.Fprintf(stdout, textBaseline, millions(*r.BaselinePerCPU), fmt.Sprintf("%.0f%%", 100**r.Ratio))
			}
			fmt.Fprintln(stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "strand bench: %s: %v\n", q, err)
			status = 1
		}
	}
	return status
}

// The text format's columns, printed as each query ends.
const (
	textRow      = "%-5s %10s %7s %7s %12s %12s %11s"
	textBaseline = " %21s %6s"
)

func millions(v float64) string { return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M" }

// benchQuery runs one query on the engine and, with --baseline, its
// baseline, and checks that their results agree.
func benchQuery(ctx context.Context, q string, cfg benchConfig) (benchResult, error) {
	r := benchResult{Query: q}
	job, opts, sink, cleanup, err := prepare(ctx, q, cfg)
	if err != nil {
		return r, err
	}
	defer cleanup()
	if r.Events, err = strconv.ParseInt(opts["events.num"], 10, 64); err != nil || r.Events <= 0 {
		return r, fmt.Errorf("the bid table must be bounded: events.num is %q", opts["events.num"])
	}
	m := &exec.Metrics{}
	run := func() error { return exec.Run(ctx, job.graph, exec.Options{Metrics: m, Checkpoint: job.cp}) }
	var u runUsage
	if u, err = measure(ctx, "engine", q, run); err != nil {
		return r, err
	}
	r.WallS, r.CPUS, r.PeakRSSBytes = u.wall, u.cpu, u.peakRSS
	r.EventsPerCPUS = float64(r.Events) / u.cpu
	r.Checkpoints = m.Checkpoints.Load()
	if !cfg.baseline {
		return r, nil
	}
	var want digest
	bu, err := measure(ctx, "baseline", q, func() (err error) {
		want, err = baselines[q](opts)
		return err
	})
	if err != nil {
		return r, fmt.Errorf("baseline: %w", err)
	}
	per := float64(r.Events) / bu.cpu
	ratio := r.EventsPerCPUS / per
	got := sink.result()
	ok := got == want
	r.BaselinePerCPU, r.Ratio, r.Matched = &per, &ratio, &ok
	if !ok {
		return r, fmt.Errorf("%w: engine %s, baseline %s", errMismatch, got, want)
	}
	return r, nil
}

// benchJob is a compiled query ready to run.
type benchJob struct {
	graph *exec.Graph
	cp    *exec.Checkpointing
}

// prepare runs the query file's DDL, sets the events of its nexmark
// tables, and compiles its INSERT. With --baseline the sink digests the
// rows instead of discarding them. It returns the bid table's options for
// the baseline.
func prepare(ctx context.Context, q string, cfg benchConfig) (benchJob, map[string]string, *captureSink, func(), error) {
	var job benchJob
	nop := func() {}
	src, err := nexmark.Script(q)
	if err != nil {
		return job, nil, nil, nop, err
	}
	stmts, err := parser.Parse(src)
	if err != nil {
		return job, nil, nil, nop, errors.New(planner.FormatError(q, src, err))
	}
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = cfg.parallelism
	var insert parser.Statement
	for _, st := range stmts {
		if _, ok := st.(*parser.Insert); ok {
			insert = st
			continue
		}
		if err := sess.Exec(ctx, st); err != nil {
			return job, nil, nil, nop, errors.New(planner.FormatError(q+".sql", string(src), err))
		}
	}
	if insert == nil {
		return job, nil, nil, nop, fmt.Errorf("%s.sql has no INSERT", q)
	}
	for _, name := range sess.Catalog.Tables() {
		if t := sess.Catalog.Table(name); t.Options["connector"] == "nexmark" && cfg.events > 0 {
			t.Options["events.num"] = strconv.FormatInt(cfg.events, 10)
		}
	}
	bid := sess.Catalog.Table("bid")
	if bid == nil {
		return job, nil, nil, nop, fmt.Errorf("%s.sql declares no bid table", q)
	}
	logical, err := planner.PlanQuery(sess.Catalog, insert)
	if err != nil {
		return job, nil, nil, nop, errors.New(planner.FormatError(q+".sql", string(src), err))
	}
	job.graph, err = planner.Compile(planner.Optimize(logical), planner.Env{Parallelism: cfg.parallelism, Stdout: io.Discard, JobID: "bench-" + q})
	if err != nil {
		return job, nil, nil, nop, err
	}
	var sink *captureSink
	if cfg.baseline {
		sink = &captureSink{}
		if q == "q12" {
			sink.mode = keyCounts
		}
		for _, v := range job.graph.Vertices {
			if v.Sink != nil {
				v.Sink = sink
			}
		}
	}
	cleanup := nop
	if cfg.interval > 0 {
		dir, err := os.MkdirTemp("", "strand-bench-")
		if err != nil {
			return job, nil, nil, nop, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		st, err := checkpoint.OpenStorage(vfs.Default, filepath.Join(dir, "checkpoints"))
		if err != nil {
			cleanup()
			return job, nil, nil, nop, err
		}
		job.cp = &exec.Checkpointing{Interval: cfg.interval, Storage: st, FS: vfs.Default, WorkDir: filepath.Join(dir, "work"),
			Job: "bench_" + q, Retained: 2, Timeout: 10 * time.Minute, FirstID: 1, Log: io.Discard}
	}
	return job, bid.Options, sink, cleanup, nil
}

// runUsage is what a run cost.
type runUsage struct {
	wall, cpu float64 // seconds
	peakRSS   int64   // bytes
}

// measure runs f and returns its wall time, the process's CPU time (user
// and system, all goroutines) and the peak resident set size while it ran.
// Its CPU profile samples are labeled run=<what>, query=<q>.
func measure(ctx context.Context, what, q string, f func() error) (runUsage, error) {
	// Start from a clean heap, so that one run's garbage is not the next
	// one's memory.
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	cpu0 := cpuSeconds()
	start := time.Now()
	var err error
	pprof.Do(ctx, pprof.Labels("run", what, "query", q), func(context.Context) { err = f() })
	u := runUsage{wall: time.Since(start).Seconds(), cpu: cpuSeconds() - cpu0, peakRSS: peakRSS()}
	return u, err
}

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// resetPeakRSS restarts the kernel's peak-RSS count (Linux: VmHWM), so
// that each query's peak is its own.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the peak resident set size since resetPeakRSS: VmHWM, or,
// where /proc is missing, the process's maximum (getrusage's maxrss).
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10
}
