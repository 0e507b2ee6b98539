package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/chzyer/readline"
	"github.com/strandsql/strand/repl"
	"github.com/strandsql/strand/session"
)

// replCmd is `strand repl` and `strand` without arguments: statements
// from a terminal with prompts, or from a pipe without.
type replCmd struct {
	Init    string `short:"i" name:"init" help:"Run this file's statements, then prompt." placeholder:"FILE"`
	File    string `short:"f" name:"file" help:"Run this file's statements and exit." placeholder:"FILE"`
	History string `name:"history-file" help:"Where the history is kept (default: SET 'sql-client.history-file', else ~/.strand_history)." placeholder:"FILE"`
	sessionFlags
	StateDir string `name:"state-dir" default:".strand" help:"Directory for checkpoints and local state (default: ${default})." placeholder:"DIR"`
}

func (*replCmd) Help() string {
	return "On a terminal: a prompt, history (Ctrl-R searches it), Ctrl-C stops a query, Ctrl-D or QUIT; leaves; INSERTs run as background jobs (SHOW JOBS, STOP JOB). From a pipe: the statements run in order, as strand run runs a file, and strand exits non-zero if one fails."
}

func (c *replCmd) Run(std *stdio) error {
	stdin, stdout, stderr := std.in, std.out, std.errOut
	sess := session.New(stdout, stderr)
	// Each REPL's jobs are new jobs, as the SQL client's are: named after
	// the REPL's start, they never resume an earlier REPL's checkpoints
	// (SET 'execution.savepoint.path' restores a savepoint explicitly).
	sess.Durable = session.Durability{StateDir: c.StateDir, Name: "repl_" + time.Now().UTC().Format("20060102_150405")}
	if err := c.apply(sess, stderr); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := repl.New(ctx, sess, stdout, stderr)
	// The REPL has reported a script's errors itself.
	script := func(path string, run func(string, io.Reader) error) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if run(path, f) != nil {
			return exitStatus(1)
		}
		return nil
	}
	if c.Init != "" {
		if err := script(c.Init, r.Init); err != nil {
			return err
		}
	}
	if c.File != "" {
		return script(c.File, r.Script)
	}
	f, ok := stdin.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		if r.Script("<stdin>", stdin) != nil {
			return exitStatus(1)
		}
		return nil
	}
	return r.Interactive(c.History)
}
