package planner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// binder turns queries into logical plans.
type binder struct {
	cat *Catalog
	// ctes are the WITH queries in scope, innermost last; each sees only
	// the ones before it.
	ctes []*parser.CTE
	// depth guards against views that refer to themselves.
	depth int
	// made are the stateful operators the SELECT being bound defines,
	// for its UID hint; uids are the hinted uids bound so far, and where.
	made []stateful
	uids map[string]parser.Pos
	// ttlHinted is set while a SELECT with a STATE_TTL hint is bound.
	ttlHinted bool
}

// relation is a bound FROM item or query: its plan and the names it shows.
type relation struct {
	node  Node
	scope *scope
	// tvf is set when the relation is a window TVF, so a GROUP BY on its
	// window columns becomes a window aggregate.
	tvf *WindowTVF
	// win locates the window columns of a windowed relation: a window
	// TVF, a window aggregate, or what selects their window columns.
	win *winCols
	// rank is set while the relation numbers rows with ROW_NUMBER() and
	// waits for the enclosing query's WHERE rownum <= N.
	rank *pendingRank
}

// winCols are the columns of a windowed relation that hold window_start
// and window_end, -1 for one that is not selected.
type winCols struct {
	start, end int
	// also are further columns that hold window_start (also[0]) and
	// window_end (also[1]): a projection's copies, the right side's of an
	// inner window join.
	also [2][]int
	// proc marks a processing-time window.
	proc bool
	// tvf is the window of a window TVF or an event-time window
	// aggregate whose rows these are (through projections and filters),
	// nil for a SESSION or processing-time window aggregate's output: a
	// GROUP BY of both columns aggregates such rows per window.
	tvf *window.Assigner
	// session marks SESSION windows, whose rows have no window until
	// their sessions fire: a window aggregate takes the TVF's rows only
	// right over it.
	session bool
	at      parser.Pos
	// agg marks a window aggregate's rows, which a GROUP BY of one of
	// the window columns groups as a plain key.
	agg bool
}

// winThrough locates w's columns in a projection of them, or returns nil
// when the projection keeps neither.
func winThrough(exprs []expr.Expr, w *winCols) *winCols {
	if w == nil {
		return nil
	}
	out := &winCols{start: -1, end: -1, proc: w.proc, tvf: w.tvf, session: w.session, at: w.at, agg: w.agg}
	for i, e := range exprs {
		c, ok := e.(*expr.Col)
		if !ok {
			continue
		}
		switch {
		case w.isStart(c.Index) && out.start < 0:
			out.start = i
		case w.isStart(c.Index):
			out.also[0] = append(out.also[0], i)
		case w.isEnd(c.Index) && out.end < 0:
			out.end = i
		case w.isEnd(c.Index):
			out.also[1] = append(out.also[1], i)
		}
	}
	if out.start < 0 && out.end < 0 {
		return nil
	}
	return out
}

// isStart reports whether column i holds window_start.
func (w *winCols) isStart(i int) bool { return i == w.start || slices.Contains(w.also[0], i) }

// isEnd reports whether column i holds window_end.
func (w *winCols) isEnd(i int) bool { return i == w.end || slices.Contains(w.also[1], i) }

func (b *binder) query(q parser.Query) (*relation, error) {
	switch q := q.(type) {
	case *parser.Select:
		return b.selectQuery(q)
	case *parser.SetOp:
		return b.setOp(q)
	case *parser.Values:
		return nil, errorf(q.Start, ErrUnsupported, "VALUES is not supported yet")
	}
	return nil, errorf(q.Pos(), ErrUnsupported, "query %s is not supported", q)
}

// selectQuery binds a SELECT and names the stateful operator it defines
// after its UID hint.
func (b *binder) selectQuery(q *parser.Select) (*relation, error) {
	uid, ttl, err := queryHints(q)
	if err != nil {
		return nil, err
	}
	outer, hinted := b.made, b.ttlHinted
	b.made, b.ttlHinted = nil, ttl != nil
	defer func() { b.made, b.ttlHinted = outer, hinted }()
	r, err := b.selectBody(q)
	if err != nil {
		return r, err
	}
	if ttl != nil {
		if err := b.applyStateTTL(ttl); err != nil {
			return nil, err
		}
	}
	if uid == nil {
		return r, nil
	}
	return r, b.nameOperator(uid)
}

func (b *binder) selectBody(q *parser.Select) (*relation, error) {
	if len(q.With) > 0 {
		for _, c := range q.With {
			if err := checkHints(c.Query); err != nil {
				return nil, err
			}
		}
		b.ctes = append(b.ctes, q.With...)
		defer func() { b.ctes = b.ctes[:len(b.ctes)-len(q.With)] }()
	}
	if q.From == nil {
		return nil, errorf(q.Start, ErrUnsupported, "SELECT without FROM is not supported on streams")
	}
	var from *relation
	var err error
	where := q.Where
	if j, ok := q.From.(*parser.Join); ok && j.Kind == parser.JoinComma {
		from, where, err = b.commaJoin(j, where)
	} else {
		from, err = b.from(q.From)
	}
	if err != nil {
		return nil, err
	}
	if where != nil {
		if from, err = b.where(from, where); err != nil {
			return nil, err
		}
	}
	if err := from.ranked(); err != nil {
		return nil, err
	}
	// base is what the select list reads: the FROM, or the window
	// aggregate's output; c binds expressions over it.
	base, c := from, &exprCtx{scope: from.scope, clause: "in SELECT without GROUP BY"}
	aggs := collectAggs(q)
	distinct := q.Distinct
	if distinct {
		if _, call, _ := rankItem(q.Items); call != nil {
			return nil, errorf(q.Start, ErrUnsupported, "SELECT DISTINCT with %s() is not supported: number the rows in a subquery", call.Name)
		}
		if len(q.OrderBy) > 0 || q.Limit != nil {
			return nil, errorf(q.Start, ErrUnsupported, "SELECT DISTINCT with ORDER BY or LIMIT is not supported on streams")
		}
	}
	if calls := overCalls(q); len(calls) > 0 {
		if base, c, err = b.overAggregate(q, from, calls); err != nil {
			return nil, err
		}
	} else if distinct && len(q.GroupBy) == 0 && len(aggs) == 0 {
		// As GROUP BY the selected columns; the aggregate is named
		// after the DISTINCT in messages.
		// The WINDOW clause is over the FROM: the DISTINCT comes after
		// the select list.
		if err := checkWindows(q, c); err != nil {
			return nil, err
		}
		n := len(b.made)
		q, distinct = distinctGroups(q, from), false
		q.Windows = nil
		if base, c, err = b.aggregate(q, from, nil); err != nil {
			return nil, err
		}
		for _, m := range b.made[n:] {
			if g, ok := m.node.(*GroupAgg); ok {
				g.At, g.What = q.Start, "SELECT DISTINCT"
			}
		}
	} else if len(q.GroupBy) > 0 || len(aggs) > 0 {
		if base, c, err = b.aggregate(q, from, aggs); err != nil {
			return nil, err
		}
	} else if q.Having != nil {
		return nil, errorf(q.Having.Pos(), ErrUnsupported, "HAVING needs GROUP BY")
	}
	if err := checkWindows(q, c); err != nil {
		return nil, err
	}
	if k, call, err := rankItem(q.Items); err != nil || call != nil {
		if err != nil {
			return nil, err
		}
		return b.rowNumber(q, base, c, k, call)
	}
	r, err := b.project(q.Items, base, c)
	if err != nil {
		return nil, err
	}
	if distinct {
		return b.distinct(r, q.Start, "SELECT DISTINCT")
	}
	if len(q.OrderBy) > 0 || q.Limit != nil {
		return b.orderLimit(q, base, c, r)
	}
	return r, nil
}

// where filters a relation. Over a window TVF the filter goes below the
// window assignment, so a window aggregate can still replace the TVF.
func (b *binder) where(r *relation, cond parser.Expr) (*relation, error) {
	if r.rank != nil {
		return b.rankWhere(r, cond)
	}
	// x [NOT] IN (SELECT ...) and [NOT] EXISTS (...) among the
	// conditions ANDed together are semi or anti joins of r with the
	// subquery; the other conditions filter after them.
	var rest []parser.Expr
	terms := whereTerms(cond, nil)
	for _, c := range terms {
		j, err := b.subqueryTerm(r, c)
		if errors.Is(err, errNoSubquery) {
			rest = append(rest, c)
			continue
		}
		if err != nil {
			return nil, err
		}
		r = j
	}
	if len(rest) == 0 {
		return r, nil
	}
	if len(rest) < len(terms) {
		cond = rest[0]
		for _, c := range rest[1:] {
			cond = &parser.Binary{Start: cond.Pos(), OpPos: c.Pos(), Op: "AND", Left: cond, Right: c}
		}
	}
	e, err := bindExpr(&exprCtx{scope: r.scope, clause: "in WHERE"}, cond)
	if err != nil {
		return nil, err
	}
	if err := want(cond, e, types.Boolean); err != nil {
		return nil, err
	}
	if r.tvf != nil && !refsAtOrAbove(e, len(r.tvf.Input.Schema())) {
		tvf := &WindowTVF{Input: &Filter{Input: r.tvf.Input, Cond: e}, TimeCol: r.tvf.TimeCol, Window: r.tvf.Window, Partition: r.tvf.Partition, PartitionAt: r.tvf.PartitionAt, At: r.tvf.At}
		return &relation{node: tvf, scope: r.scope, tvf: tvf, win: r.win}, nil
	}
	return &relation{node: &Filter{Input: r.node, Cond: e}, scope: r.scope, win: r.win}, nil
}

// refsAtOrAbove reports whether e reads a column with index >= n.
func refsAtOrAbove(e expr.Expr, n int) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if c, ok := x.(*expr.Col); ok && c.Index >= n {
			found = true
		}
		return !found
	})
	return found
}

// project binds a select list over r.
func (b *binder) project(items []*parser.SelectItem, r *relation, c *exprCtx) (*relation, error) {
	out, _, err := b.projectExcept(items, r, c, -1)
	return out, err
}

// projectExcept binds a select list over r without item skip, and returns
// the column that item would have been.
func (b *binder) projectExcept(items []*parser.SelectItem, r *relation, c *exprCtx, skip int) (*relation, int, error) {
	p := &Project{Input: r.node}
	out := &scope{}
	at := -1
	for i, it := range items {
		if i == skip {
			at = len(p.Exprs)
			continue
		}
		if st, ok := it.Expr.(*parser.Star); ok {
			qual := strings.Join(st.Qualifier, ".")
			n := 0
			for j, col := range r.scope.cols {
				if qual != "" && !strings.EqualFold(col.qual, qual) || col.hidden {
					continue
				}
				p.Exprs = append(p.Exprs, &expr.Col{Index: j, Name: col.name, T: col.typ})
				p.Out = append(p.Out, types.Field{Name: col.name, Type: col.typ})
				out.cols = append(out.cols, column{name: col.name, typ: col.typ})
				n++
			}
			if n == 0 {
				return nil, -1, errorf(st.Start, ErrUnknownTable, "unknown table '%s' in %s.*", qual, qual)
			}
			continue
		}
		e, err := bindExpr(c, it.Expr)
		if err != nil {
			return nil, -1, err
		}
		name := it.Alias
		if name == "" {
			name = fmt.Sprintf("EXPR$%d", i)
			if id, ok := it.Expr.(*parser.Ident); ok {
				name = id.Parts[len(id.Parts)-1]
			}
		}
		p.Exprs = append(p.Exprs, e)
		p.Out = append(p.Out, types.Field{Name: name, Type: e.Type()})
		out.cols = append(out.cols, column{name: name, typ: e.Type()})
	}
	uniquify(p.Out, out)
	return &relation{node: p, scope: out, win: winThrough(p.Exprs, r.win)}, at, nil
}

// uniquify renames the columns of a select list that repeat an earlier
// one's name as Flink (Calcite's SqlValidatorUtil.uniquify) does: SELECT
// a.uid, b.uid gives uid and uid0, the first of name0, name1, ... not
// taken by a column before it.
func uniquify(fields types.Schema, sc *scope) {
	taken := map[string]bool{}
	for i, f := range fields {
		name := f.Name
		for n := 0; taken[name]; n++ {
			name = fmt.Sprintf("%s%d", f.Name, n)
		}
		taken[name] = true
		fields[i].Name, sc.cols[i].name = name, name
	}
}

// from binds a FROM item.
func (b *binder) from(t parser.TableExpr) (*relation, error) {
	switch t := t.(type) {
	case *parser.TableRef:
		if t.AsOf != nil {
			// A temporal join's right side, bound by temporalJoin.
			return nil, errorf(t.AsOf.Pos(), ErrUnsupported, "FOR SYSTEM_TIME AS OF stands on the right side of a JOIN (a temporal join): FROM orders o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON ...")
		}
		r, err := b.hintedRef(t)
		if err != nil {
			return nil, err
		}
		return requalify(r, t.Alias, identName(t.Name)), nil
	case *parser.Subquery:
		r, err := b.query(t.Query)
		if err != nil {
			return nil, err
		}
		return requalify(r, t.Alias, ""), nil
	case *parser.TableFunc:
		r, err := b.tableFunc(t)
		if err != nil {
			return nil, err
		}
		return requalify(r, t.Alias, ""), nil
	case *parser.Join:
		return b.join(t)
	case *parser.Unnest:
		return nil, errorf(t.Start, ErrUnsupported, "UNNEST stands after CROSS JOIN, or after [LEFT] JOIN with ON TRUE: FROM t CROSS JOIN UNNEST(t.arr) AS u (x)")
	}
	return nil, errorf(t.Pos(), ErrUnsupported, "FROM item %s is not supported", t)
}

func requalify(r *relation, alias, name string) *relation {
	qual := alias
	if qual == "" {
		qual = name
	}
	sc := &scope{cols: append([]column{}, r.scope.cols...)}
	for i := range sc.cols {
		sc.cols[i].qual = qual
	}
	return &relation{node: r.node, scope: sc, tvf: r.tvf, win: r.win, rank: r.rank}
}

// named resolves a name in FROM: a WITH query, a view, then a table.
func (b *binder) named(id *parser.Ident) (*relation, error) {
	name := identName(id)
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if c := b.ctes[i]; strings.EqualFold(c.Name, name) {
			saved := b.ctes
			// A WITH query sees only the ones before it; the capacity
			// limit keeps its own WITH from overwriting the ones after.
			b.ctes = b.ctes[:i:i]
			r, err := b.nested(c.Query, c.Start)
			b.ctes = saved
			if err != nil {
				return nil, err
			}
			return renameColumns(r, c.Columns)
		}
	}
	if v := b.cat.View(name); v != nil {
		saved := b.ctes
		b.ctes = nil
		r, err := b.nested(v.Query, id.Start)
		b.ctes = saved
		if err != nil {
			return nil, err
		}
		return renameColumns(r, identsOf(v.Columns))
	}
	if t := b.cat.Table(name); t != nil {
		return &relation{node: &Scan{Table: t, At: id.Start}, scope: scopeOf(t.Schema, t.Name)}, nil
	}
	return nil, errorf(id.Start, ErrUnknownTable, "unknown table or view '%s'%s", name, b.known())
}

func (b *binder) known() string {
	names := append(b.cat.Tables(), b.cat.Views()...)
	if len(names) == 0 {
		return " (no tables are defined)"
	}
	return " (defined: " + strings.Join(names, ", ") + ")"
}

func (b *binder) nested(q parser.Query, at parser.Pos) (*relation, error) {
	if b.depth > 32 {
		return nil, errorf(at, ErrUnsupported, "views nest more than 32 deep (does a view refer to itself?)")
	}
	b.depth++
	defer func() { b.depth-- }()
	return b.query(q)
}

func identsOf(names []string) []*parser.Ident {
	out := make([]*parser.Ident, len(names))
	for i, n := range names {
		out[i] = &parser.Ident{Parts: []string{n}}
	}
	return out
}

func renameColumns(r *relation, names []*parser.Ident) (*relation, error) {
	if len(names) == 0 {
		return r, nil
	}
	if len(names) != len(r.scope.cols) {
		return nil, errorf(names[0].Start, ErrType, "%d column names given for a query with %d columns", len(names), len(r.scope.cols))
	}
	sc := &scope{cols: append([]column{}, r.scope.cols...)}
	for i, n := range names {
		sc.cols[i].name = n.Parts[len(n.Parts)-1]
	}
	return &relation{node: r.node, scope: sc, tvf: r.tvf, win: r.win, rank: r.rank}, nil
}

// windowArgs are the arguments of each window table function, in order.
var windowArgs = map[string][]string{
	"TUMBLE":   {"DATA", "TIMECOL", "SIZE", "OFFSET"},
	"HOP":      {"DATA", "TIMECOL", "SLIDE", "SIZE", "OFFSET"},
	"CUMULATE": {"DATA", "TIMECOL", "STEP", "SIZE", "OFFSET"},
	"SESSION":  {"DATA", "TIMECOL", "GAP"},
}

// tableFunc binds a window table function: TABLE(TUMBLE(TABLE t,
// DESCRIPTOR(ts), size [, offset])), HOP(..., slide, size [, offset]) or
// CUMULATE(..., step, size [, offset]), or SESSION(TABLE t [PARTITION BY
// keys], DESCRIPTOR(ts), gap).
func (b *binder) tableFunc(t *parser.TableFunc) (*relation, error) {
	order, ok := windowArgs[t.Name]
	if !ok {
		return nil, errorf(t.Start, ErrUnknownFunction, "unknown table function %s", t.Name)
	}
	fn := t.Name
	args := map[string]*parser.TableFuncArg{}
	for i, a := range t.Args {
		name := a.Name
		if name == "" {
			if i >= len(order) {
				return nil, errorf(a.Start, ErrType, "%s takes at most %d arguments", fn, len(order))
			}
			name = order[i]
		}
		if indexOf(order, name) < 0 {
			return nil, errorf(a.Start, ErrType, "%s has no argument %s (arguments: %s)", fn, name, strings.Join(order, ", "))
		}
		args[name] = a
	}
	required := order[:len(order)-1] // all but OFFSET
	if fn == "SESSION" {
		required = order
	}
	for _, n := range required {
		if args[n] == nil {
			return nil, errorf(t.Start, ErrType, "%s needs the %s argument: %s(TABLE t, DESCRIPTOR(time_col), %s)", fn, n, fn, strings.ToLower(strings.Join(required[2:], ", ")))
		}
	}
	data := args["DATA"]
	if data.Table == nil {
		return nil, errorf(data.Start, ErrType, "%s's first argument must be TABLE name", fn)
	}
	in, err := b.named(data.Table)
	if err != nil {
		return nil, err
	}
	if err := in.ranked(); err != nil {
		return nil, err
	}
	in = requalify(in, "", identName(data.Table))
	tc := args["TIMECOL"]
	if len(tc.Descriptor) != 1 {
		return nil, errorf(tc.Start, ErrType, "%s's second argument must be DESCRIPTOR(time_col)", fn)
	}
	col, err := in.scope.resolve(tc.Descriptor[0])
	if err != nil {
		return nil, err
	}
	attr := in.scope.cols[col].typ.Attr
	if attr != types.RowTime && attr != types.ProcTime {
		return nil, errorf(tc.Descriptor[0].Start, ErrType, "window time column '%s' must be a time attribute: declare a WATERMARK for it, or use a PROCTIME() column", in.scope.cols[col].name)
	}
	var slide *parser.TableFuncArg
	if len(order) == 5 {
		slide = args[order[2]]
	}
	var w window.Assigner
	if fn == "SESSION" {
		w, err = sessionOf(args["GAP"])
	} else {
		w, err = windowOf(fn, args["SIZE"], slide, args["OFFSET"])
	}
	if err != nil {
		return nil, err
	}
	var part []int
	if len(data.PartitionBy) > 0 && fn != "SESSION" {
		return nil, errorf(data.PartitionBy[0].Pos(), ErrUnsupported, "PARTITION BY is for SESSION windows only; %s windows do not depend on other rows", fn)
	}
	for _, e := range data.PartitionBy {
		id, ok := e.(*parser.Ident)
		if !ok {
			return nil, errorf(e.Pos(), ErrType, "SESSION's PARTITION BY takes columns of %s", identName(data.Table))
		}
		i, err := in.scope.resolve(id)
		if err != nil {
			return nil, err
		}
		part = append(part, i)
	}
	if attr == types.ProcTime && w.Kind != window.Tumble {
		return nil, errorf(tc.Descriptor[0].Start, ErrUnsupported, "%s over processing time is not supported yet: only TUMBLE windows may use a PROCTIME() column", fn)
	}
	tvf := &WindowTVF{Input: in.node, TimeCol: col, Window: w, Partition: part, At: t.Start}
	if len(part) > 0 {
		tvf.PartitionAt = data.PartitionBy[0].Pos()
	}
	sc := &scope{cols: append([]column{}, in.scope.cols...)}
	for _, f := range windowColumns() {
		sc.cols = append(sc.cols, column{name: f.Name, typ: f.Type})
	}
	n := len(in.scope.cols)
	win := &winCols{start: n, end: n + 1, proc: in.scope.cols[col].typ.Attr == types.ProcTime, tvf: &tvf.Window, session: w.Kind == window.Session}
	return &relation{node: tvf, scope: sc, tvf: tvf, win: win}, nil
}

// windowOf checks the interval arguments of a window and returns its
// assigner: size, for HOP and CUMULATE slide (or step), and an offset,
// each nil if absent (slide and offset may be).
func windowOf(fn string, size, slide, offset *parser.TableFuncArg) (window.Assigner, error) {
	w := window.Assigner{Kind: map[string]window.Kind{"TUMBLE": window.Tumble, "HOP": window.Hop, "CUMULATE": window.Cumulate}[fn]}
	var err error
	if w.Size, err = intervalArg(size, "size"); err != nil {
		return w, err
	}
	if w.Size <= 0 {
		return w, errorf(size.Start, ErrType, "window size must be positive")
	}
	w.Slide = w.Size
	if slide != nil {
		what := map[window.Kind]string{window.Hop: "slide", window.Cumulate: "step"}[w.Kind]
		if w.Slide, err = intervalArg(slide, what); err != nil {
			return w, err
		}
		if w.Slide <= 0 {
			return w, errorf(slide.Start, ErrType, "window %s must be positive", what)
		}
		if w.Size%w.Slide != 0 {
			return w, errorf(size.Start, ErrUnsupported, "%s window size (%s) must be a multiple of its %s (%s), as in Flink", fn,
				types.SQLIntervalDayTime(w.Size), what, types.SQLIntervalDayTime(w.Slide))
		}
	}
	if offset != nil {
		if w.Offset, err = intervalArg(offset, "offset"); err != nil {
			return w, err
		}
	}
	return w, nil
}

// errSessionTVF refuses a window aggregate over a view or subquery of a
// SESSION window TVF: it would group rows by window_end alone, and
// sessions of different keys with one end are different windows.
func errSessionTVF(at parser.Pos) error {
	return errorf(at, ErrUnsupported, "a window aggregate over a view or subquery of a SESSION window TVF is not supported: aggregate right over it, SELECT ... FROM TABLE(SESSION(...)) GROUP BY window_start, window_end[, keys]")
}

// sessionOf checks a SESSION window's gap and returns its assigner.
func sessionOf(gap *parser.TableFuncArg) (window.Assigner, error) {
	ms, err := intervalArg(gap, "gap")
	if err != nil {
		return window.Assigner{}, err
	}
	if ms <= 0 {
		return window.Assigner{}, errorf(gap.Start, ErrType, "session gap must be positive")
	}
	return window.Assigner{Kind: window.Session, Size: ms, Slide: ms}, nil
}

// intervalArg reads a constant day-time interval argument in milliseconds.
func intervalArg(a *parser.TableFuncArg, what string) (int64, error) {
	lit, ok := a.Expr.(*parser.IntervalLit)
	if !ok {
		return 0, errorf(a.Start, ErrType, "window %s must be an INTERVAL literal such as INTERVAL '10' SECOND", what)
	}
	ms, months, err := intervalValue(lit)
	if err != nil {
		return 0, err
	}
	if months != 0 {
		return 0, errorf(a.Start, ErrUnsupported, "window %s must be a day-time interval (SECOND, MINUTE, HOUR, DAY)", what)
	}
	return ms, nil
}
