package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// runCmd is strand run.
type runCmd struct {
	Files []string `arg:"" name:"file" help:"Query files, run in order in one session (shared DDL first)."`
	sessionFlags
	CheckpointInterval *duration `name:"checkpoint-interval" help:"Take an exactly-once checkpoint this often, e.g. 2s or 1min (execution.checkpointing.interval)." placeholder:"DURATION"`
	StateDir           string    `name:"state-dir" default:".strand" help:"Directory for checkpoints and local state (default: ${default})." placeholder:"DIR"`
	FromCheckpoint     string    `name:"from-checkpoint" help:"Restore this checkpoint (a chk-<n> directory) or fail." placeholder:"PATH"`
	FromSavepoint      string    `name:"from-savepoint" help:"Restore this savepoint (a savepoint-... directory) or fail (execution.savepoint.path)." placeholder:"DIR"`
	AllowNonRestored   bool      `name:"allow-non-restored-state" help:"Start even if some restored state cannot be mapped to the query's operators, dropping it."`
	Fresh              bool      `help:"Discard the job's checkpoints and what its unfinished run wrote, and start from the beginning."`
	HTTP               string    `name:"http" help:"Serve the HTTP API (jobs, savepoints, stop, metrics) on this address, e.g. 127.0.0.1:8081 or localhost:0. It has no authentication." placeholder:"ADDR"`
	HTTPAllowRemote    bool      `name:"http-allow-remote" help:"Let --http listen on an address other machines can reach."`
	memberFlags
	profileFlags
}

// memberFlags make the process one of several running the query.
type memberFlags struct {
	Members int `name:"members" default:"1" help:"Run the query as one of this many strand processes (members), each reading its share of the Kafka partitions; keyed window aggregates shuffle through a repartition topic. Runs need a checkpoint interval." placeholder:"N"`
	Member  int `name:"member" default:"0" help:"This process's index among --members, from 0." placeholder:"I"`
}

// members checks the flags and returns the share they give.
func (f memberFlags) members(stderr io.Writer) (exec.Members, error) {
	if f.Members < 1 || f.Member < 0 || f.Member >= f.Members {
		fmt.Fprintf(stderr, "strand: --member must be from 0 to --members minus 1 (--members %d, --member %d)\n", f.Members, f.Member)
		return exec.Members{}, exitStatus(2)
	}
	return exec.Members{Index: f.Member, Count: f.Members}, nil
}

func (*runCmd) Help() string {
	return `INSERT and SELECT statements run as jobs until their bounded input is consumed and every window has fired; Ctrl-C stops an unbounded job (exit status 130, 143 for SIGTERM). A SELECT's rows are printed as the print sink prints them, after a line of column names. Jobs are named after the last file.

With --http, run serves an HTTP API on ADDR and lists its jobs in the job registry ($STRAND_HOME/jobs), where strand jobs, savepoint and stop find them. A non-loopback ADDR is refused without --http-allow-remote.`
}

func (c *runCmd) Run(std *stdio) error {
	members, err := c.members(std.errOut)
	if err != nil {
		return err
	}
	srcs, err := readFiles(c.Files, std.errOut)
	if err != nil {
		return err
	}
	// On a terminal, stderr's last line shows the running job's progress;
	// what strand writes there and to stdout, if stdout is a terminal too,
	// goes through the status line, which clears itself first.
	st := newStatusLine(std.errOut)
	if st != nil {
		wrapped := *std
		wrapped.errOut = st.wrap(std.errOut)
		if newStatusLine(std.out) != nil {
			wrapped.out = st.wrap(std.out)
		}
		std = &wrapped
	}
	// Jobs are named after the last file: with shared DDL first, that is
	// the query's own file.
	last := c.Files[len(c.Files)-1]
	sess := session.New(std.out, std.errOut)
	sess.Results = func(r session.Result) exec.Sink { return connector.NewResults(std.out, r.Schema) }
	sess.Durable = session.Durability{StateDir: c.StateDir, FromCheckpoint: c.FromCheckpoint, Fresh: c.Fresh,
		Name: strings.TrimSuffix(filepath.Base(last), filepath.Ext(last)), AllowNonRestored: c.AllowNonRestored, FromSavepoint: c.FromSavepoint,
		Members: members}
	if c.CheckpointInterval != nil {
		sess.Config[session.KeyCheckpointInterval] = c.CheckpointInterval.text
	}
	if err := c.apply(sess, std.errOut); err != nil {
		return err
	}
	if st != nil {
		st.start(&sess.Jobs)
		defer st.close()
	}
	if c.HTTP != "" {
		srv, err := serveHTTP(sess, c.HTTP, c.HTTPAllowRemote, std.errOut)
		if err != nil {
			return err
		}
		// Close waits for the outcome of a stop to be fetched.
		defer srv.Close(5 * time.Second)
	}
	stopProfile, err := c.start()
	if err != nil {
		return err
	}
	defer stopProfile(std.errOut)

	ctx, stop := withSignals()
	defer stop()
	// The files run in order in one session: tables declared by one are
	// visible to the next.
	for i, src := range srcs {
		sess.File = c.Files[i]
		if err := sess.ExecScript(ctx, src); err != nil {
			return runError(ctx, c.Files[i], src, err, std.errOut)
		}
	}
	return nil
}

// explainCmd is strand explain.
type explainCmd struct {
	Files []string `arg:"" name:"file" help:"Query files; their DDL and SET statements run, their INSERT and SELECT statements are explained."`
	sessionFlags
	memberFlags
}

func (*explainCmd) Help() string {
	return "Prints the optimized logical plan and the physical plan (operators, exchanges, parallelism) of each INSERT and SELECT, without running them."
}

func (c *explainCmd) Run(std *stdio) error {
	members, err := c.members(std.errOut)
	if err != nil {
		return err
	}
	srcs, err := readFiles(c.Files, std.errOut)
	if err != nil {
		return err
	}
	sess := session.New(std.out, std.errOut)
	// Named as run names them: a repartition topic's name has the job's.
	last := c.Files[len(c.Files)-1]
	sess.Durable.Name, sess.Durable.Members = strings.TrimSuffix(filepath.Base(last), filepath.Ext(last)), members
	if err := c.apply(sess, std.errOut); err != nil {
		return err
	}
	files := make([][]parser.Statement, len(srcs))
	queries := 0
	for i, src := range srcs {
		if files[i], err = parser.Parse(src); err != nil {
			fmt.Fprintln(std.errOut, planner.FormatError(c.Files[i], src, err))
			return exitStatus(1)
		}
		for _, st := range files[i] {
			if isQuery(st) {
				queries++
			}
		}
	}
	ctx, stop := withSignals()
	defer stop()
	n := 0
	for i, stmts := range files {
		for _, st := range stmts {
			if !isQuery(st) {
				if err := sess.Exec(ctx, st); err != nil {
					return runError(ctx, c.Files[i], srcs[i], err, std.errOut)
				}
				continue
			}
			e, err := sess.Explain(st)
			if err != nil {
				return runError(ctx, c.Files[i], srcs[i], err, std.errOut)
			}
			// Several plans are told apart by their statement's line.
			if n++; n > 1 {
				fmt.Fprintln(std.out)
			}
			if queries > 1 {
				fmt.Fprintf(std.out, "-- %s:%s: %s\n", c.Files[i], st.Pos(), firstLine(st.String()))
			}
			fmt.Fprint(std.out, e)
		}
	}
	return nil
}

func isQuery(st parser.Statement) bool {
	switch st.(type) {
	case *parser.Insert, *parser.StatementSet, parser.Query:
		return true
	}
	return false
}

func readFiles(files []string, stderr io.Writer) ([]string, error) {
	srcs := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "strand: %v\n", err)
			return nil, exitStatus(1)
		}
		srcs[i] = string(b)
	}
	return srcs, nil
}

// runError reports err, from the statements of file: a stop by a signal
// exits 128 plus the signal's number, as a shell reports a process the
// signal killed (130 for SIGINT, 143 for SIGTERM); any other error is
// shown with its position and exits 1.
func runError(ctx context.Context, file, src string, err error, stderr io.Writer) error {
	if errors.Is(err, exec.ErrCanceled) {
		fmt.Fprintln(stderr, "strand: stopped; output not committed was discarded")
		var sig stopped
		if errors.As(context.Cause(ctx), &sig) {
			return exitStatus(128 + int(sig.sig))
		}
		return exitStatus(130)
	}
	fmt.Fprintln(stderr, planner.FormatError(file, src, err))
	return exitStatus(1)
}

// stopped is the cause of a run stopped by a signal.
type stopped struct{ sig syscall.Signal }

func (s stopped) Error() string { return s.sig.String() + " received" }

// withSignals returns a context canceled by SIGINT or SIGTERM, with the
// signal as its cause.
func withSignals() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			cancel(stopped{sig: s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// serveHTTP serves the session's jobs on addr and registers each job, as
// it runs, in the user's job registry.
func serveHTTP(sess *session.Session, addr string, allowRemote bool, stderr io.Writer) (*session.Server, error) {
	reg, err := session.DefaultRegistry()
	if err != nil {
		return nil, err
	}
	l, err := session.Listen(addr, allowRemote)
	if err != nil {
		return nil, err
	}
	srv := session.NewServer(&sess.Jobs)
	srv.Serve(l)
	bound := l.Addr().String()
	fmt.Fprintf(stderr, "http serving on %s\n", bound)
	reg.Track(&sess.Jobs, bound, stderr)
	return srv, nil
}
