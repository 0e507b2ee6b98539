// Command strand runs streaming SQL: query files of Flink-style SQL,
// compiled into a parallel operator graph and run until their bounded input
// is consumed (or forever, for unbounded sources, until interrupted), or
// statements typed at its REPL.
//
// This package only wires the command line to the session, the REPL and
// the benchmark harness. The command line is github.com/alecthomas/kong's:
// each subcommand is a struct whose tags declare its flags, so that
// `strand <cmd> --help` shows that command's flags only, and an unknown
// flag or command is answered with the closest known one.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/session"
)

// cli is strand's command line: one field per subcommand.
type cli struct {
	Repl           replCmd      `cmd:"" default:"withargs" help:"Read statements from the terminal, with prompts and history, or from a pipe (the default command)."`
	Run            runCmd       `cmd:"" help:"Run the statements of query files in order, in one session."`
	Explain        explainCmd   `cmd:"" help:"Print the plans of the INSERT and SELECT statements of query files."`
	Jobs           jobsCmd      `cmd:"" help:"List the jobs of the running strand processes."`
	Savepoint      savepointCmd `cmd:"" help:"Write a savepoint of a running job, which keeps running."`
	Stop           stopCmd      `cmd:"" help:"Stop a running job with a savepoint."`
	CheckSavepoint checkCmd     `cmd:"" name:"check-savepoint" help:"Check which state of a savepoint maps to the queries of files."`
	Bench          benchCmd     `cmd:"" help:"Run benchmarks."`
	Version        versionCmd   `cmd:"" help:"Print strand's version and build."`
}

// stdio is what a command reads and writes; commands get it bound to
// their Run method.
type stdio struct {
	in          io.Reader
	out, errOut io.Writer
}

// exitStatus is an error that only carries the exit status: the command
// has already said what went wrong.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	exec.Version = moduleVersion()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args and runs the command they name. Usage errors exit 2.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "-version"):
		args = []string{"version"}
	case len(args) > 0 && args[0] == "help": // strand help [cmd]
		args = append(args[1:], "--help")
	}
	var c cli
	// kong exits after --help; the panic carries the status here, so that
	// run returns instead (and tests can call it).
	defer func() {
		if r := recover(); r != nil {
			s, ok := r.(exitStatus)
			if !ok {
				panic(r)
			}
			code = int(s)
		}
	}()
	p, err := kong.New(&c,
		kong.Name("strand"),
		kong.Description("Streaming SQL in one binary: Flink SQL over files, generators and Nexmark, with exactly-once checkpoints and savepoints."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(exitStatus(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
	)
	if err != nil {
		panic(err) // the struct tags are wrong: a bug
	}
	if err := unknownCommand(p, args); err != nil {
		fmt.Fprintf(stderr, "strand: %v\nRun strand --help for the commands.\n", err)
		return 2
	}
	ctx, err := p.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "strand: %v\n", err)
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() != nil {
			fmt.Fprintf(stderr, "Run strand %s --help for its flags.\n", pe.Context.Selected().Path())
		} else {
			fmt.Fprintln(stderr, "Run strand --help for the commands.")
		}
		return 2
	}
	err = ctx.Run(&stdio{in: stdin, out: stdout, errOut: stderr})
	var s exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &s):
		return int(s)
	default:
		fmt.Fprintf(stderr, "strand: %v\n", err)
		return 1
	}
}

// unknownCommand refuses a first argument that names no command. kong
// would hand it to the default command (the REPL takes no arguments) and
// say only that it is unexpected; a user who typed `strand rn q.sql` wants
// to hear "did you mean run".
func unknownCommand(p *kong.Kong, args []string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil
	}
	var names []string
	for _, n := range p.Model.Children {
		names = append(names, n.Name)
		names = append(names, n.Aliases...)
	}
	if slices.Contains(names, args[0]) {
		return nil
	}
	var close []string
	for _, n := range names {
		if strings.HasPrefix(n, args[0]) || session.EditDistance(n, args[0]) <= 2 {
			close = append(close, fmt.Sprintf("%q", n))
		}
	}
	switch len(close) {
	case 0:
		return fmt.Errorf("unknown command %q", args[0])
	case 1:
		return fmt.Errorf("unknown command %q, did you mean %s?", args[0], close[0])
	default:
		return fmt.Errorf("unknown command %q, did you mean one of %s?", args[0], strings.Join(close, ", "))
	}
}
