package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/strandsql/strand/repl"
	"github.com/strandsql/strand/session"
)

// replCmd is `strand repl` and `strand` without arguments: statements
// from a terminal with prompts, or from a pipe without.
func replCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("strand repl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	initFile := fs.String("i", "", "run this file's statements, then prompt")
	scriptFile := fs.String("f", "", "run this file's statements and exit")
	history := fs.String("history-file", "", "where the history is kept (default: SET 'sql-client.history-file', else ~/.strand_history)")
	parallelism := fs.Int("parallelism", 0, "subtasks per operator (default: number of CPUs)")
	stateDir := fs.String("state-dir", ".strand", "directory for checkpoints and local state")
	var sets setFlags
	fs.Var(&sets, "set", "a session option key=value, as SET 'key' = 'value' (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "strand repl: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return 2
	}
	if *parallelism < 0 {
		fmt.Fprintf(stderr, "strand: --parallelism must be positive\n")
		return 2
	}
	sess := session.New(stdout, stderr)
	sess.Parallelism = *parallelism
	// Each REPL's jobs are new jobs, as the SQL client's are: named after
	// the REPL's start, they never resume an earlier REPL's checkpoints
	// (SET 'execution.savepoint.path' restores a savepoint explicitly).
	sess.Durable = session.Durability{StateDir: *stateDir, Name: "repl_" + time.Now().UTC().Format("20060102_150405")}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			fmt.Fprintf(stderr, "strand: --set %q: want key=value\n", kv)
			return 2
		}
		if err := sess.SetOption(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			fmt.Fprintf(stderr, "strand: --set %s: %v\n", kv, err)
			return 2
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := repl.New(ctx, sess, stdout, stderr)
	script := func(path string, run func(string, io.Reader) error) int {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "strand: %v\n", err)
			return 1
		}
		defer f.Close()
		if run(path, f) != nil {
			return 1
		}
		return 0
	}
	if *initFile != "" {
		if code := script(*initFile, r.Init); code != 0 {
			return code
		}
	}
	if *scriptFile != "" {
		return script(*scriptFile, r.Script)
	}
	f, ok := stdin.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		if r.Script("<stdin>", stdin) != nil {
			return 1
		}
		return 0
	}
	if err := r.Interactive(*history); err != nil {
		fmt.Fprintf(stderr, "strand: %v\n", err)
		return 1
	}
	return 0
}
