package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// collectAggs finds the aggregate calls of a select list and HAVING, each
// distinct call (by its SQL text) once, in order of appearance.
func collectAggs(q *parser.Select) []*parser.Call {
	var out []*parser.Call
	seen := map[string]bool{}
	visit := func(e parser.Expr) {
		if e == nil {
			return
		}
		parser.Inspect(e, func(x parser.Node) bool {
			if _, ok := x.(parser.Query); ok {
				return false
			}
			c, ok := x.(*parser.Call)
			if !ok || !aggregateNames[c.Name] || c.Over != nil {
				return true
			}
			if k := c.String(); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
			return false
		})
	}
	for _, it := range q.Items {
		visit(it.Expr)
	}
	visit(q.Having)
	return out
}

// groupWindow is the window a GROUP BY groups by.
type groupWindow struct {
	input   *relation // the relation the aggregate reads (below any TVF)
	timeCol int
	w       window.Assigner
	at      parser.Pos // the window's TVF or GROUP BY call
	// legacy names the function of GROUP BY TUMBLE(ts, size) or HOP(ts,
	// slide, size): TUMBLE_START, HOP_END and friends; empty for a TVF.
	legacy string
	// assigned marks rows that carry their window: timeCol is their
	// window_end, from a window TVF through a view or subquery, or a
	// window aggregate or join; input.win has their window columns.
	assigned bool
	// partition are a SESSION TVF's PARTITION BY columns of input, at
	// partitionAt.
	partition   []int
	partitionAt parser.Pos
}

// checkPartition checks a SESSION TVF's PARTITION BY against the GROUP BY
// keys: sessions are computed per group key (as Flink's window aggregate
// does), so PARTITION BY, when given, must name exactly those columns.
func (g *groupWindow) checkPartition(keys []expr.Expr) error {
	if len(g.partition) == 0 {
		return nil
	}
	same := len(keys) == len(g.partition)
	for _, p := range g.partition {
		found := false
		for _, k := range keys {
			if c, ok := k.(*expr.Col); ok && c.Index == p {
				found = true
			}
		}
		same = same && found
	}
	if !same {
		names := []string{"none"}
		if len(keys) > 0 {
			names = names[:0]
		}
		for _, k := range keys {
			names = append(names, k.String())
		}
		return errorf(g.partitionAt, ErrUnsupported, "sessions are computed per group key: PARTITION BY must name the GROUP BY keys besides the window (%s)", strings.Join(names, ", "))
	}
	return nil
}

// aggregate binds a GROUP BY query up to its select list: it returns the
// window aggregate's output (filtered by HAVING) and the context that binds
// the select list over it. Only window aggregates are supported: GROUP BY
// window_start, window_end of a window TVF, or GROUP BY TUMBLE(ts, size).
func (b *binder) aggregate(q *parser.Select, from *relation, calls []*parser.Call) (*relation, *exprCtx, error) {
	inCtx := &exprCtx{scope: from.scope, clause: "in GROUP BY"}
	if err := windowInGrouping(q.GroupBy, from); err != nil {
		return nil, nil, err
	}
	var win *groupWindow
	var keyASTs []parser.Expr
	windowCols := map[string]bool{}
	for _, g := range q.GroupBy {
		if c, ok := g.(*parser.Call); ok && (c.Name == "TUMBLE" || c.Name == "HOP" || c.Name == "SESSION" || c.Name == "CUMULATE") {
			if win != nil {
				return nil, nil, errorf(c.Start, ErrUnsupported, "only one window may be grouped by")
			}
			w, err := legacyWindow(from, c)
			if err != nil {
				return nil, nil, err
			}
			win = w
			continue
		}
		if id, ok := g.(*parser.Ident); ok && from.tvf != nil {
			if i, err := from.scope.resolve(id); err == nil && i >= len(from.tvf.Input.Schema()) {
				windowCols[from.scope.cols[i].name] = true
				continue
			}
		}
		if id, ok := g.(*parser.Ident); ok && from.tvf == nil && from.win != nil && from.win.tvf != nil {
			if i, err := from.scope.resolve(id); err == nil && (from.win.isStart(i) || from.win.isEnd(i)) {
				windowCols[map[bool]string{true: "window_start", false: "window_end"}[from.win.isStart(i)]] = true
				continue
			}
		}
		keyASTs = append(keyASTs, g)
	}
	if from.tvf != nil && win == nil {
		if !windowCols["window_start"] || !windowCols["window_end"] {
			return nil, nil, errorf(groupByAt(q, calls), ErrUnsupported, "a window aggregate must GROUP BY both window_start and window_end (and may add keys): GROUP BY window_start, window_end[, keys]")
		}
		inScope := &scope{cols: from.scope.cols[:len(from.tvf.Input.Schema())]}
		win = &groupWindow{input: &relation{node: from.tvf.Input, scope: inScope}, timeCol: from.tvf.TimeCol, w: from.tvf.Window, at: from.tvf.At}
		if from.tvf.Window.Kind == window.Session {
			win.partition, win.partitionAt = from.tvf.Partition, from.tvf.PartitionAt
		}
	}
	if win == nil && from.win != nil && from.win.agg && windowCols["window_start"] != windowCols["window_end"] {
		// One window column of a window aggregate's rows is a plain
		// key: a group aggregate, as in Flink.
		keyASTs, windowCols = q.GroupBy, nil
	}
	if win == nil && windowCols["window_start"] && windowCols["window_end"] {
		if from.win.session {
			return nil, nil, errSessionTVF(groupByAt(q, calls))
		}
		if from.win.proc {
			return nil, nil, errorf(groupByAt(q, calls), ErrUnsupported, "a window aggregate over a view or subquery of a processing-time window TVF is not supported yet: aggregate right over the TVF")
		}
		win = &groupWindow{input: from, timeCol: from.win.end, w: *from.win.tvf, assigned: true, at: groupByAt(q, calls)}
	} else if win == nil && (windowCols["window_start"] || windowCols["window_end"]) {
		return nil, nil, errorf(groupByAt(q, calls), ErrUnsupported, "a window aggregate must GROUP BY both window_start and window_end (and may add keys): GROUP BY window_start, window_end[, keys]")
	}
	if win == nil {
		return b.groupAggregate(q, from, calls)
	}
	if i := slices.IndexFunc(keyASTs, isGroupingElement); i >= 0 && win.legacy != "" {
		return nil, nil, errorf(keyASTs[i].Pos(), ErrUnsupported, "GROUPING SETS, ROLLUP and CUBE do not go with GROUP BY %s(...), as in Flink: group by the window_start and window_end of a window TVF instead", win.legacy)
	}
	inCtx.scope = win.input.scope
	gs, err := groupingOf(keyASTs, win.input.scope)
	if err != nil {
		return nil, nil, err
	}
	keyASTs = gs.keys
	if gs.ids != nil && len(win.partition) > 0 {
		return nil, nil, errorf(win.partitionAt, ErrUnsupported, "sessions are computed per group key, which differs between grouping sets: a SESSION window with GROUPING SETS, ROLLUP or CUBE takes no PARTITION BY")
	}

	// Pre-projection: time column, keys, aggregate arguments and filters.
	// A processing-time window reads the clock, not its PROCTIME() column,
	// so that column is not computed and shipped.
	pre := &Project{Input: win.input.node}
	add := func(e expr.Expr, name string) int {
		pre.Exprs = append(pre.Exprs, e)
		pre.Out = append(pre.Out, types.Field{Name: name, Type: e.Type()})
		return len(pre.Exprs) - 1
	}
	tc := win.input.scope.cols[win.timeCol]
	agg := &WindowAgg{TimeCol: -1, ProcTime: tc.name, Window: win.w, Assigned: win.assigned, At: win.at}
	if tc.typ.Attr != types.ProcTime {
		agg.TimeCol, agg.ProcTime = add(&expr.Col{Index: win.timeCol, Name: tc.name, T: tc.typ}, tc.name), ""
	}
	var keys []expr.Expr
	for i, k := range keyASTs {
		e, err := bindExpr(inCtx, k)
		if err != nil {
			return nil, nil, err
		}
		name := fmt.Sprintf("$key%d", i)
		if id, ok := k.(*parser.Ident); ok {
			name = id.Parts[len(id.Parts)-1]
		}
		keys = append(keys, e)
		agg.Keys = append(agg.Keys, add(e, name))
	}
	if err := win.checkPartition(keys); err != nil {
		return nil, nil, err
	}
	argCtx := &exprCtx{scope: win.input.scope, clause: "inside another aggregate"}
	for i, c := range calls {
		a, err := b.aggCall(argCtx, c, func(e expr.Expr, what string) int { return add(e, fmt.Sprintf("$agg%d_%s", i, what)) })
		if err != nil {
			return nil, nil, err
		}
		agg.Aggs = append(agg.Aggs, a)
		agg.Names = append(agg.Names, c.String())
	}
	agg.Input = pre
	if gs.ids != nil {
		agg.Input = &Expand{Input: pre, Keys: slices.Clone(agg.Keys), IDs: gs.ids}
		agg.Keys = append(agg.Keys, len(pre.Out))
	}
	b.defines(agg)
	spec := window.Spec{In: agg.Input.Schema(), Keys: agg.Keys, Aggs: agg.Aggs}
	agg.out = spec.Out()
	out := &relation{node: agg, scope: scopeOf(agg.out, ""), win: &winCols{start: len(agg.Keys), end: len(agg.Keys) + 1, proc: agg.TimeCol < 0, session: win.w.Kind == window.Session}}
	if agg.TimeCol >= 0 && win.w.Kind != window.Session {
		// Its rows are of its windows: a GROUP BY of both window columns
		// over them is a window aggregate of the same windows (Flink's
		// cascading window aggregate), whose rows come with their window.
		out.win.tvf, out.win.agg = &agg.Window, true
	}

	// Above the aggregate, names resolve to keys, window columns and
	// aggregate results only.
	nk := len(agg.Keys)
	eCol := expandID(agg.out, out.scope, gs, len(keyASTs))
	post := &exprCtx{scope: out.scope, clause: "here"}
	post.hook = func(e parser.Expr) (expr.Expr, bool, error) {
		col := func(i int) (expr.Expr, bool, error) {
			return &expr.Col{Index: i, Name: agg.out[i].Name, T: agg.out[i].Type}, true, nil
		}
		if c, ok := e.(*parser.Call); ok {
			if aggregateNames[c.Name] && c.Over == nil {
				for i, a := range calls {
					if a.String() == c.String() {
						return col(nk + 2 + i)
					}
				}
			}
			if out, ok, err := gs.call(c, win.input.scope, eCol); ok || err != nil {
				return out, ok, err
			}
			if fn, aux, ok := strings.Cut(c.Name, "_"); ok && fn == win.legacy && windowAuxNames[c.Name] {
				// As in Flink (Calcite), an auxiliary function names the
				// window grouped by: its arguments must denote it.
				w, err := legacyWindow(win.input, &parser.Call{Start: c.Start, Name: fn, Args: c.Args})
				if err != nil {
					return nil, true, err
				}
				if w.timeCol != win.timeCol || w.w != win.w {
					return nil, true, errorf(c.Start, ErrType, "%s must have the arguments of the GROUP BY %s(...) window", c.Name, fn)
				}
				switch aux {
				case "START":
					return col(nk)
				case "END":
					return col(nk + 1)
				case "ROWTIME":
					return windowTime(nk), true, nil
				}
			}
		}
		for i, k := range keyASTs {
			if sameKey(win.input.scope, k, e) {
				return col(i)
			}
		}
		if id, ok := e.(*parser.Ident); ok {
			if win.assigned {
				if i, err := from.scope.resolve(id); err == nil && (from.win.isStart(i) || from.win.isEnd(i)) {
					return col(nk + map[bool]int{true: 0, false: 1}[from.win.isStart(i)])
				}
			}
			if from.tvf != nil && win.input.scope != nil {
				if i, err := from.scope.resolve(id); err == nil && i >= len(from.tvf.Input.Schema()) {
					switch from.scope.cols[i].name {
					case "window_start":
						return col(nk)
					case "window_end":
						return col(nk + 1)
					case "window_time":
						return windowTime(nk), true, nil
					}
				}
			}
			if err := resolvable(win.input.scope, id); err != nil {
				return nil, true, err
			}
			return nil, true, errorf(id.Start, ErrType, "column '%s' is neither grouped nor aggregated", strings.Join(id.Parts, "."))
		}
		return nil, false, nil
	}
	if q.Having != nil {
		post.clause = "in HAVING"
		cond, err := bindExpr(post, q.Having)
		if err != nil {
			return nil, nil, err
		}
		if err := want(q.Having, cond, types.Boolean); err != nil {
			return nil, nil, err
		}
		out = &relation{node: &Filter{Input: out.node, Cond: cond}, scope: out.scope, win: out.win}
	}
	post.clause = "inside another aggregate"
	return out, post, nil
}

// expandID is the $e column of an aggregate's output out, where the keys
// end, or nil without grouping sets. It hides the column in sc, the
// scope of the output.
func expandID(out types.Schema, sc *scope, gs *grouping, at int) expr.Expr {
	if gs.ids == nil {
		return nil
	}
	sc.cols[at].hidden = true
	return &expr.Col{Index: at, Name: out[at].Name, T: out[at].Type}
}

// windowInGrouping refuses a window in GROUPING SETS, ROLLUP, CUBE or a
// list of GROUP BY: as in Flink, the window is grouped by directly
// (window_start and window_end of a window TVF, or TUMBLE(...)), and the
// grouping sets are of the other keys. A window aggregate's or window
// join's rows are another matter: a window column of theirs in a grouping
// set is a plain key of a group aggregate, as in Flink (its Expand leaves
// the column NULL in some sets, so no longer a window's).
func windowInGrouping(items []parser.Expr, from *relation) error {
	for _, it := range items {
		if !isGroupingElement(it) {
			continue
		}
		err := groupingLeaves(it, func(e parser.Expr) error {
			if c, ok := e.(*parser.Call); ok && (c.Name == "TUMBLE" || c.Name == "HOP" || c.Name == "SESSION" || c.Name == "CUMULATE") {
				return errorf(c.Start, ErrUnsupported, "a window may not stand in GROUPING SETS, ROLLUP, CUBE or a parenthesised list: group by it directly")
			}
			id, ok := e.(*parser.Ident)
			if !ok {
				return nil
			}
			i, err := from.scope.resolve(id)
			if err != nil {
				return nil
			}
			tvfCol := from.tvf != nil && i >= len(from.tvf.Input.Schema())
			viewCol := from.tvf == nil && from.win != nil && from.win.tvf != nil && !from.win.agg && (from.win.isStart(i) || from.win.isEnd(i))
			if tvfCol || viewCol {
				return errorf(id.Start, ErrUnsupported, "%s may not stand in GROUPING SETS, ROLLUP, CUBE or a parenthesised list: as in Flink, a window aggregate groups by window_start and window_end directly, and the grouping sets are of its other keys", from.scope.cols[i].name)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// groupByAt is where a GROUP BY's error points: its first item, or the
// first aggregate of a query without GROUP BY.
func groupByAt(q *parser.Select, calls []*parser.Call) parser.Pos {
	switch {
	case len(q.GroupBy) > 0:
		return q.GroupBy[0].Pos()
	case len(calls) > 0:
		return calls[0].Start
	}
	return q.Start
}

// windowTime is window_end - 1 ms, the window's rowtime.
func windowTime(nk int) expr.Expr {
	end := &expr.Col{Index: nk + 1, Name: "window_end", T: types.TTimestamp.WithNotNull(true)}
	t := types.TTimestamp.WithNotNull(true)
	t.Attr = types.RowTime
	return call(expr.SubInterval, t, end, &expr.Lit{V: types.IntValue(types.TIntervalDT, 1)})
}

// sameKey reports whether e is the group key k: the same column, or the
// same expression text.
func sameKey(sc *scope, k, e parser.Expr) bool {
	ki, kok := k.(*parser.Ident)
	ei, eok := e.(*parser.Ident)
	if kok && eok {
		a, err1 := sc.resolve(ki)
		b, err2 := sc.resolve(ei)
		if err1 == nil && err2 == nil {
			return a == b
		}
	}
	return k.String() == e.String()
}

// legacyWindow binds GROUP BY TUMBLE(ts, size [, offset]), GROUP BY
// HOP(ts, slide, size [, offset]) and GROUP BY SESSION(ts, gap).
func legacyWindow(from *relation, c *parser.Call) (*groupWindow, error) {
	nargs := map[string]int{"TUMBLE": 2, "HOP": 3, "SESSION": 2}[c.Name]
	optional := map[string]int{"TUMBLE": 1, "HOP": 1}[c.Name]
	switch {
	case nargs == 0:
		return nil, errorf(c.Start, ErrUnsupported, "GROUP BY %s(...) is not supported yet; supported: GROUP BY TUMBLE(time_col, size), HOP(time_col, slide, size) or SESSION(time_col, gap), or TABLE(TUMBLE|HOP|CUMULATE|SESSION(...))", c.Name)
	case len(c.Args) < nargs || len(c.Args) > nargs+optional:
		form := map[string]string{"TUMBLE": "(time_col, INTERVAL size [, INTERVAL offset])", "HOP": "(time_col, INTERVAL slide, INTERVAL size [, INTERVAL offset])", "SESSION": "(time_col, INTERVAL gap)"}[c.Name]
		return nil, errorf(c.Start, ErrType, "%s takes %s", c.Name, form)
	}
	id, ok := c.Args[0].(*parser.Ident)
	if !ok {
		return nil, errorf(c.Args[0].Pos(), ErrType, "%s's first argument must be a time attribute column", c.Name)
	}
	col, err := from.scope.resolve(id)
	if err != nil {
		return nil, err
	}
	if a := from.scope.cols[col].typ.Attr; a != types.RowTime && a != types.ProcTime {
		return nil, errorf(id.Start, ErrType, "window time column '%s' must be a time attribute: declare a WATERMARK for it, or use a PROCTIME() column", from.scope.cols[col].name)
	}
	arg := func(i int) *parser.TableFuncArg {
		if i >= len(c.Args) {
			return nil
		}
		return &parser.TableFuncArg{Start: c.Args[i].Pos(), Expr: c.Args[i]}
	}
	var w window.Assigner
	switch c.Name {
	case "HOP":
		w, err = windowOf(c.Name, arg(2), arg(1), arg(3))
	case "SESSION":
		w, err = sessionOf(arg(1))
	default:
		w, err = windowOf(c.Name, arg(1), nil, arg(2))
	}
	if err != nil {
		return nil, err
	}
	if w.Kind != window.Tumble && from.scope.cols[col].typ.Attr == types.ProcTime {
		return nil, errorf(id.Start, ErrUnsupported, "%s over processing time is not supported yet: only TUMBLE windows may use a PROCTIME() column", c.Name)
	}
	return &groupWindow{input: from, timeCol: col, w: w, legacy: c.Name, at: c.Start}, nil
}

// aggCall binds one aggregate call; add places an argument or filter
// expression in the pre-projection and returns its column.
func (b *binder) aggCall(c *exprCtx, call *parser.Call, add func(expr.Expr, string) int) (agg.Call, error) {
	a := agg.Call{Arg: -1, Filter: -1, Distinct: call.Distinct, Name: call.String()}
	kinds := map[string]agg.Kind{"COUNT": agg.Count, "SUM": agg.Sum, "MIN": agg.Min, "MAX": agg.Max, "AVG": agg.Avg}
	a.Kind = kinds[call.Name]
	var in types.Type
	switch {
	case call.Star:
		if call.Name != "COUNT" {
			return a, errorf(call.Start, ErrType, "%s(*) is not allowed; only COUNT(*)", call.Name)
		}
		a.Kind = agg.CountStar
	case len(call.Args) != 1:
		return a, errorf(call.Start, ErrType, "%s takes one argument", call.Name)
	default:
		var nested *parser.Call
		parser.Inspect(call.Args[0], func(x parser.Node) bool {
			if _, ok := x.(parser.Query); ok {
				return false
			}
			if cc, ok := x.(*parser.Call); ok && aggregateNames[cc.Name] && nested == nil {
				nested = cc
			}
			return nested == nil
		})
		if nested != nil {
			return a, errorf(nested.Start, ErrUnsupported, "aggregate function %s is not allowed inside another aggregate", nested.Name)
		}
		e, err := bindExpr(c, call.Args[0])
		if err != nil {
			return a, err
		}
		if e.Type().Kind == types.Null {
			return a, errorf(call.Args[0].Pos(), ErrType, "%s of an untyped NULL: CAST it to a type", call.Name)
		}
		in = e.Type()
		a.Arg = add(e, "arg")
	}
	var err error
	if a.Out, err = agg.ResultType(a.Kind, in); err != nil {
		return a, errorf(call.Start, ErrType, "%s", err)
	}
	if call.Filter != nil {
		f, err := bindExpr(&exprCtx{scope: c.scope, clause: "in FILTER"}, call.Filter)
		if err != nil {
			return a, err
		}
		if err := want(call.Filter, f, types.Boolean); err != nil {
			return a, err
		}
		a.Filter = add(f, "filter")
	}
	return a, nil
}
