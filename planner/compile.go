package planner

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/join"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/rank"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// Env is what compiling a plan into a job needs from the session.
type Env struct {
	Parallelism int
	// Stdout receives the rows of a SELECT and of print sinks.
	Stdout io.Writer
	// JobID names this run's output files; Job, set when the job
	// checkpoints, names the job across runs.
	JobID, Job string
	// CheckFiles makes compiling check the tables' files (a source's
	// path exists, a sink's is no regular file), so that a job that
	// would fail on them is not started. EXPLAIN does not look at files.
	CheckFiles bool
	// MiniBatch is table.exec.mini-batch.*: group aggregates fold their
	// changes per batch of input rows.
	MiniBatch MiniBatch
	// StateTTL is table.exec.state.ttl in milliseconds (0: state never
	// expires), which a STATE_TTL hint overrides per operator (ttl.go).
	StateTTL int64
	// Members is this process's share of a job that several processes
	// run (members.go); Shared names the job alike in all of them.
	Members exec.Members
	Shared  string
	// IdleTimeout is table.exec.source.idle-timeout, 0 for none.
	IdleTimeout time.Duration
}

// Compile turns an optimized logical plan into a job graph: operators on
// forward edges are chained into one vertex, and a window aggregate starts
// a new vertex behind a hash exchange on its keys.
func Compile(root Node, env Env) (*exec.Graph, error) {
	c := &compiler{env: env}
	if _, err := c.node(root); err != nil {
		return nil, err
	}
	if err := c.checkMembers(); err != nil {
		return nil, err
	}
	return &exec.Graph{Vertices: c.vertices, MaxParallelism: exec.DefaultMaxParallelism}, nil
}

type compiler struct {
	env      Env
	vertices []*exec.Vertex
	// sources counts the scans of each table so far: a table read twice
	// (a self-join) has two sources, whose read positions need two uids.
	sources map[string]int
	// For a statement set (statement_set.go): wide holds the columns the
	// scans of each table (scanKey) read; scanKeys and fireKeys tell the
	// sources that read alike and drop the same rows as late.
	wide     map[string][]bool
	scanKeys map[*exec.SourceSpec]string
	fireKeys map[*exec.SourceSpec]string
	// options are the WITH options of each scan's table, and
	// repartitioned the vertices reading a repartition topic (members.go).
	options       map[*exec.SourceSpec]map[string]string
	repartitioned map[*exec.Vertex]bool
}

// sourceUID is the uid of the next scan of table: source-<table>, and
// source-<table>-<n> for its n-th scan in the plan after the first.
func (c *compiler) sourceUID(table string) string {
	if c.sources == nil {
		c.sources = map[string]int{}
	}
	c.sources[table]++
	if n := c.sources[table]; n > 1 {
		return fmt.Sprintf("source-%s-%d", table, n)
	}
	return "source-" + table
}

// sourceEnv applies the run's settings and t's watermark alignment to
// the scan spec of table t.
func (c *compiler) sourceEnv(spec *exec.SourceSpec, t *Table) error {
	spec.IdleTimeout = c.env.IdleTimeout
	a, err := connector.Alignment(t.Source())
	if err != nil {
		return optionError(t, err)
	}
	if a.Group != "" && t.Watermark == nil {
		// Checked where the table is read: a table only written may have
		// scan options, as in Flink.
		return optionError(t, &connector.OptionError{Key: connector.KeyAlignGroup,
			Msg: fmt.Sprintf("option '%s' needs a WATERMARK: table %s has none, so its sources have no watermark to align", connector.KeyAlignGroup, t.Name)})
	}
	spec.Align = a
	c.share(spec, t)
	return nil
}

// stage is the open end of a vertex's chain: where the next operator goes.
type stage struct {
	v      *exec.Vertex
	schema types.Schema
	// src is the source feeding this vertex directly, if any.
	src *exec.SourceSpec
	// windowed marks the output of a window aggregate or a SESSION window
	// TVF: its rows (of time window_time, window_end - 1) are emitted when
	// their window fires, before the watermark that covers them goes on
	// (a session operator holds its watermark back: exec.SessionHold), so
	// a window over them never finds one late (cascading windows).
	windowed bool
}

func (c *compiler) vertex(name string) *exec.Vertex {
	v := &exec.Vertex{ID: len(c.vertices) + 1, Name: name, Parallelism: c.env.Parallelism}
	c.vertices = append(c.vertices, v)
	return v
}

// keyedVertex starts a vertex behind a hash exchange on keys, so that
// the rows of one key meet in one subtask, or, without keys, at
// parallelism 1 behind a global edge, as Flink runs an operator keyed by
// nothing.
func (c *compiler) keyedVertex(name string, from *exec.Vertex, keys []int) *exec.Vertex {
	v := c.vertex(name)
	if len(keys) == 0 {
		v.Parallelism = 1
		v.Inputs = []*exec.Edge{{From: from, Kind: exec.Global}}
	} else {
		v.Inputs = []*exec.Edge{{From: from, Kind: exec.Hash, Keys: keys}}
	}
	return v
}

func (c *compiler) node(n Node) (*stage, error) {
	switch n := n.(type) {
	case *Scan:
		return c.scan(n)
	case *Filter:
		s, err := c.node(n.Input)
		if err != nil {
			return nil, err
		}
		return s, c.calc(s, n.Cond, nil, s.schema)
	case *Project:
		var cond expr.Expr
		input := n.Input
		if f, ok := input.(*Filter); ok {
			cond, input = f.Cond, f.Input
		}
		exprs := n.Exprs
		var s *stage
		var err error
		if sc, ok := input.(*Scan); ok {
			s, cond, exprs, err = c.prunedScan(sc, cond, exprs)
		} else {
			s, err = c.node(input)
		}
		if err != nil {
			return nil, err
		}
		return s, c.calc(s, cond, exprs, n.Out)
	case *WindowTVF:
		s, err := c.node(n.Input)
		if err != nil {
			return nil, err
		}
		// Rows of a processing-time window are never late: only event
		// time drops rows at the source.
		if s.schema[n.TimeCol].Type.Attr != types.ProcTime {
			if err := c.fires(s, n.Window, n.At); err != nil {
				return nil, err
			}
		}
		if n.Window.Kind == window.Session {
			return c.sessionTVF(n, s)
		}
		out := n.Schema()
		op := exec.OpSpec{Name: fmt.Sprintf("WindowTableFunction(%s)", describeWindow(s.schema, n.TimeCol, n.Window)), Out: out,
			New: func() (exec.Operator, error) {
				return &exec.AssignWindow{TimeCol: n.TimeCol, Window: n.Window, Out: out}, nil
			}}
		s.v.Ops = append(s.v.Ops, op)
		s.schema = out
		return s, nil
	case *WindowAgg:
		return c.windowAgg(n)
	case *TopN:
		return c.topN(n)
	case *Rank:
		return c.rank(n)
	case *Join:
		return c.join(n)
	case *GroupAgg:
		return c.groupAgg(n)
	case *Expand:
		return c.expand(n)
	case *Over:
		return c.over(n)
	case *Unnest:
		return c.unnest(n)
	case *Union:
		return c.union(n)
	case *Normalize:
		return c.normalize(n)
	case *Materialize:
		return c.materialize(n)
	case *Sink:
		return c.sink(n)
	case *SinkSet:
		return c.sinkSet(n)
	}
	return nil, fmt.Errorf("planner: cannot compile %T", n)
}

func (c *compiler) scan(n *Scan) (*stage, error) {
	t := n.Table
	if err := c.check(t, true); err != nil {
		return nil, err
	}
	src, err := connector.NewSource(t.Source())
	if err != nil {
		return nil, optionError(t, err)
	}
	spec := &exec.SourceSpec{UID: c.sourceUID(t.Name), Table: t.Name, Source: src, Computed: t.Computed, Schema: t.Schema, Watermark: t.Watermark, TimeCol: t.TimeCol}
	c.keep(&c.scanKeys, spec, scanKey(t))
	if err := c.sourceEnv(spec, t); err != nil {
		return nil, err
	}
	v := c.vertex("Source: " + t.Name)
	v.Source = spec
	return &stage{v: v, schema: t.Schema, src: spec}, nil
}

// prunedScan compiles a scan under a projection (and filter): when the
// table's connector allows it, the source reads only the columns the
// projection and filter use, plus the time column and what the watermark
// reads, so that a generator does not make columns nobody reads and a
// file decoder does not parse them. It
// returns the filter and projection rewritten to the narrower schema.
func (c *compiler) prunedScan(n *Scan, cond expr.Expr, exprs []expr.Expr) (*stage, expr.Expr, []expr.Expr, error) {
	t := n.Table
	if !connector.Prunable(connector.Table{Name: t.Name, Options: t.Options}) {
		s, err := c.scan(n)
		return s, cond, exprs, err
	}

	// need: columns of the table's schema; needPhys: of its physical
	// schema. In a statement set, what the other scans of the table need
	// too, so that they all read alike.
	need := scanNeed(t, cond, exprs)
	for i, w := range c.wide[scanKey(t)] {
		need[i] = need[i] || w
	}
	needPhys := make([]bool, len(t.Physical))
	for pi, fi := range t.Physical {
		if t.Computed == nil {
			needPhys[pi] = need[fi]
		} else if need[fi] {
			needPhys[pi] = true
		}
	}
	for fi, e := range t.Computed {
		if need[fi] {
			markCols(e, needPhys)
		}
	}
	if !slices.Contains(needPhys, true) {
		needPhys[0] = true // a row needs a column to exist
		if t.Computed == nil {
			need[t.Physical[0]] = true
		}
	}
	// readAs: the types the columns are read as, ROWs narrowed to the
	// fields read (prune_nested.go); in a statement set, where the scans
	// of a table read alike, whole.
	readAs, narrowed := narrowedTypes(t, cond, exprs, need, c.wide == nil)
	if !slices.Contains(need, false) && !slices.Contains(needPhys, false) && !narrowed {
		s, err := c.scan(n)
		return s, cond, exprs, err
	}

	var phys types.Schema
	var reads []string
	byPhys := make([]expr.Expr, len(t.Physical)) // old physical column -> new
	for pi, fi := range t.Physical {
		if needPhys[pi] {
			f := t.Schema[fi]
			f.Type = readAs[fi]
			byPhys[pi] = &expr.Col{Index: len(phys), Name: f.Name, T: f.Type.Plain()}
			phys = append(phys, types.Field{Name: f.Name, Type: f.Type.Plain()})
			reads = append(reads, readName(f, t.Schema[fi].Type))
		}
	}
	var schema types.Schema
	var computed []expr.Expr
	byFull := make([]expr.Expr, len(t.Schema)) // old table column -> new
	for fi, f := range t.Schema {
		if !need[fi] {
			continue
		}
		f.Type = readAs[fi]
		byFull[fi] = &expr.Col{Index: len(schema), Name: f.Name, T: f.Type}
		schema = append(schema, f)
		if t.Computed != nil {
			computed = append(computed, refield(substitute(t.Computed[fi], byPhys)))
		}
	}
	if err := c.check(t, true); err != nil {
		return nil, nil, nil, err
	}
	ct := t.Source()
	ct.Read = needPhys
	for pi, fi := range t.Physical {
		ct.Schema[pi].Type = readAs[fi]
	}
	if c.wide == nil {
		ct.Equal = equalities(cond, t.Schema)
	}
	src, err := connector.NewSource(ct)
	if err != nil {
		return nil, nil, nil, optionError(t, err)
	}
	spec := &exec.SourceSpec{UID: c.sourceUID(t.Name), Table: t.Name, Source: src, Computed: computed, Schema: schema, TimeCol: -1, Reads: reads}
	c.keep(&c.scanKeys, spec, scanKey(t))
	if err := c.sourceEnv(spec, t); err != nil {
		return nil, nil, nil, err
	}
	if t.TimeCol >= 0 {
		spec.Watermark = refield(substitute(t.Watermark, byFull))
		spec.TimeCol = byFull[t.TimeCol].(*expr.Col).Index
	}
	v := c.vertex("Source: " + t.Name)
	v.Source = spec
	if cond != nil {
		cond = refield(substitute(cond, byFull))
	}
	out := make([]expr.Expr, len(exprs))
	for i, e := range exprs {
		out[i] = refield(substitute(e, byFull))
	}
	return &stage{v: v, schema: schema, src: spec}, cond, out, nil
}

// scanNeed returns the columns of t's schema that a filter cond and a
// projection exprs over its scan read, with the time column and what the
// watermark reads.
func scanNeed(t *Table, cond expr.Expr, exprs []expr.Expr) []bool {
	need := make([]bool, len(t.Schema))
	markCols(cond, need)
	for _, e := range exprs {
		markCols(e, need)
	}
	if t.TimeCol >= 0 {
		need[t.TimeCol] = true
		markCols(t.Watermark, need)
	}
	return need
}

// markCols sets into[i] for each column i that e reads.
func markCols(e expr.Expr, into []bool) {
	if e == nil {
		return
	}
	expr.Walk(e, func(x expr.Expr) bool {
		if col, ok := x.(*expr.Col); ok {
			into[col.Index] = true
		}
		return true
	})
}

// check looks at the files of table t read (asSource) or written by the
// job, if the environment asks for it.
func (c *compiler) check(t *Table, asSource bool) error {
	if !c.env.CheckFiles {
		return nil
	}
	ct := t.Sink()
	if asSource {
		ct = t.Source()
	}
	if err := connector.Check(ct, asSource); err != nil {
		return optionError(t, err)
	}
	return nil
}

// fires tells the source feeding s how rows map to windows of w, so it
// can drop late rows per split; at is the window's TVF or GROUP BY call.
func (c *compiler) fires(s *stage, w window.Assigner, at parser.Pos) error {
	if s.windowed {
		return nil
	}
	if s.src == nil || s.src.Fires != nil {
		// Its rows' lateness was decided by other windows, or by none.
		return errorf(at, ErrUnsupported, "a window over the rows of another window TVF, a join or a union is not supported: a window takes a table's rows (with a WATERMARK), or a window aggregate's output by its window_time")
	}
	s.src.Fires = w.Fires
	c.keep(&c.fireKeys, s.src, fmt.Sprintf("%+v", w))
	return nil
}

// keep records v for spec in *m, made on first use.
func (c *compiler) keep(m *map[*exec.SourceSpec]string, spec *exec.SourceSpec, v string) {
	if *m == nil {
		*m = map[*exec.SourceSpec]string{}
	}
	(*m)[spec] = v
}

func (c *compiler) calc(s *stage, cond expr.Expr, project []expr.Expr, out types.Schema) error {
	in := s.schema
	var parts []string
	if cond != nil {
		parts = append(parts, "where=["+cond.String()+"]")
	}
	if project != nil {
		ps := make([]string, len(project))
		for i, e := range project {
			ps[i] = e.String()
		}
		parts = append(parts, "select=["+strings.Join(ps, ", ")+"]")
	}
	s.v.Ops = append(s.v.Ops, exec.OpSpec{Name: "Calc(" + strings.Join(parts, ", ") + ")", Out: out,
		New: func() (exec.Operator, error) { return exec.NewCalc(in, cond, project, out) }})
	s.schema = out
	return nil
}

func (c *compiler) windowAgg(n *WindowAgg) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	// Assigned rows come from a window TVF below, which had the source
	// drop late rows already.
	if n.TimeCol >= 0 && !n.Assigned {
		if err := c.fires(s, n.Window, n.At); err != nil {
			return nil, err
		}
	}
	uid := UID(n)
	if c.env.Members.Many() && len(n.Keys) > 0 {
		if s, err = c.repartition(s, n.Keys, uid, n.At); err != nil {
			return nil, err
		}
	}
	v := c.vertex("WindowAggregate")
	v.Inputs = []*exec.Edge{{From: s.v, Kind: exec.Hash, Keys: n.Keys}}
	c.keyedBy(v, s)
	out := n.Schema()
	in := s.schema
	spec := &window.Spec{Window: n.Window, In: in, TimeCol: n.TimeCol, ByEnd: n.Assigned, Keys: n.Keys, Aggs: n.Aggs}
	if n.Window.Kind == window.Session {
		return c.sessionAgg(n, s, v, spec, uid)
	}
	name := n.describe()
	if w := n.Window; n.Assigned {
		// Rows come with their window (one per window) from the TVF below.
		name += " assigner=[assigned(by=[window_end])]"
	} else if w.Slides() {
		// The physical plan shows how the windows are computed: per slice.
		name += fmt.Sprintf(" assigner=[sliced(slice=[%s], slices_per_window=[%d])]", types.SQLIntervalDayTime(w.SliceSize()), w.Size/w.SliceSize())
	} else if n.TimeCol < 0 {
		name += " assigner=[tumbling(by=[processing time])]"
	} else {
		name += fmt.Sprintf(" assigner=[tumbling(slice=[%s])]", types.SQLIntervalDayTime(w.Size))
	}
	v.Ops = append(v.Ops, exec.OpSpec{Name: name + " uid=" + uid, UID: uid, Fingerprint: spec.Fingerprint(), Out: out,
		MemorySegments: spec.MinSegments(), New: func() (exec.Operator, error) {
			return exec.NewWindowAgg(uid, *spec)
		}})
	return &stage{v: v, schema: out, windowed: true}, nil
}

// sessionAgg finishes the vertex v of a SESSION window aggregate: it
// merges each key's sessions, so the hash exchange on the keys is also
// what partitions the sessions.
func (c *compiler) sessionAgg(n *WindowAgg, s *stage, v *exec.Vertex, spec *window.Spec, uid string) (*stage, error) {
	if _, err := exec.NewSessionAgg(uid, *spec); err != nil {
		return nil, err
	}
	name := n.describe() + " assigner=[merging(per=[key], touching=[merge])] uid=" + uid
	v.Ops = append(v.Ops, exec.OpSpec{Name: name, UID: uid, Fingerprint: window.SessionFingerprint(spec), Out: n.Schema(),
		MemorySegments: spec.MinSegments(), New: func() (exec.Operator, error) {
			return exec.NewSessionAgg(uid, *spec)
		}})
	return &stage{v: v, schema: n.Schema(), windowed: true}, nil
}

// sessionTVF compiles a SESSION window TVF that no window aggregate takes
// in: a vertex behind a hash exchange on its PARTITION BY columns, which
// keeps each row until its session fires.
func (c *compiler) sessionTVF(n *WindowTVF, s *stage) (*stage, error) {
	uid, out := UID(n), n.Schema()
	in := s.schema
	op, err := exec.NewSessionTVF(uid, in, n.TimeCol, n.Partition, n.Window.Size, out)
	if err != nil {
		return nil, err
	}
	v := c.vertex("SessionWindowTableFunction")
	v.Inputs = []*exec.Edge{{From: s.v, Kind: exec.Hash, Keys: n.Partition}}
	name := fmt.Sprintf("%s assigner=[merging(per=[%s], touching=[merge])] uid=%s", n.describe(), partitionNames(in, n.Partition), uid)
	v.Ops = append(v.Ops, exec.OpSpec{Name: name, UID: uid, Fingerprint: op.Fingerprint(), Out: out, MemorySegments: op.MinSegments(),
		New: func() (exec.Operator, error) {
			return exec.NewSessionTVF(uid, in, n.TimeCol, n.Partition, n.Window.Size, out)
		}})
	return &stage{v: v, schema: out, windowed: true}, nil
}

// partitionNames names a SESSION's PARTITION BY columns, or "none".
func partitionNames(in types.Schema, cols []int) string {
	if len(cols) == 0 {
		return "none"
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = in[c].Name
	}
	return strings.Join(names, ", ")
}

// topN starts a vertex of parallelism 1 behind a global edge: a window's
// first rows are first among all of its rows, wherever they were
// computed. Watermarks and barriers reach it from every upstream subtask,
// so it fires a window once all of them have sent the window's rows.
func (c *compiler) topN(n *TopN) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	v := c.vertex("WindowTopN")
	v.Parallelism = 1
	v.Inputs = []*exec.Edge{{From: s.v, Kind: exec.Global}}
	spec := rank.WindowSpec{UID: UID(n), In: s.schema, WindowEnd: n.WindowEnd, Partition: n.Partition, Limit: n.Limit, RowNum: n.RowNum, RowName: n.RowName}
	for _, o := range n.Order {
		spec.Order = append(spec.Order, rank.SortKey{Col: o.Col, Desc: o.Desc, NullsLast: o.NullsLast})
	}
	if _, err := rank.NewWindowTopN(spec); err != nil {
		return nil, err
	}
	out := n.Schema()
	v.Ops = append(v.Ops, exec.OpSpec{Name: n.describe() + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out, MemorySegments: rank.WindowSegments, New: func() (exec.Operator, error) {
		return rank.NewWindowTopN(spec)
	}})
	return &stage{v: v, schema: out}, nil
}

// join starts a vertex reading both inputs, each behind a hash exchange
// on its join keys, so rows of equal keys meet in one subtask. Its output
// has no event time (Join's schema), so no window follows it.
func (c *compiler) join(n *Join) (*stage, error) {
	l, err := c.node(n.Left)
	if err != nil {
		return nil, err
	}
	r, err := c.node(n.Right)
	if err != nil {
		return nil, err
	}
	if n.Interval != nil {
		return c.intervalJoin(n, l, r)
	}
	if n.Temporal != nil {
		return c.temporalJoin(n, l, r)
	}
	if n.Window != nil {
		return c.windowJoin(n, l, r)
	}
	v := c.vertex("Join")
	v.Inputs = []*exec.Edge{{From: l.v, Kind: exec.Hash, Keys: n.LeftKeys}, {From: r.v, Kind: exec.Hash, Keys: n.RightKeys}}
	if n.NullAware {
		// Any right row decides for every left row: one subtask.
		v.Parallelism = 1
	}
	out := n.Schema()
	kind := [...]join.Kind{InnerJoin: join.Inner, LeftJoin: join.LeftOuter, RightJoin: join.RightOuter, FullJoin: join.FullOuter, SemiJoin: join.Semi, AntiJoin: join.Anti}[n.Kind]
	spec := join.Spec{UID: UID(n), Kind: kind, Left: l.schema, Right: r.schema, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Residual: n.Residual, NullAware: n.NullAware, Out: out}
	if !n.NullAware {
		ttls := c.stateTTLs(n.TTLHint[:], l.schema, r.schema)
		spec.TTL = [2]exec.StateTTL{ttls[0], ttls[1]}
	}
	if _, err := join.New(spec); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "%v", err)
	}
	v.Ops = append(v.Ops, exec.OpSpec{Name: n.describe() + ttlName(spec.TTL[:]...) + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out, TwoInput: true,
		CacheMemory: true, New: func() (exec.Operator, error) { return join.New(spec) }})
	return &stage{v: v, schema: out}, nil
}

// union starts a vertex that reads every input, subtask i of each into
// its subtask i, so the rows of one input subtask, a retraction after
// what it retracts, stay in order; an input of another parallelism (a
// window Top-N) is insert-only and is spread over the subtasks.
func (c *compiler) union(n *Union) (*stage, error) {
	v := &exec.Vertex{Name: "Union", Parallelism: c.env.Parallelism}
	for _, in := range n.Ins {
		s, err := c.node(in)
		if err != nil {
			return nil, err
		}
		kind := exec.Forward
		if s.v.Parallelism != v.Parallelism {
			kind = exec.Rebalance
		}
		v.Inputs = append(v.Inputs, &exec.Edge{From: s.v, Kind: kind})
	}
	// Numbered after its inputs, as every vertex comes after what it reads.
	v.ID = len(c.vertices) + 1
	c.vertices = append(c.vertices, v)
	return &stage{v: v, schema: n.Out}, nil
}

func (c *compiler) sink(n *Sink) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	env := connector.Env{Stdout: c.env.Stdout, JobID: c.env.JobID, Job: c.env.Job, Members: c.env.Members}
	var sk exec.Sink
	if n.Table == nil {
		sk, err = connector.NewSink(connector.Table{Name: "collect", Schema: plain(s.schema), Options: map[string]string{"connector": "print"}}, env)
		s.v.SinkName = "collect"
	} else {
		t := n.Table
		if err := c.check(t, false); err != nil {
			return nil, err
		}
		sk, err = connector.NewSink(t.Sink(), env)
		if err != nil {
			err = optionError(t, err)
		}
		s.v.SinkName = t.Name
		s.v.SinkUID = "sink-" + t.Name
	}
	if err != nil {
		return nil, err
	}
	if n.DropBefore {
		c.dropBefore(s)
	}
	if n.Table != nil {
		s = c.sinkParallelism(s, n.Table)
	}
	if len(s.v.Ops) == 0 {
		if err := c.calc(s, nil, nil, s.schema); err != nil {
			return nil, err
		}
	}
	s.v.Sink = sk
	return s, nil
}

func plain(s types.Schema) types.Schema {
	out := make(types.Schema, len(s))
	for i, f := range s {
		out[i] = types.Field{Name: f.Name, Type: f.Type.Plain()}
	}
	return out
}
