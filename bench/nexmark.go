package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/queries/nexmark"
	"github.com/strandsql/strand/session"
)

// Config is what a Nexmark benchmark run measures.
type Config struct {
	Queries     []string      // Nexmark query names, in order (see ParseQueries)
	Events      int64         // events of all types per query; 0: the DDL's events.num
	Rate        int64         // events per second of event time; 0: the DDL's first-event.rate
	Parallelism int           // subtasks per operator; 0: the number of CPUs
	Interval    time.Duration // exactly-once checkpoint interval; 0: none
	Memory      int64         // managed memory in bytes (memory.managed.size); 0: the default
	Baseline    bool          // also run the hand-written loops and compare results
	JSON        bool          // one JSON object per query and line instead of a text table
}

// Result is one query's figures; the JSON keys are the ones scripts
// track.
type Result struct {
	Query         string  `json:"query"`
	Events        int64   `json:"events"`
	WallS         float64 `json:"wall_s"`
	CPUS          float64 `json:"cpu_s"`
	EventsPerCPUS float64 `json:"events_per_cpu_s"`
	PeakRSSBytes  int64   `json:"peak_rss_bytes"`
	Checkpoints   int64   `json:"checkpoints"`
	// Spills counts the windows spilled to the state store for want of
	// memory: a run that spilled is slower for that, not comparable with
	// one that did not.
	Spills         int64    `json:"spills"`
	BaselinePerCPU *float64 `json:"baseline_events_per_cpu_s,omitempty"`
	Ratio          *float64 `json:"ratio,omitempty"`
	Matched        *bool    `json:"baseline_matched,omitempty"`
	// History is the run's completed checkpoints, oldest first (not in
	// the JSON: Checkpoints summarizes it).
	History []exec.CheckpointRecord `json:"-"`
}

// ErrMismatch marks an engine result that differs from its baseline's.
var ErrMismatch = errors.New("result differs from the baseline's")

// ParseQueries resolves a comma-separated list of query names, or all.
func ParseQueries(list string) ([]string, error) {
	if list == "all" {
		return nexmark.Queries, nil
	}
	var qs []string
	for _, q := range strings.Split(list, ",") {
		q = strings.TrimSpace(q)
		if !slices.Contains(nexmark.Queries, q) {
			return nil, fmt.Errorf("unknown query %q (queries: %s, all)", q, strings.Join(nexmark.Queries, ", "))
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// Nexmark runs each query of cfg and prints its figures to out as it
// ends. A query whose result differs from its baseline's is reported to
// errOut and the run goes on; Nexmark then returns an error that is
// ErrMismatch. Any other error ends the run.
func Nexmark(ctx context.Context, cfg Config, out, errOut io.Writer) error {
	if cfg.Events < 0 || cfg.Rate < 0 || cfg.Parallelism < 0 || cfg.Interval < 0 || cfg.Memory < 0 {
		return errors.New("--events, --rate, --parallelism, --checkpoint-interval and --memory must not be negative")
	}
	if cfg.Parallelism == 0 {
		cfg.Parallelism = runtime.NumCPU()
	}
	if !cfg.JSON {
		fmt.Fprintf(out, textRow, "query", "events", "wall_s", "cpu_s", "events/cpu-s", "peak_rss_MiB", "checkpoints", "spills")
		if cfg.Baseline {
			fmt.Fprintf(out, textBaseline, "baseline_events/cpu-s", "ratio")
		}
		fmt.Fprintln(out)
	}
	var mismatch error
	for _, q := range cfg.Queries {
		r, err := runQuery(ctx, q, cfg)
		if err != nil && !errors.Is(err, ErrMismatch) {
			return fmt.Errorf("%s: %w", q, err)
		}
		if cfg.JSON {
			b, _ := json.Marshal(r)
			fmt.Fprintf(out, "%s\n", b)
		} else {
			fmt.Fprintf(out, textRow, r.Query, strconv.FormatInt(r.Events, 10), fmt.Sprintf("%.2f", r.WallS), fmt.Sprintf("%.2f", r.CPUS),
				millions(r.EventsPerCPUS), fmt.Sprintf("%.0f", float64(r.PeakRSSBytes)/(1<<20)), strconv.FormatInt(r.Checkpoints, 10),
				strconv.FormatInt(r.Spills, 10))
			if r.Ratio != nil {
				fmt.Fprintf(out, textBaseline, millions(*r.BaselinePerCPU), fmt.Sprintf("%.0f%%", 100**r.Ratio))
			}
			fmt.Fprintln(out)
		}
		if err != nil {
			fmt.Fprintf(errOut, "strand bench: %s: %v\n", q, err)
			mismatch = err
		}
	}
	return mismatch
}

// The text format's columns, printed as each query ends.
const (
	textRow      = "%-5s %10s %7s %7s %12s %12s %11s %6s"
	textBaseline = " %21s %6s"
)

func millions(v float64) string { return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M" }

// flinkMiniBatch is the mini-batch setting of Flink's Nexmark runs
// (nexmark-flink's conf/config.yaml: table.exec.mini-batch.enabled,
// allow-latency 2s, size 50000), which only group aggregates use.
var flinkMiniBatch = planner.MiniBatch{Size: 50000, Latency: 2 * time.Second}

// runQuery runs one query on the engine and, with a baseline, its
// baseline, and checks that their results agree.
func runQuery(ctx context.Context, q string, cfg Config) (Result, error) {
	r := Result{Query: q}
	job, opts, sink, cleanup, err := prepare(ctx, q, cfg)
	if err != nil {
		return r, err
	}
	defer cleanup()
	if r.Events, err = strconv.ParseInt(opts["events.num"], 10, 64); err != nil || r.Events <= 0 {
		return r, fmt.Errorf("the bid table must be bounded: events.num is %q", opts["events.num"])
	}
	m := &exec.Metrics{}
	run := func() error {
		var mem *memseg.Manager
		if cfg.Memory > 0 {
			m, err := exec.NewMemory(cfg.Memory)
			if err != nil {
				return err
			}
			mem = m
		}
		j, err := exec.Start(ctx, job.graph, exec.Options{Metrics: m, Checkpoint: job.cp, Memory: mem})
		if err != nil {
			return err
		}
		err = j.Wait()
		for _, c := range slices.Backward(j.CheckpointHistory()) {
			if c.Status == exec.Completed {
				r.History = append(r.History, c)
			}
		}
		return err
	}
	var u runUsage
	if u, err = measure(ctx, "engine", q, run); err != nil {
		return r, err
	}
	r.WallS, r.CPUS, r.PeakRSSBytes = u.wall, u.cpu, u.peakRSS
	r.EventsPerCPUS = float64(r.Events) / u.cpu
	r.Checkpoints, r.Spills = m.Checkpoints.Load(), m.Spills.Load()
	base, has := baselines[q]
	if !cfg.Baseline || !has {
		// A query without a hand-written baseline: its rate stands alone.
		return r, nil
	}
	var want digest
	bu, err := measure(ctx, "baseline", q, func() (err error) {
		want, err = base(opts)
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
		return r, fmt.Errorf("%w: engine %s, baseline %s", ErrMismatch, got, want)
	}
	return r, nil
}

// compiled is a query ready to run.
type compiled struct {
	graph *exec.Graph
	cp    *exec.Checkpointing
}

// prepare runs the query file's DDL, sets the events of its nexmark
// tables, and compiles its INSERT. With --baseline the sink digests the
// rows instead of discarding them. It returns the bid table's options for
// the baseline.
func prepare(ctx context.Context, q string, cfg Config) (compiled, map[string]string, *captureSink, func(), error) {
	var job compiled
	nop := func() {}
	src, err := nexmark.Script(q)
	if err != nil {
		return job, nil, nil, nop, err
	}
	cleanup := nop
	if strings.Contains(src, "${NEXMARK_DIR}") {
		// q10 writes its log to files, q13 reads its side input from
		// one: in a directory of their own, removed after the run.
		dir, err := os.MkdirTemp("", "strand-nexmark-")
		if err != nil {
			return job, nil, nil, nop, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		src = nexmark.Fill(src, dir, time.Now().UTC().Format("20060102-150405"))
		if strings.Contains(src, "side_input.txt") {
			// q13 reads its side input from there.
			if err := nexmark.WriteSideInput(dir); err != nil {
				cleanup()
				return job, nil, nil, nop, err
			}
		}
	}
	fail := func(err error) (compiled, map[string]string, *captureSink, func(), error) {
		cleanup()
		return job, nil, nil, nop, err
	}
	stmts, err := parser.Parse(src)
	if err != nil {
		return fail(errors.New(planner.FormatError(q, src, err)))
	}
	sess := session.New(io.Discard, io.Discard)
	sess.Parallelism = cfg.Parallelism
	var insert parser.Statement
	for _, st := range stmts {
		if _, ok := st.(*parser.Insert); ok {
			insert = st
			continue
		}
		if err := sess.Exec(ctx, st); err != nil {
			return fail(errors.New(planner.FormatError(q+".sql", string(src), err)))
		}
	}
	if insert == nil {
		return fail(fmt.Errorf("%s.sql has no INSERT", q))
	}
	for _, name := range sess.Catalog.Tables() {
		t := sess.Catalog.Table(name)
		if t.Options["connector"] == "nexmark" && cfg.Events > 0 {
			t.Options["events.num"] = strconv.FormatInt(cfg.Events, 10)
		}
		if t.Options["connector"] == "nexmark" && cfg.Rate > 0 {
			t.Options["first-event.rate"] = strconv.FormatInt(cfg.Rate, 10)
		}
	}
	bid := sess.Catalog.Table("bid")
	if bid == nil {
		return fail(fmt.Errorf("%s.sql declares no bid table", q))
	}
	logical, err := planner.PlanQuery(sess.Catalog, insert)
	if err != nil {
		return fail(errors.New(planner.FormatError(q+".sql", string(src), err)))
	}
	job.graph, err = planner.Compile(planner.Optimize(logical), planner.Env{Parallelism: cfg.Parallelism, Stdout: io.Discard, JobID: "bench-" + q, MiniBatch: flinkMiniBatch})
	if err != nil {
		return fail(err)
	}
	var sink *captureSink
	if cfg.Baseline && baselines[q] != nil {
		sink = &captureSink{}
		if q == "q12" {
			sink.mode = keyCounts
		}
		sink.cols = digestColumns[q]
		for _, v := range job.graph.Vertices {
			if v.Sink != nil {
				v.Sink = sink
			}
		}
	}
	if cfg.Interval > 0 {
		dir, err := os.MkdirTemp("", "strand-bench-")
		if err != nil {
			return fail(err)
		}
		files := cleanup
		cleanup = func() { files(); os.RemoveAll(dir) }
		st, err := checkpoint.OpenStorage(vfs.Default, filepath.Join(dir, "checkpoints"))
		if err != nil {
			return fail(err)
		}
		job.cp = &exec.Checkpointing{Interval: cfg.Interval, Storage: st, FS: vfs.Default, WorkDir: filepath.Join(dir, "work"),
			Job: "bench_" + q, Retained: 2, Timeout: 10 * time.Minute, FirstID: 1, Log: io.Discard}
	}
	return job, bid.Options, sink, cleanup, nil
}
