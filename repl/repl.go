package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	"github.com/chzyer/readline"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
	"github.com/strandsql/strand/types"
)

// Prompts of a new statement and of its continuation lines.
const (
	Prompt       = "strand> "
	Continuation = "     -> "
)

// errQuit is QUIT; or EXIT;.
var errQuit = errors.New("quit")

// REPL runs statements typed or piped in against one session.
type REPL struct {
	sess     *session.Session
	out, err io.Writer
	// jobs is the context of detached jobs: canceled when the REPL ends.
	jobs  context.Context
	table *tableau
	// busy is set while a statement runs.
	busy atomic.Bool
}

// promptWriter writes to raw while a statement runs and through readline
// (prompt) otherwise.
type promptWriter struct {
	busy        *atomic.Bool
	raw, prompt io.Writer
}

func (w *promptWriter) Write(b []byte) (int, error) {
	if w.busy.Load() {
		return w.raw.Write(b)
	}
	return w.prompt.Write(b)
}

// New returns a REPL over sess, which it sets up to print SELECT results
// as tableau tables on out; errors go to errw.
func New(ctx context.Context, sess *session.Session, out, errw io.Writer) *REPL {
	r := &REPL{sess: sess, out: out, err: errw, jobs: ctx}
	sess.Results = func(s types.Schema, changelog bool) exec.Sink {
		r.table = newTableau(r.out, s, changelog)
		return r.table
	}
	return r
}

// Script runs the statements read from in, named file in errors, without
// prompts, stopping at the first that fails, as `strand run` does; INSERT
// jobs run to their end one after the other. It returns that statement's
// error.
func (r *REPL) Script(file string, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	in2 := input{script: true}
	for sc.Scan() {
		for _, src := range in2.add(sc.Text()) {
			if err := r.exec(file, src); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	if !in2.complete() {
		return r.exec(file, in2.before()+in2.text[in2.done:])
	}
	return nil
}

// Interactive reads statements on a terminal with line editing and
// history in historyFile (none if empty) until Ctrl-D, QUIT; or EXIT;.
// INSERTs run as background jobs; leaving with jobs running asks first.
func (r *REPL) Interactive(historyFile string) error {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		HistoryFile:            historyFile,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		InterruptPrompt:        "^C",
	})
	if err != nil {
		return fmt.Errorf("starting the terminal: %w", err)
	}
	defer rl.Close()
	// While a statement runs its output goes straight to the terminal;
	// at the prompt, output of background jobs goes through readline,
	// which redraws the prompt and the line being typed below it.
	r.out = &promptWriter{busy: &r.busy, raw: r.out, prompt: rl.Stdout()}
	r.err = &promptWriter{busy: &r.busy, raw: r.err, prompt: rl.Stderr()}
	r.sess.Out, r.sess.Log = r.out, r.err
	r.sess.Detach = true
	// Ctrl-C while a statement runs stops it (exec's context); at any
	// other moment it must not end the REPL.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer func() { signal.Stop(sigs); close(sigs) }()
	go func() {
		for range sigs {
		}
	}()
	var in input
	for {
		if in.text == "" {
			rl.SetPrompt(Prompt)
		} else {
			rl.SetPrompt(Continuation)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			in = input{}
			continue
		}
		if errors.Is(err, io.EOF) {
			if r.leave(rl) {
				return nil
			}
			continue
		}
		if err != nil {
			return err
		}
		text := in.text + line
		stmts := in.add(line)
		if len(stmts) > 0 {
			// A statement of several lines is one entry, on one line.
			rl.SaveHistory(strings.Join(strings.Split(strings.TrimSpace(text), "\n"), " "))
		}
		for _, src := range stmts {
			if err := r.exec("", src); errors.Is(err, errQuit) {
				if r.leave(rl) {
					return nil
				}
				in = input{}
				break
			}
		}
	}
}

// leave says whether the REPL may end: with jobs running it asks, and
// cancels them if the user agrees.
func (r *REPL) leave(rl *readline.Instance) bool {
	var running []*session.Job
	for _, j := range r.sess.Jobs.List() {
		if st, _, _ := j.Status(); st == exec.Running {
			running = append(running, j)
		}
	}
	if len(running) == 0 {
		return true
	}
	rl.SetPrompt(fmt.Sprintf("%d job(s) still running; cancel them and quit? [y/N] ", len(running)))
	answer, err := rl.Readline()
	if err != nil || !strings.EqualFold(strings.TrimSpace(answer), "y") {
		return false
	}
	for _, j := range running {
		_ = j.Cancel()
	}
	r.sess.Wait()
	return true
}

// exec runs one statement, src (its line and column as in the input),
// and prints its error; a panic is reported as an internal error.
func (r *REPL) exec(file, src string) (err error) {
	if isQuit(src) {
		return errQuit
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (a bug in strand): %v", p)
			fmt.Fprintf(r.err, "[ERROR] %v\n", err)
		}
	}()
	ctx := r.jobs
	if !isInsert(src) || !r.sess.Detach {
		// Ctrl-C stops this statement, not the REPL's background jobs.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(r.jobs, os.Interrupt)
		defer stop()
	}
	r.table = nil
	r.busy.Store(true)
	defer r.busy.Store(false)
	err = r.sess.ExecScript(ctx, src)
	stopped := errors.Is(err, exec.ErrCanceled)
	if r.table != nil {
		r.table.end(stopped)
		r.table = nil
	}
	if stopped {
		if r.sess.Detach {
			return nil
		}
	}
	if err != nil {
		fmt.Fprintf(r.err, "[ERROR] %s\n", planner.FormatError(file, src, err))
	}
	return err
}

func isQuit(src string) bool {
	s := strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(src), ";")))
	return s == "QUIT" || s == "EXIT"
}

func isInsert(src string) bool {
	stmts, err := parser.Parse(src)
	if err != nil || len(stmts) != 1 {
		return false
	}
	_, ok := stmts[0].(*parser.Insert)
	return ok
}

// input is the text typed since the last complete input, of which the
// first done bytes have been run. A script's input counts its lines, which
// come before text; a terminal's starts at line 1 with each new input.
type input struct {
	text   string
	done   int
	script bool
	lines  int
}

// before stands for the input before the next statement: blanks, and the
// line breaks.
func (in *input) before() string {
	return strings.Repeat("\n", in.lines) + blank(in.text[:in.done])
}

// add appends line and returns the statements it completes, each behind
// blanks standing for the text before it, so that an error's line and
// column are those of the input.
func (in *input) add(line string) []string {
	in.text += line + "\n"
	stmts, _, complete := Split(in.text[in.done:])
	var out []string
	for _, s := range stmts {
		if strings.TrimSpace(strings.TrimSuffix(s, ";")) != "" {
			out = append(out, in.before()+s)
		}
		in.done += len(s)
	}
	if complete {
		if in.script {
			in.lines += strings.Count(in.text, "\n")
		}
		in.text, in.done = "", 0
	}
	return out
}

func (in *input) complete() bool {
	_, _, c := Split(in.text[in.done:])
	return c
}

// blank is s with every character but line breaks made a space.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}
