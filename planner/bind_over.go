package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/over"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// overCalls finds the aggregate calls with OVER in q's select list, each
// once.
func overCalls(q *parser.Select) []*parser.Call {
	var out []*parser.Call
	seen := map[string]bool{}
	for _, it := range q.Items {
		parser.Inspect(it.Expr, func(x parser.Node) bool {
			if _, ok := x.(parser.Query); ok {
				return false
			}
			c, ok := x.(*parser.Call)
			if !ok || !aggregateNames[c.Name] || c.Over == nil {
				return true
			}
			if k := c.String(); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
			return false
		})
	}
	return out
}

// namedWindow returns w, or the window of q's WINDOW clause it names.
func namedWindow(q *parser.Select, w *parser.Window) (*parser.Window, error) {
	if w.Ref == "" {
		return w, nil
	}
	for _, nw := range q.Windows {
		if strings.EqualFold(nw.Name, w.Ref) {
			return nw.Window, nil
		}
	}
	return nil, errorf(w.Start, ErrUnknownColumn, "unknown window '%s': define it in the query's WINDOW clause", w.Ref)
}

// checkWindows checks q's WINDOW clause, whether or not an OVER uses its
// windows, as Flink (Calcite) validates it: each name once, partition and
// order expressions that bind in c, the context of the select list (over
// the FROM, or over an aggregate's keys and results), and a frame strand
// runs.
func checkWindows(q *parser.Select, c *exprCtx) error {
	wc := *c
	wc.clause = "in OVER"
	for i, nw := range q.Windows {
		for _, prev := range q.Windows[:i] {
			if strings.EqualFold(prev.Name, nw.Name) {
				return errorf(nw.Start, ErrType, "window '%s' is defined twice in the WINDOW clause", nw.Name)
			}
		}
		for _, e := range nw.Window.PartitionBy {
			if _, err := bindExpr(&wc, e); err != nil {
				return err
			}
		}
		for _, o := range nw.Window.OrderBy {
			if _, err := bindExpr(&wc, o.Expr); err != nil {
				return err
			}
		}
		if _, _, err := overFrame(nw.Window); err != nil {
			return err
		}
	}
	return nil
}

// overAggregate binds the OVER aggregates of q's select list over from,
// as groupAggregate binds a GROUP BY: it returns the Over's output, whose
// scope is from's columns, and the context that binds the select list
// over it, which reads each OVER aggregate as the Over's column. As in
// Flink, every aggregate of the SELECT must be over the same window, and
// that window must be ordered by an event-time attribute, ascending,
// with a frame that ends at the current row.
func (b *binder) overAggregate(q *parser.Select, from *relation, calls []*parser.Call) (*relation, *exprCtx, error) {
	switch {
	case len(q.GroupBy) > 0:
		return nil, nil, errorf(q.GroupBy[0].Pos(), ErrUnsupported, "OVER aggregates with GROUP BY in one SELECT are not supported: group in a subquery")
	case len(collectAggs(q)) > 0:
		a := collectAggs(q)[0]
		return nil, nil, errorf(a.Start, ErrUnsupported, "aggregate %s without OVER beside OVER aggregates is not supported: aggregate in a subquery", a.Name)
	case q.Distinct:
		return nil, nil, errorf(q.Start, ErrUnsupported, "SELECT DISTINCT with OVER aggregates is not supported: apply DISTINCT in an enclosing query")
	}
	if _, call, _ := rankItem(q.Items); call != nil {
		return nil, nil, errorf(call.Start, ErrUnsupported, "%s() beside OVER aggregates is not supported: number the rows in a subquery", call.Name)
	}
	var win *parser.Window
	var first string
	for _, c := range calls {
		w, err := namedWindow(q, c.Over)
		if err != nil {
			return nil, nil, err
		}
		same, err := windowKey(w)
		if err != nil {
			return nil, nil, err
		}
		if win == nil {
			win, first = w, same
		} else if same != first {
			return nil, nil, errorf(c.Over.Start, ErrUnsupported, "all OVER aggregates of a SELECT must be over the same window, as in Flink: this one is %s, the first %s", w, win)
		}
	}
	// The Over's input: from's columns, then the partition and argument
	// expressions that are not columns of from.
	pre := &Project{Input: from.node}
	for i, col := range from.scope.cols {
		pre.Exprs = append(pre.Exprs, &expr.Col{Index: i, Name: col.name, T: col.typ})
		pre.Out = append(pre.Out, types.Field{Name: col.name, Type: col.typ})
	}
	add := func(e expr.Expr, name string) int {
		if c, ok := e.(*expr.Col); ok {
			return c.Index
		}
		pre.Exprs = append(pre.Exprs, e)
		pre.Out = append(pre.Out, types.Field{Name: name, Type: e.Type()})
		return len(pre.Exprs) - 1
	}
	o := &Over{At: calls[0].Start}
	pc := &exprCtx{scope: from.scope, clause: "in OVER"}
	var err error
	if o.Time, err = overOrder(pc, win, from.scope); err != nil {
		return nil, nil, err
	}
	for i, pe := range win.PartitionBy {
		e, err := bindExpr(pc, pe)
		if err != nil {
			return nil, nil, err
		}
		c := add(e, fmt.Sprintf("$part%d", i))
		if c == o.Time {
			return nil, nil, errorf(pe.Pos(), ErrUnsupported, "an OVER window partitioned by its ORDER BY column is not supported: every partition would be one time")
		}
		// A column named twice partitions once, as the operator's
		// state keys it (exec.RowKey), so the exchange hashes it once.
		if !slices.Contains(o.Partition, c) {
			o.Partition = append(o.Partition, c)
		}
	}
	if o.Rows, o.Preceding, err = overFrame(win); err != nil {
		return nil, nil, err
	}
	argCtx := &exprCtx{scope: from.scope, clause: "inside another aggregate"}
	for i, c := range calls {
		if c.Distinct || c.Filter != nil {
			at := c.Start
			if c.Filter != nil {
				at = c.Filter.Pos()
			}
			return nil, nil, errorf(at, ErrUnsupported, "DISTINCT and FILTER in an OVER aggregate are not supported yet")
		}
		a, err := b.aggCall(argCtx, c, func(e expr.Expr, what string) int { return add(e, fmt.Sprintf("$agg%d_%s", i, what)) })
		if err != nil {
			return nil, nil, err
		}
		o.Aggs = append(o.Aggs, a)
		o.Names = append(o.Names, c.String())
	}
	o.Input = pre
	b.defines(o)
	// Above the Over, from's names read its columns (the further inputs
	// after them have none) and each OVER aggregate its column.
	sc := &scope{cols: from.scope.cols}
	out := &relation{node: o, scope: sc}
	n := len(pre.Exprs)
	schema := o.Schema()
	post := &exprCtx{scope: sc, clause: "here"}
	post.hook = func(e parser.Expr) (expr.Expr, bool, error) {
		c, ok := e.(*parser.Call)
		if !ok || !aggregateNames[c.Name] || c.Over == nil {
			return nil, false, nil
		}
		for i, a := range calls {
			if a.String() == c.String() {
				return &expr.Col{Index: n + i, Name: schema[n+i].Name, T: schema[n+i].Type}, true, nil
			}
		}
		return nil, false, nil
	}
	return out, post, nil
}

// overOrder binds an OVER window's ORDER BY: one event-time attribute of
// sc, ascending.
func overOrder(c *exprCtx, w *parser.Window, sc *scope) (int, error) {
	if len(w.OrderBy) == 0 {
		return -1, errorf(w.Start, ErrUnsupported, "an OVER window needs ORDER BY a time attribute, as in Flink")
	}
	if len(w.OrderBy) > 1 {
		return -1, errorf(w.OrderBy[1].Start, ErrUnsupported, "an OVER window is ordered by one time attribute, as in Flink")
	}
	o := w.OrderBy[0]
	e, err := bindExpr(c, o.Expr)
	if err != nil {
		return -1, err
	}
	col, ok := e.(*expr.Col)
	switch {
	case ok && e.Type().Attr == types.ProcTime:
		return -1, errorf(o.Start, ErrUnsupported, "an OVER window ordered by processing time is not supported yet: order it by an event-time attribute (a column with a WATERMARK)")
	case !ok || e.Type().Attr != types.RowTime:
		return -1, errorf(o.Start, ErrUnsupported, "an OVER window must be ordered by a time attribute, as in Flink; %s is not one", o.Expr)
	case o.Desc:
		return -1, errorf(o.Start, ErrUnsupported, "an OVER window is ordered by time ascending, as in Flink")
	}
	return col.Index, nil
}

// overFrame reads an OVER window's frame: ROWS or RANGE, and how far it
// reaches back (over.Spec.Preceding). Without one, the frame is RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, as in SQL and Flink.
func overFrame(w *parser.Window) (rows bool, preceding int64, err error) {
	f := w.Frame
	if f == nil {
		return false, over.Unbounded, nil
	}
	if hi := f.Hi; hi != nil && hi.Kind != "CURRENT ROW" {
		return false, 0, errorf(hi.Start, ErrUnsupported, "an OVER frame must end at CURRENT ROW, as in Flink (%s is not supported)", hi)
	}
	lo := f.Lo
	switch {
	case lo.Kind == "CURRENT ROW":
		return f.Rows, 0, nil
	case lo.Kind == "FOLLOWING":
		return false, 0, errorf(lo.Start, ErrUnsupported, "an OVER frame must start before the current row, as in Flink (%s is not supported)", lo)
	case lo.Offset == nil:
		return f.Rows, over.Unbounded, nil
	case f.Rows:
		n, ok := count(lo.Offset)
		if !ok || n < 0 {
			return false, 0, errorf(lo.Offset.Pos(), ErrType, "ROWS takes a number of rows, as in ROWS BETWEEN 2 PRECEDING AND CURRENT ROW; got %s", lo.Offset)
		}
		return true, n, nil
	}
	iv, ok := lo.Offset.(*parser.IntervalLit)
	if !ok {
		return false, 0, errorf(lo.Offset.Pos(), ErrUnsupported, "RANGE over a time attribute takes an interval, as in RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW; got %s", lo.Offset)
	}
	ms, months, err := intervalValue(iv)
	if err != nil {
		return false, 0, err
	}
	if months != 0 || ms < 0 {
		return false, 0, errorf(iv.Start, ErrUnsupported, "RANGE takes a day-time interval of zero or more, not %s", iv)
	}
	return false, ms, nil
}

// windowKey is what makes two OVER windows the same: their partitioning,
// order and frame, however the frame is spelt.
func windowKey(w *parser.Window) (string, error) {
	rows, preceding, err := overFrame(w)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range w.PartitionBy {
		b.WriteString(p.String() + ",")
	}
	for _, o := range w.OrderBy {
		b.WriteString(o.String() + ";")
	}
	fmt.Fprintf(&b, "rows=%t preceding=%d", rows, preceding)
	return b.String(), nil
}
