// Command strand runs streaming SQL: query files of Flink-style SQL,
// compiled into a parallel operator graph and run until their bounded input
// is consumed (or forever, for unbounded sources, until interrupted).
//
// This package only wires flags to the planner and runtime.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `strand: streaming SQL in one binary

Usage:
  strand [repl] [-i init.sql] [-f script.sql] [--history-file FILE] [--parallelism N] [--set key=value ...]
  strand run FILE.sql... [--parallelism N] [--set key=value ...]
             [--checkpoint-interval D] [--state-dir DIR] [--from-checkpoint PATH] [--fresh]
             [--from-savepoint DIR] [--allow-non-restored-state]
             [--http ADDR] [--http-allow-remote]
  strand explain FILE.sql... [--parallelism N] [--set key=value ...]
  strand jobs [--http ADDR]
  strand savepoint JOBID [--dir DIR] [--http ADDR]
  strand stop JOBID [--savepoint DIR] [--drain] [--http ADDR]
  strand check-savepoint SAVEPOINT FILE.sql... [--set key=value ...] [--allow-non-restored-state]
  strand bench nexmark [--query q0,q1,...|all] [--events N] [--baseline] [--format json] ...
  strand version

run executes every statement of the files in order, in one session (so a
file of shared DDL can come first); INSERT and SELECT
statements run as jobs until their bounded input is consumed and every
window has fired (Ctrl-C stops an unbounded job). explain prints the
logical and physical plans of the file's INSERT and SELECT statements.

strand without a command, or strand repl, reads statements from the
terminal (prompt, history in ~/.strand_history, Ctrl-C stops a query, Ctrl-D
or QUIT; exits; INSERTs run as background jobs) or, from a pipe, runs them
in order like run and exits non-zero if one fails.

With --http, run serves an HTTP API (jobs, savepoints, stop, metrics) on
ADDR, e.g. 127.0.0.1:8081 or localhost:0, and lists its jobs in the job
registry ($STRAND_HOME/jobs). The API has no authentication: a non-loopback
ADDR is refused without --http-allow-remote. jobs lists the jobs of every
registered run (or of the one at --http ADDR); savepoint writes a savepoint
of a running job, which keeps running, and prints its path; stop ends a job
with a savepoint (after firing every window with --drain) and prints its
path. JOBID may be a unique prefix of at least four characters.
check-savepoint verifies a savepoint and prints, for each INSERT and SELECT
of the files, which operator, source and sink state maps, which operators
start empty, and which state cannot be mapped and why; it exits non-zero
if any cannot, unless --allow-non-restored-state.
`

func main() {
	exec.Version = version
	args := os.Args[1:]
	switch {
	case len(args) == 0:
		os.Exit(replCmd(nil, os.Stdin, os.Stdout, os.Stderr))
	case args[0] == "repl":
		os.Exit(replCmd(args[1:], os.Stdin, os.Stdout, os.Stderr))
	case strings.HasPrefix(args[0], "-") && !isHelpOrVersion(args[0]):
		// strand --parallelism 2: the REPL's flags without its name
		os.Exit(replCmd(args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

func isHelpOrVersion(arg string) bool {
	switch arg {
	case "--version", "-version", "--help", "-h", "-help":
		return true
	}
	return false
}

// setFlags collects repeated --set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "strand %s\n", version)
		return 0
	case "help", "--help", "-h", "-help":
		fmt.Fprint(stdout, usage)
		return 0
	case "bench":
		return benchCmd(args, stdout, stderr)
	case "jobs", "savepoint", "stop":
		return jobControl(cmd, args, stdout, stderr)
	case "check-savepoint":
		return checkSavepoint(args, stdout, stderr)
	case "run", "explain":
	default:
		fmt.Fprintf(stderr, "strand: unknown command %q\n\n%s", cmd, usage)
		return 2
	}

	fs := flag.NewFlagSet("strand "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	parallelism := fs.Int("parallelism", 0, "subtasks per operator (default: number of CPUs)")
	var sets setFlags
	fs.Var(&sets, "set", "a session option key=value, as SET 'key' = 'value' (repeatable)")
	interval := fs.String("checkpoint-interval", "", "take a checkpoint this often, e.g. 2s (execution.checkpointing.interval)")
	stateDir := fs.String("state-dir", ".strand", "directory for checkpoints and local state")
	fromCheckpoint := fs.String("from-checkpoint", "", "restore this checkpoint (a chk-<n> directory) or fail")
	fromSavepoint := fs.String("from-savepoint", "", "restore this savepoint (a savepoint-... directory) or fail (execution.savepoint.path)")
	allowNonRestored := fs.Bool("allow-non-restored-state", false, "start even if some restored state cannot be mapped to the query's operators, dropping it")
	fresh := fs.Bool("fresh", false, "discard the job's checkpoints and what its unfinished run wrote, and start from the beginning")
	var httpAddr *string
	var allowRemote *bool
	if cmd == "run" {
		httpAddr = fs.String("http", "", "serve the HTTP API (jobs, savepoints, stop, metrics) on this address, e.g. 127.0.0.1:8081 or localhost:0; it has no authentication")
		allowRemote = fs.Bool("http-allow-remote", false, "let --http listen on an address other machines can reach")
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "strand %s: expected a query file\n\n%s", cmd, usage)
		return 2
	}
	srcs := make([]string, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "strand: %v\n", err)
			return 1
		}
		srcs[i] = string(b)
	}
	// Jobs are named after the last file: with shared DDL first, that is
	// the query's own file.
	last := files[len(files)-1]
	if *parallelism < 0 {
		fmt.Fprintf(stderr, "strand: --parallelism must be positive\n")
		return 2
	}

	sess := session.New(stdout, stderr)
	sess.Parallelism = *parallelism
	sess.Durable = session.Durability{StateDir: *stateDir, FromCheckpoint: *fromCheckpoint, Fresh: *fresh,
		Name: strings.TrimSuffix(filepath.Base(last), filepath.Ext(last)), AllowNonRestored: *allowNonRestored, FromSavepoint: *fromSavepoint}
	if *interval != "" {
		sess.Config[session.KeyCheckpointInterval] = *interval
	}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "strand: --set %q: want key=value\n", kv)
			return 2
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if err := sess.SetOption(k, v); err != nil {
			fmt.Fprintf(stderr, "strand: --set %s=%s: %v\n", k, v, err)
			return 2
		}
	}

	if httpAddr != nil && *httpAddr != "" {
		srv, err := serveHTTP(sess, *httpAddr, *allowRemote, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "strand: %v\n", err)
			return 1
		}
		// Close waits for the outcome of a stop to be fetched.
		defer srv.Close(5 * time.Second)
	}

	ctx, stop := withSignals()
	defer stop()

	// The files run in order in one session: tables declared by one are
	// visible to the next.
	for i, src := range srcs {
		var err error
		if cmd == "explain" {
			err = explain(ctx, sess, src, stdout)
		} else {
			sess.File = files[i]
			err = sess.ExecScript(ctx, src)
		}
		if errors.Is(err, exec.ErrCanceled) {
			fmt.Fprintln(stderr, "strand: stopped; output not committed was discarded")
			var sig stopped
			if errors.As(context.Cause(ctx), &sig) {
				return 128 + int(sig.sig)
			}
			return 130
		}
		if err != nil {
			fmt.Fprintln(stderr, planner.FormatError(files[i], src, err))
			return 1
		}
	}
	return 0
}

// stopped is the cause of a run stopped by a signal.
type stopped struct{ sig syscall.Signal }

func (s stopped) Error() string { return s.sig.String() + " received" }

// withSignals returns a context canceled by SIGINT or SIGTERM, with the
// signal as its cause: the exit status is 128 plus the signal's number,
// as a shell reports a process the signal killed (130 for SIGINT, 143 for
// SIGTERM).
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

// explain executes the file's DDL and SET statements and prints the plans
// of its queries instead of running them.
func explain(ctx context.Context, sess *session.Session, src string, out io.Writer) error {
	stmts, err := parser.Parse(src)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		switch st.(type) {
		case *parser.Insert, parser.Query:
			e, err := sess.Explain(st)
			if err != nil {
				return err
			}
			fmt.Fprintln(out, e)
		default:
			if err := sess.Exec(ctx, st); err != nil {
				return err
			}
		}
	}
	return nil
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

// parseInterleaved parses flags that may come before or after the
// positional arguments, as in "strand run q.sql --parallelism 2".
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
