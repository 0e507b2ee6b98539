package repl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/chzyer/readline"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
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
	jobs context.Context
	res  *result
	// busy is set while a statement runs; leaving once a script was
	// interrupted.
	busy, leaving atomic.Bool
	// term says that output goes to a terminal: status lines and the
	// table view redrawn in place; colour adds colours to it. height is
	// the terminal's.
	term, colour bool
	height       int
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
	r := &REPL{sess: sess, out: out, err: errw, jobs: ctx, height: 24}
	sess.HelpKeys = helpKeys
	sess.Results = func(res session.Result) exec.Sink {
		if r.res != nil {
			// The SELECT before this one in a SOURCE'd file has ended.
			r.res.end(false)
		}
		r.res = newResult(r.out, res, r.term, r.height)
		return r.res
	}
	return r
}

// Script runs the statements read from in, named file in errors, without
// prompts, stopping at the first that fails, as `strand run` does; INSERT
// jobs run to their end one after the other. It returns that statement's
// error.
//
// Ctrl-C or SIGTERM ends the script: the jobs running then, and those an
// init file left running, are stopped as leave says, and so are those
// still running when the script ends.
func (r *REPL) Script(file string, in io.Reader) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-sigs:
			// A second signal ends the process at once, as by default.
			signal.Stop(sigs)
			r.leaving.Store(true)
			r.stopJobs()
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(done)
		<-stopped
		r.stopJobs()
	}()
	return r.script(file, in)
}

// Init runs the statements of an init file as the prompt would: INSERTs
// start as background jobs, so that one over an unbounded source does not
// keep the prompt from coming.
func (r *REPL) Init(file string, in io.Reader) error {
	r.sess.Detach = true
	defer func() { r.sess.Detach = false }()
	return r.script(file, in)
}

func (r *REPL) script(file string, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	in2 := input{script: true}
	for sc.Scan() {
		for _, src := range in2.add(sc.Text()) {
			if r.leaving.Load() {
				return errLeft
			}
			if err := r.exec(file, src); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	if !in2.complete() && !r.leaving.Load() {
		return r.exec(file, in2.before()+in2.text[in2.done:])
	}
	if r.leaving.Load() {
		return errLeft
	}
	return nil
}

// errLeft ends a script that was interrupted.
var errLeft = errors.New("interrupted")

// stopJobs stops the running jobs of a REPL that ends without a terminal
// to ask on: each with a savepoint into 'state.savepoints.dir' when it is
// set, else canceled (a later run resumes from its last checkpoint), and
// says which on the error output.
func (r *REPL) stopJobs() {
	dir, withSavepoint := r.sess.Value(session.KeySavepointDir)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for _, j := range r.running() {
		if withSavepoint {
			path, err := j.Stop(context.Background(), dir, false)
			if err == nil {
				fmt.Fprintf(r.err, "[INFO] Savepoint written to %s; job %s stopped.\n", path, j.ID)
				continue
			}
			r.errorf("stopping job %s with a savepoint: %v", j.ID, err)
		}
		if j.Cancel() == nil {
			fmt.Fprintf(r.err, "[INFO] Job %s canceled (no savepoint: SET 'state.savepoints.dir' to stop jobs with one when the REPL ends).\n", j.ID)
		}
	}
	r.sess.Wait()
}

// running returns the session's running jobs.
func (r *REPL) running() []*session.Job {
	var running []*session.Job
	for _, j := range r.sess.Jobs.List() {
		if st, _, _ := j.Status(); st == exec.Running {
			running = append(running, j)
		}
	}
	return running
}

// Interactive reads statements on a terminal with line editing and
// history in historyFile (none if empty) until Ctrl-D, QUIT; or EXIT;.
// INSERTs run as background jobs; leaving with jobs running asks first.
func (r *REPL) Interactive(historyFile string) error {
	if historyFile == "" {
		historyFile = r.historyFile()
	}
	var in input
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 Prompt,
		HistoryFile:            historyFile,
		DisableAutoSaveHistory: true,
		HistorySearchFold:      true,
		InterruptPrompt:        "^C",
		AutoComplete:           &completer{sess: r.sess, in: &in},
	})
	if err != nil {
		return fmt.Errorf("starting the terminal: %w", err)
	}
	defer rl.Close()
	r.term = true
	r.colour = os.Getenv("NO_COLOR") == ""
	if f, ok := r.out.(*os.File); ok {
		if _, h, err := readline.GetSize(int(f.Fd())); err == nil && h > 0 {
			r.height = h
		}
	}
	// While a statement runs its output goes straight to the terminal;
	// at the prompt, output of background jobs goes through readline,
	// which redraws the prompt and the line being typed below it.
	r.out = &promptWriter{busy: &r.busy, raw: r.out, prompt: rl.Stdout()}
	r.err = &promptWriter{busy: &r.busy, raw: r.err, prompt: rl.Stderr()}
	if r.colour {
		r.out, r.err = tags{r.out}, tags{r.err}
	}
	r.sess.Out, r.sess.Log = r.out, r.err
	key := r.sess.Option(session.KeyHistoryFile)
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
	for {
		// SET 'sql-client.history-file' takes effect at once.
		if h := r.sess.Option(session.KeyHistoryFile); h != key {
			key = h
			rl.SetHistoryPath(expandHome(h))
		}
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
	running := r.running()
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
			err = fmt.Errorf("%w: %v", session.ErrInternal, p)
			r.errorf("%v", err)
		}
	}()
	ctx := r.jobs
	// At the prompt Ctrl-C stops the running statement; a script's
	// signals are Script's.
	if r.term && (!isInsert(src) || !r.sess.Detach) {
		// Ctrl-C stops this statement, not the REPL's background jobs.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(r.jobs, os.Interrupt)
		defer stop()
	}
	r.res = nil
	r.busy.Store(true)
	defer r.busy.Store(false)
	err = r.sess.ExecScript(ctx, src)
	stopped := errors.Is(err, exec.ErrCanceled)
	if r.res != nil {
		r.res.end(stopped)
		r.res = nil
	}
	if stopped && r.leaving.Load() {
		return errLeft // stopJobs said why
	}
	if stopped && r.sess.Detach {
		return nil
	}
	if err != nil {
		r.errorf("%s", planner.FormatError(file, src, err))
	}
	return err
}

// historyFile is where the history is kept when --history-file is not
// given: SET 'sql-client.history-file' (in an init file or --set), else
// its default, ~/.strand_history.
func (r *REPL) historyFile() string { return expandHome(r.sess.Option(session.KeyHistoryFile)) }

// expandHome replaces a leading ~/ by the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
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
	switch stmts[0].(type) {
	case *parser.Insert, *parser.StatementSet:
		return true
	}
	return false
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
