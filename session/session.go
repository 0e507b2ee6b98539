package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/strandsql/strand/checkpoint"
	"github.com/strandsql/strand/planner"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Session keys strand reads from SET (config_keys.go lists them all).
const (
	KeyParallelism = "parallelism.default"
	KeyBatchSize   = "strand.batch-size"
	KeyMemory      = "memory.managed.size"
)

// Session runs statements against a catalog, as a SQL client does.
type Session struct {
	Catalog *planner.Catalog
	// Config holds SET values.
	Config map[string]string
	// Parallelism is the default parallelism (SET 'parallelism.default'
	// overrides it); 0 means the number of CPUs.
	Parallelism int
	// Out receives query results and the output of SHOW, DESCRIBE and
	// EXPLAIN. Log receives job progress and summaries.
	Out, Log io.Writer
	// Now is the clock for CURRENT_TIMESTAMP; nil means the wall clock.
	Now func() int64
	// LastMetrics are the counters of the last job run.
	LastMetrics *exec.Metrics
	// Durable places checkpoints and says how jobs start.
	Durable Durability
	// Jobs are the session's jobs, running and ended.
	Jobs Jobs
	// File names the file ExecScript runs, for errors that point into a
	// table declared by an earlier file.
	File string
	// jobs counts the jobs the session has run, to name them.
	jobs int
	// sourcing counts the SOURCE statements running, one within another.
	sourcing int

	// Detach makes Exec return from an INSERT once its job has started,
	// printing "[INFO] Job <id> submitted." on Out, as the REPL needs;
	// Wait waits for such jobs. Without it Exec runs every job to its end.
	// With it, a SELECT's job is not logged on Log: its results show it.
	Detach bool
	// Results, if set, receives a SELECT's rows instead of the print sink
	// on Out; it is called when the job is compiled, with s's mutex held.
	Results func(Result) exec.Sink
	// HelpKeys follows the statements in HELP's text: the REPL's keys.
	HelpKeys string

	// mu guards the session's mutable state (Config, Catalog, Durable,
	// LastMetrics, the job counter) while a statement is executed or a job
	// planned and started, never while a job runs: see doc.go.
	mu       sync.Mutex
	detached sync.WaitGroup
}

// NewSession returns a session with an empty catalog.
func New(out, log io.Writer) *Session {
	return &Session{Catalog: planner.NewCatalog(), Config: map[string]string{}, Out: out, Log: log}
}

// ExecScript parses src and executes its statements in order, stopping at
// the first error. The error is returned unformatted; planner.FormatError renders
// it with file, position and caret.
func (s *Session) ExecScript(ctx context.Context, src string) error {
	stmts, err := parser.Parse(src)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := s.execIn(ctx, st, src); err != nil {
			return err
		}
	}
	return nil
}

// Exec executes one statement. It may be called from several goroutines:
// SHOW JOBS and STOP JOB run at once, an INSERT or SELECT holds the
// session only while its job is planned and started, and any other
// statement holds it while it runs.
func (s *Session) Exec(ctx context.Context, st parser.Statement) error {
	return s.execIn(ctx, st, "")
}

// execIn executes st, a statement of src (kept with the tables it
// declares), if known.
func (s *Session) execIn(ctx context.Context, st parser.Statement, src string) error {
	switch st := st.(type) {
	case *parser.ShowJobs:
		return s.showJobs()
	case *parser.StopJob:
		return s.stopJob(ctx, st)
	case *parser.Insert, *parser.StatementSet, parser.Query:
		return s.run(ctx, st)
	case *parser.Source:
		return s.source(ctx, st)
	case *parser.Explain:
		if err := planner.CheckExplainDetails(st.Details); err != nil {
			return err
		}
		e, err := s.Explain(st.Statement)
		if err != nil {
			return err
		}
		_, err = io.WriteString(s.Out, e.String())
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exec(st, src)
}

// Wait waits for the jobs that Exec started detached to end.
func (s *Session) Wait() { s.detached.Wait() }

// exec executes a statement of src that runs no job, with s.mu held.
func (s *Session) exec(st parser.Statement, src string) error {
	switch st := st.(type) {
	case *parser.CreateTable:
		return s.Catalog.CreateTable(st, src, s.File)
	case *parser.CreateView:
		return s.Catalog.CreateView(st)
	case *parser.DropTable:
		return s.Catalog.Drop(st.Name, st.IfExists, false)
	case *parser.DropView:
		return s.Catalog.Drop(st.Name, st.IfExists, true)
	case *parser.CreateFunction:
		return s.Catalog.CreateFunction(st)
	case *parser.DropFunction:
		return s.Catalog.DropFunction(st)
	case *parser.Set:
		return s.set(st)
	case *parser.Reset:
		if st.Key == nil {
			s.Config = map[string]string{}
			return nil
		}
		// A misspelt key would reset nothing and say nothing, as SET
		// refuses it.
		if _, err := checkKey(st.Key.Value); err != nil {
			return planner.Errorf(st.Key.Start, planner.ErrOption, "%v", err)
		}
		delete(s.Config, st.Key.Value)
		return nil
	case *parser.ShowTables:
		return s.list("table name", s.Catalog.Tables())
	case *parser.ShowFunctions:
		return s.list("function name", s.Catalog.Functions())
	case *parser.ShowCreate:
		text, err := s.Catalog.ShowCreate(st)
		if err != nil {
			return err
		}
		_, err = io.WriteString(s.Out, text)
		return err
	case *parser.Help:
		_, err := io.WriteString(s.Out, Help+s.HelpKeys)
		return err
	case *parser.ShowViews:
		return s.list("view name", s.Catalog.Views())
	case *parser.Describe:
		header, rows, err := s.Catalog.Describe(st)
		if err != nil {
			return err
		}
		return s.table(header, rows)
	}
	return planner.Errorf(st.Pos(), planner.ErrUnsupported, "statement is not supported: %s", st)
}

func (s *Session) set(st *parser.Set) error {
	if st.Option == nil {
		return s.showSettings()
	}
	if atValue, err := s.setOption(st.Option.Key, st.Option.Value); err != nil {
		pos := st.Option.Start
		if atValue {
			pos = st.Option.ValuePos
		}
		return planner.Errorf(pos, planner.ErrOption, "%v", err)
	}
	return nil
}

func (s *Session) list(header string, names []string) error {
	rows := make([][]string, len(names))
	for i, n := range names {
		rows[i] = []string{n}
	}
	return s.table([]string{header}, rows)
}

// table renders rows as the Flink SQL client's boxed tables.
func (s *Session) table(header []string, rows [][]string) error {
	w := make([]int, len(header))
	for i, h := range header {
		w[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func() {
		for _, n := range w {
			b.WriteString("+" + strings.Repeat("-", n+2))
		}
		b.WriteString("+\n")
	}
	row := func(r []string) {
		for i, c := range r {
			fmt.Fprintf(&b, "| %s%s ", c, strings.Repeat(" ", w[i]-len([]rune(c))))
		}
		b.WriteString("|\n")
	}
	line()
	row(header)
	line()
	for _, r := range rows {
		row(r)
	}
	line()
	fmt.Fprintf(&b, "%d row%s in set\n", len(rows), map[bool]string{true: "", false: "s"}[len(rows) == 1])
	_, err := io.WriteString(s.Out, b.String())
	return err
}

func (s *Session) parallelism() int {
	if v, ok := s.Config[KeyParallelism]; ok {
		n, _ := strconv.Atoi(v)
		return n
	}
	if s.Parallelism > 0 {
		return s.Parallelism
	}
	return runtime.NumCPU()
}

// Explain plans st without running it.
func (s *Session) Explain(st parser.Statement) (*planner.Explained, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Catalog.StateTTL = s.stateTTL()
	logical, err := planner.PlanQuery(s.Catalog, st)
	if err != nil {
		return nil, err
	}
	opt := planner.Optimize(logical)
	mb, err := s.miniBatch()
	if err != nil {
		return nil, s.at(st, err)
	}
	g, err := planner.Compile(opt, planner.Env{Parallelism: s.parallelism(), Stdout: io.Discard, JobID: "explain", MiniBatch: mb, StateTTL: s.stateTTL(),
		Members: s.Durable.Members, Shared: s.jobName(s.jobs + 1), IdleTimeout: s.idleTimeout()})
	if err != nil {
		return nil, s.at(st, err)
	}
	return &planner.Explained{Logical: logical, Optimized: opt, Physical: g.String()}, nil
}

// at places an error without a position on the statement.
func (s *Session) at(st parser.Statement, err error) error {
	if _, ok := err.(*planner.Error); ok {
		return err
	}
	// The kind keeps err, so that callers can still tell it by errors.Is.
	return &planner.Error{Pos: st.Pos(), Kind: errors.Join(planner.ErrUnsupported, err), Msg: err.Error()}
}

// run plans, compiles and runs a job until its bounded input is consumed,
// ctx is canceled, or it fails; a detached INSERT's job runs on in the
// background.
func (s *Session) run(ctx context.Context, st parser.Statement) error {
	wait, err := s.started(ctx, st)
	if err != nil {
		return err
	}
	if writes(st) && s.Detach {
		s.detached.Add(1)
		go func() {
			defer s.detached.Done()
			if err := wait(); err != nil {
				fmt.Fprintf(s.Log, "[ERROR] %v\n", err)
			}
		}()
		return nil
	}
	return wait()
}

// started is start with s.mu held, released even if planning panics, so
// that a REPL that reports the panic can go on.
func (s *Session) started(ctx context.Context, st parser.Statement) (wait func() error, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.start(ctx, st)
}

// start plans, compiles and starts st's job, with s.mu held, and returns
// the function that runs it to its end.
func (s *Session) start(ctx context.Context, st parser.Statement) (wait func() error, err error) {
	s.Catalog.StateTTL = s.stateTTL()
	logical, err := planner.PlanQuery(s.Catalog, st)
	if err != nil {
		return nil, err
	}
	s.jobs++
	shared := s.jobName(s.jobs)
	job := shared + s.Durable.Members.Suffix()
	cp, lock, err := s.checkpointing(job)
	if err != nil {
		return nil, s.at(st, err)
	}
	if cp == nil && s.Durable.Members.Many() {
		return nil, planner.Errorf(st.Pos(), planner.ErrOption, "a job run by several members (--members) needs checkpointing: "+
			"the rows they shuffle are committed at checkpoints; run with --checkpoint-interval (execution.checkpointing.interval)")
	}
	if cp == nil && s.savepointPath() != "" {
		lock.Release()
		return nil, planner.Errorf(st.Pos(), planner.ErrOption, "restoring a savepoint needs checkpointing: the restored state lives in "+
			"checkpointed state stores; run with --checkpoint-interval (execution.checkpointing.interval)")
	}
	// A savepoint is the state of one job: the next one started restores
	// it, later ones start as they would without it.
	sp := &fromSavepoint{path: s.savepointPath()}
	s.consumeSavepoint()
	started := false
	defer func() {
		if !started {
			lock.Release()
		}
	}()
	env := planner.Env{Parallelism: s.parallelism(), Stdout: s.Out, CheckFiles: true, StateTTL: s.stateTTL(), Members: s.Durable.Members, Shared: shared,
		IdleTimeout: s.idleTimeout()}
	if env.MiniBatch, err = s.miniBatch(); err != nil {
		return nil, s.at(st, err)
	}
	done := false
	if cp != nil {
		if done, err = s.startDurable(cp, job, sp); err != nil {
			return nil, s.at(st, err)
		}
		env.Job = cp.Job
	}
	scratch, err := s.scratch(job)
	if err != nil {
		return nil, s.at(st, err)
	}
	optimized := planner.Optimize(logical)
	env.JobID = newJobID()
	m := &exec.Metrics{}
	j := &Job{ID: env.JobID, Name: job, Statement: st.String(), Started: time.Now(), Metrics: m}
	var results exec.Sink // one for the job's runs, which share a display
	compile := func() (*exec.Graph, error) {
		g, err := planner.Compile(optimized, env)
		if err != nil {
			return nil, s.at(st, err)
		}
		if _, ok := st.(parser.Query); ok && s.Results != nil {
			for _, v := range g.Vertices {
				if v.Sink != nil && v.SinkName == "collect" {
					if results == nil {
						results = s.Results(Result{Schema: v.Ops[len(v.Ops)-1].Out, Job: j,
							Mode: strings.ToLower(s.config(KeyResultMode, defaults[KeyResultMode])), MaxRows: maxRows(s.Config[KeyMaxRows]),
							Changelog: !planner.ChangelogMode(optimized).InsertOnly()})
					}
					v.Sink = results
				}
			}
		}
		return g, nil
	}
	g, err := compile()
	if err != nil {
		return nil, err
	}
	s.LastMetrics = m
	opts := exec.Options{Metrics: m, Now: s.Now, Scratch: scratch}
	if v, ok := s.Config[KeyBatchSize]; ok {
		opts.BatchSize, _ = strconv.Atoi(v)
	}
	if v, ok := s.Config[KeyMemory]; ok {
		n, ok := types.ParseMemorySize(v)
		if !ok {
			return nil, s.at(st, fmt.Errorf("%w: '%s' must be a memory size such as '256mb', got '%s'", planner.ErrOption, KeyMemory, v))
		}
		if opts.Memory, err = exec.NewMemory(n); err != nil {
			return nil, s.at(st, err)
		}
	}
	id := env.JobID
	if j.SavepointDir, err = s.savepointDir(); err != nil {
		return nil, s.at(st, err)
	}
	s.Jobs.add(j)
	insert := writes(st)
	// A SELECT at the REPL's prompt shows its rows: lines about its job
	// would only break its table.
	logged := !s.Detach || insert
	if logged {
		fmt.Fprintf(s.Log, "job %s started\n", id)
	}
	if insert && s.Detach {
		fmt.Fprintf(s.Out, "[INFO] Job %s submitted.\n", id)
	}
	started = true
	return func() error {
		defer lock.Release()
		start := time.Now()
		err := internal(func() error {
			if done {
				return settle(g, cp)
			}
			if cp != nil {
				restart := func() (*exec.Graph, error) {
					env.JobID = newJobID() // each restart writes files of its own
					return compile()
				}
				return s.runDurable(ctx, j, g, restart, cp, sp, opts)
			}
			return s.attempt(ctx, j, g, opts)
		})
		j.end(err)
		status := "finished"
		switch {
		case errors.Is(err, exec.ErrCanceled): // Ctrl-C, SIGTERM, or the REPL's stop
			status = "stopped"
		case err != nil:
			status = "failed"
		default:
			if st, _, _ := j.Status(); st == exec.Stopped {
				status = "stopped with a savepoint"
			}
		}
		if logged {
			fmt.Fprintf(s.Log, "job %s %s: %s\n", id, status, m.Summary(time.Since(start)))
		}
		return err
	}, nil
}

// writes reports whether st is an INSERT or a statement set of them: a
// job that writes tables, which a detached session runs in the background.
func writes(st parser.Statement) bool {
	switch st.(type) {
	case *parser.Insert, *parser.StatementSet:
		return true
	}
	return false
}

// Result is what a display of a SELECT's rows is given: the rows' schema,
// the job (whose metrics a live display shows), and the SET options of
// the display: the result mode and the rows it may keep.
type Result struct {
	Schema  types.Schema
	Job     *Job
	Mode    string
	MaxRows int
	// Changelog says the rows are a changelog (not insert-only): their
	// kinds are shown in every mode, as Flink's SQL client does.
	Changelog bool
}

// maxRows is sql-client.display.max-rows (checked by SET), 1000 if unset.
func maxRows(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 1000
	}
	return n
}

// ErrInternal is a panic in strand's code, reported as an error: the
// job fails, the session and the REPL go on.
var ErrInternal = errors.New("internal error (a bug in strand)")

// internal runs fn, returning a panic in it as an ErrInternal error (with
// the stack when STRAND_DEBUG is set), so that a bug in a job's setup
// fails that job instead of the process. The job's own goroutines recover
// theirs in exec.
func internal(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrInternal, p)
			if os.Getenv("STRAND_DEBUG") != "" {
				err = fmt.Errorf("%w\n%s", err, debug.Stack())
			}
		}
	}()
	return fn()
}

// locked runs fn with s.mu held.
func (s *Session) locked(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

func (s *Session) consumeSavepoint() {
	s.Durable.FromSavepoint = ""
	delete(s.Config, KeySavepointPath)
}

// attempt runs g once as job j's current run.
func (s *Session) attempt(ctx context.Context, j *Job, g *exec.Graph, opts exec.Options) error {
	x, err := exec.Start(ctx, g, opts)
	if err != nil {
		return err
	}
	j.attempt(x)
	return x.Wait()
}

// savepointDir is where the session's savepoints go by default.
func (s *Session) savepointDir() (string, error) {
	dir := s.Config[KeySavepointDir]
	if dir == "" {
		root := s.config(KeyStateDir, s.Durable.StateDir)
		if checkpoint.IsURL(root) { // savepoints are local
			root = s.Durable.StateDir
		}
		if root == "" {
			root = ".strand"
		}
		dir = filepath.Join(root, "savepoints")
	}
	return filepath.Abs(dir)
}

func newJobID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
