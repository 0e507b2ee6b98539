package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/strandsql/strand/bench"
)

// benchCmd is strand bench: one subcommand per benchmark.
type benchCmd struct {
	Nexmark     nexmarkCmd     `cmd:"" help:"Run Nexmark queries into a blackhole sink and report events per CPU-second."`
	Checkpoints checkpointsCmd `cmd:"" help:"Compare Nexmark queries' events per CPU-second with exactly-once checkpoints against none."`
}

// checkpointsCmd is strand bench checkpoints: flags to a
// bench.CheckpointConfig.
type checkpointsCmd struct {
	Query       string `default:"q12e" help:"Queries to run: a comma-separated list of q0, q1, q2, q12, q12e, q7w, or all." placeholder:"LIST"`
	Events      int64  `default:"100000000" help:"Events of all types per run." placeholder:"N"`
	Parallelism int    `help:"Subtasks per operator (default: the number of CPUs)." placeholder:"N"`
	Intervals   string `default:"1s,10s" help:"Checkpoint intervals to compare against none, comma-separated." placeholder:"LIST"`
	Rounds      int    `default:"3" help:"Rounds: each runs without checkpoints, then at each interval." placeholder:"N"`
	Memory      *size  `help:"Managed memory of each run (memory.managed.size), e.g. 512mb (default: 256mb)." placeholder:"SIZE"`
	profileFlags
}

func (*checkpointsCmd) Help() string {
	return "Runs each query without checkpoints and with exactly-once checkpoints at each interval, alternating, for several rounds, and prints per interval the events per CPU-second of every round, their median, its change against no checkpoints, and the checkpoints' median and largest duration and median bytes written, and the windows spilled to the state store for want of memory in all rounds (a run that spilled is slower for it)."
}

func (c *checkpointsCmd) Run(std *stdio) error {
	cfg := bench.CheckpointConfig{Events: c.Events, Parallelism: c.Parallelism, Rounds: c.Rounds}
	if c.Memory != nil {
		cfg.Memory = c.Memory.n
	}
	if cfg.Events <= 0 || cfg.Parallelism < 0 || cfg.Rounds < 1 {
		fmt.Fprintln(std.errOut, "strand bench: --events and --rounds must be positive, --parallelism not negative")
		return exitStatus(2)
	}
	for _, s := range strings.Split(c.Intervals, ",") {
		d, err := parseFlagDuration(s)
		if err != nil {
			fmt.Fprintf(std.errOut, "strand bench: --intervals: %v\n", err)
			return exitStatus(2)
		}
		cfg.Intervals = append(cfg.Intervals, d)
	}
	var err error
	if cfg.Queries, err = bench.ParseQueries(c.Query); err != nil {
		fmt.Fprintf(std.errOut, "strand bench: %v\n", err)
		return exitStatus(2)
	}
	stopProfile, err := c.start()
	if err != nil {
		return err
	}
	defer stopProfile(std.errOut)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Checkpoints(ctx, cfg, std.out); err != nil {
		fmt.Fprintf(std.errOut, "strand bench: %v\n", err)
		return exitStatus(1)
	}
	return nil
}

// nexmarkCmd is strand bench nexmark: flags to a bench.Config.
type nexmarkCmd struct {
	Query              string    `default:"all" help:"Queries to run: a comma-separated list of q0, q1, q2, q3, q4, q5, q6, q7, q7w, q8, q9, q10, q11, q12, q12e, q13, q14, q15, q16, q17, q18, q19, q20, q21, q22, or all." placeholder:"LIST"`
	Events             int64     `help:"Events of all types per query (default: the DDL's events.num)." placeholder:"N"`
	Rate               int64     `help:"Events per second of event time (default: the DDL's first-event.rate, 10M)." placeholder:"N"`
	Parallelism        int       `help:"Subtasks per operator (default: the number of CPUs)." placeholder:"N"`
	CheckpointInterval *duration `name:"checkpoint-interval" help:"Take exactly-once checkpoints this often, e.g. 10s." placeholder:"DURATION"`
	Memory             *size     `help:"Managed memory of each run (memory.managed.size), e.g. 64mb (default: 256mb)." placeholder:"SIZE"`
	Baseline           bool      `help:"Also run the hand-written baseline loops and check the results against them."`
	Format             string    `default:"text" enum:"text,json" help:"text, or json (one object per query and line)."`
	profileFlags
}

func (*nexmarkCmd) Help() string {
	return "Prints, per query: events, wall seconds, CPU seconds of the process, events per CPU-second, peak RSS, checkpoints taken and windows spilled to the state store for want of memory (a run that spilled is not comparable with one that did not). --baseline also runs a hand-written Go loop over the same events, prints the ratio engine / baseline, and fails if the results differ. CPU profile samples are labeled run=engine|baseline and query=<q>."
}

func (c *nexmarkCmd) Run(std *stdio) error {
	cfg := bench.Config{Events: c.Events, Rate: c.Rate, Parallelism: c.Parallelism, Baseline: c.Baseline, JSON: c.Format == "json"}
	if c.CheckpointInterval != nil {
		cfg.Interval = c.CheckpointInterval.d
	}
	if c.Memory != nil {
		cfg.Memory = c.Memory.n
	}
	if cfg.Events < 0 || cfg.Rate < 0 || cfg.Parallelism < 0 {
		fmt.Fprintln(std.errOut, "strand bench: --events, --rate and --parallelism must not be negative")
		return exitStatus(2)
	}
	var err error
	if cfg.Queries, err = bench.ParseQueries(c.Query); err != nil {
		fmt.Fprintf(std.errOut, "strand bench: %v\n", err)
		return exitStatus(2)
	}
	stopProfile, err := c.start()
	if err != nil {
		return err
	}
	defer stopProfile(std.errOut)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Nexmark(ctx, cfg, std.out, std.errOut); err != nil {
		if !errors.Is(err, bench.ErrMismatch) { // a mismatch is reported as it is found
			fmt.Fprintf(std.errOut, "strand bench: %v\n", err)
		}
		return exitStatus(1)
	}
	return nil
}
