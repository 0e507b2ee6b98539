package planner

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/rank"
	"github.com/strandsql/strand/types"
)

// pendingRank marks a relation whose ROW_NUMBER() column still needs the
// bound (WHERE rownum <= N) that makes it a Top-N.
type pendingRank struct {
	col int        // the rownum column
	at  parser.Pos // the ROW_NUMBER call
	fn  string     // its name: ROW_NUMBER, RANK or DENSE_RANK
	// window marks a window Top-N (a TopN), else it is a Rank.
	window bool
}

// ranked fails when r numbers rows with ROW_NUMBER() and nothing bounds
// the numbers: strand computes ROW_NUMBER() only as a Top-N.
func (r *relation) ranked() error {
	if r.rank == nil {
		return nil
	}
	if !r.rank.window && r.rank.fn != "ROW_NUMBER" {
		return errorf(r.rank.at, ErrUnsupported, "%s() needs the enclosing query to bound it: WHERE rownum <= N (a Top-N)", r.rank.fn)
	}
	if !r.rank.window {
		return errorf(r.rank.at, ErrUnsupported, "%s() needs the enclosing query to bound it: WHERE rownum <= N (a Top-N), or rownum = 1 (a deduplication)", r.rank.fn)
	}
	return errorf(r.rank.at, ErrUnsupported, "%s() needs the enclosing query to keep the first rows: WHERE rownum <= N (window Top-N)", r.rank.fn)
}

// statement binds the query of a statement that runs: no enclosing query
// can bound its ROW_NUMBER(), as one may a view's.
func (b *binder) statement(q parser.Query) (*relation, error) {
	r, err := b.query(q)
	if err != nil {
		return nil, err
	}
	return r, r.ranked()
}

// rankNames are the ranking functions.
var rankNames = map[string]rank.Func{"ROW_NUMBER": rank.RowNumber, "RANK": rank.Rank, "DENSE_RANK": rank.DenseRank}

// rankItem finds the select item that is a ROW_NUMBER(), RANK() or
// DENSE_RANK() OVER (...) call.
func rankItem(items []*parser.SelectItem) (int, *parser.Call, error) {
	k, found := -1, (*parser.Call)(nil)
	for i, it := range items {
		c, ok := it.Expr.(*parser.Call)
		if !ok || c.Over == nil || !isRankName(c.Name) {
			continue
		}
		if found != nil {
			return -1, nil, errorf(c.Start, ErrUnsupported, "only one ranking function (ROW_NUMBER, RANK, DENSE_RANK) per query is supported")
		}
		k, found = i, c
	}
	return k, found, nil
}

// orderExpr is a bound ORDER BY item.
type orderExpr struct {
	e               expr.Expr
	desc, nullsLast bool
}

// bindOrder binds an ORDER BY item.
func bindOrder(c *exprCtx, o *parser.OrderItem) (orderExpr, error) {
	e, err := bindExpr(c, o.Expr)
	if err != nil {
		return orderExpr{}, err
	}
	return orderBy(o, e), nil
}

// orderBy orders by e as o says. NULLs are smallest, as in Flink: first
// in ascending order and last in descending order, unless NULLS FIRST or
// LAST says otherwise.
func orderBy(o *parser.OrderItem, e expr.Expr) orderExpr {
	last := o.Desc
	switch o.Nulls {
	case "FIRST":
		last = false
	case "LAST":
		last = true
	}
	return orderExpr{e: e, desc: o.Desc, nullsLast: last}
}

// windowed checks that base has window columns a Top-N can partition by.
func windowed(base *relation, at parser.Pos, what string) error {
	w := base.win
	if w == nil {
		return errorf(at, ErrUnsupported, "%s", what)
	}
	if w.end < 0 {
		return errorf(at, ErrUnsupported, "%s; select window_end where the window is computed", what)
	}
	if w.proc {
		return errorf(at, ErrUnsupported, "a Top-N over a processing-time window is not supported yet (as in Flink): a window Top-N ranks the rows of event-time TUMBLE, HOP, CUMULATE and SESSION windows")
	}
	return nil
}

// rowNumber binds a select list whose item k is ROW_NUMBER() OVER
// (PARTITION BY ... ORDER BY ...) over the rest of the list, numbering
// rows, whose bound comes from the enclosing query's WHERE (rankWhere):
// a window TopN when the partition has window_start and window_end, else
// a Rank.
func (b *binder) rowNumber(q *parser.Select, base *relation, c *exprCtx, k int, call *parser.Call) (*relation, error) {
	w, err := namedWindow(q, call.Over)
	if err != nil {
		return nil, err
	}
	switch {
	case len(call.Args) > 0 || call.Star || call.Distinct:
		return nil, errorf(call.Start, ErrType, "%s takes no arguments", call.Name)
	case call.Filter != nil:
		return nil, errorf(call.Filter.Pos(), ErrUnsupported, "%s() takes no FILTER", call.Name)
	case w.Frame != nil:
		return nil, errorf(w.Frame.Start, ErrUnsupported, "%s() takes no window frame", call.Name)
	case len(q.OrderBy) > 0:
		return nil, errorf(q.OrderBy[0].Start, ErrUnsupported, "ORDER BY in the query of a %s() is not supported: order the rows in its OVER clause", call.Name)
	case q.Limit != nil:
		return nil, errorf(q.Limit.Pos(), ErrUnsupported, "LIMIT in the query of a %s() is not supported: bound rownum in the enclosing query", call.Name)
	}
	pc := &exprCtx{scope: c.scope, hook: c.hook, clause: "in OVER"}
	var all []expr.Expr
	for _, pe := range w.PartitionBy {
		e, err := bindExpr(pc, pe)
		if err != nil {
			return nil, err
		}
		all = append(all, e)
	}
	// PARTITION BY window_start, window_end (and more) is a window Top-N,
	// whose rows are final when their window fires; any other
	// partitioning is a Top-N of the stream, whose rows change as rows
	// come.
	has := func(is func(int) bool) bool {
		return slices.ContainsFunc(all, func(e expr.Expr) bool { c, ok := e.(*expr.Col); return ok && is(c.Index) })
	}
	part := all
	windowTopN := base.win != nil && has(base.win.isStart) && has(base.win.isEnd)
	if windowTopN {
		if call.Name != "ROW_NUMBER" {
			// As Flink's StreamExecWindowRank.
			return nil, errorf(call.Start, ErrUnsupported, "%s() is not supported in a window Top-N, as in Flink: only ROW_NUMBER() is (RANK and DENSE_RANK are, outside windows)", call.Name)
		}
		if err := windowed(base, call.Start, "a window Top-N needs window_end"); err != nil {
			return nil, err
		}
		// window_end is the Top-N's window; a fixed window's start follows
		// from it, a session's does not: sessions of one end with other
		// starts are other windows.
		part = slices.DeleteFunc(slices.Clone(all), func(e expr.Expr) bool {
			c, ok := e.(*expr.Col)
			return ok && (c.Index == base.win.end || c.Index == base.win.start && !base.win.session)
		})
	}
	if len(w.OrderBy) == 0 {
		return nil, errorf(w.Start, ErrUnsupported, "%s() needs ORDER BY in its OVER clause", call.Name)
	}
	var order []orderExpr
	for _, o := range w.OrderBy {
		oe, err := bindOrder(pc, o)
		if err != nil {
			return nil, err
		}
		order = append(order, oe)
	}
	r, at, err := b.projectExcept(q.Items, base, c, k)
	if err != nil {
		return nil, err
	}
	name := q.Items[k].Alias
	if name == "" {
		name = fmt.Sprintf("EXPR$%d", k)
	}
	var numbered Node
	var p *Project
	if windowTopN {
		var t *TopN
		t, p = topN(r.node.(*Project), base, part, order)
		t.RowNum, t.RowName = true, name
		numbered = t
	} else {
		var rk *Rank
		rk, p = rankOf(r.node.(*Project), part, order)
		rk.RowNum, rk.RowName, rk.At, rk.Func = true, name, call.Start, rankNames[call.Name]
		numbered = rk
	}
	// The rows as selected: rownum at its item's place, without the
	// columns the ranking alone needs.
	top := &Project{Input: numbered}
	add := func(i int, f types.Field) {
		top.Exprs = append(top.Exprs, &expr.Col{Index: i, Name: f.Name, T: f.Type})
		top.Out = append(top.Out, f)
	}
	rn := types.Field{Name: name, Type: types.TBigInt.WithNotNull(true)}
	for i := range r.scope.cols {
		if i == at {
			add(len(p.Exprs), rn)
		}
		add(i, p.Out[i])
	}
	if at == len(r.scope.cols) {
		add(len(p.Exprs), rn)
	}
	sc := &scope{}
	for _, f := range top.Out {
		sc.cols = append(sc.cols, column{name: f.Name, typ: f.Type})
	}
	return &relation{node: top, scope: sc, win: winThrough(top.Exprs, winThrough(p.Exprs, base.win)), rank: &pendingRank{col: at, at: call.Start, fn: call.Name, window: windowTopN}}, nil
}

// extend copies p, a projection, and returns it with a function that
// finds the column computing e in it, adding one named name if there is
// none: the columns a ranking needs that the select list does not have.
func extend(p *Project) (*Project, func(e expr.Expr, name string) int) {
	p = &Project{Input: p.Input, Exprs: append([]expr.Expr{}, p.Exprs...), Out: append(types.Schema{}, p.Out...)}
	return p, func(e expr.Expr, name string) int {
		for i, x := range p.Exprs {
			if x.String() == e.String() {
				return i
			}
		}
		p.Exprs = append(p.Exprs, e)
		p.Out = append(p.Out, types.Field{Name: name, Type: e.Type()})
		return len(p.Exprs) - 1
	}
}

// topN builds a TopN over p, a projection of base, extending p with the
// columns it needs that p does not compute: window_end, and the partition
// and order expressions. It returns the TopN and its input.
func topN(p *Project, base *relation, part []expr.Expr, order []orderExpr) (*TopN, *Project) {
	p, col := extend(p)
	in := base.scope.cols[base.win.end]
	t := &TopN{WindowEnd: col(&expr.Col{Index: base.win.end, Name: in.name, T: in.typ}, "$window_end")}
	for i, e := range part {
		t.Partition = append(t.Partition, col(e, fmt.Sprintf("$part%d", i)))
	}
	for i, o := range order {
		t.Order = append(t.Order, OrderKey{Col: col(o.e, fmt.Sprintf("$order%d", i)), Desc: o.desc, NullsLast: o.nullsLast})
	}
	t.Input = p
	return t, p
}

// rankOf builds a Rank over p as topN builds a TopN, without windows.
// A column named twice in PARTITION BY partitions once.
func rankOf(p *Project, part []expr.Expr, order []orderExpr) (*Rank, *Project) {
	p, col := extend(p)
	r := &Rank{Start: 1}
	for i, e := range part {
		if c := col(e, fmt.Sprintf("$part%d", i)); !slices.Contains(r.Partition, c) {
			r.Partition = append(r.Partition, c)
		}
	}
	for i, o := range order {
		r.Order = append(r.Order, OrderKey{Col: col(o.e, fmt.Sprintf("$order%d", i)), Desc: o.desc, NullsLast: o.nullsLast})
	}
	r.Input = p
	return r, p
}

// orderLimit binds ORDER BY ... LIMIT n of a windowed query, strand's
// spelling of a window Top-N: each window's rows in order, the first n of
// them. r is the query's select list over base. ORDER BY names a selected
// column (by name or position) or an expression over base.
func (b *binder) orderLimit(q *parser.Select, base *relation, c *exprCtx, r *relation) (*relation, error) {
	if len(q.OrderBy) > 0 {
		if err := windowed(base, q.OrderBy[0].Start, "ORDER BY on a stream is supported only per window: it sorts the rows of each window of a window aggregate or a window TVF"); err != nil {
			return nil, err
		}
	} else if err := windowed(base, q.Limit.Pos(), "LIMIT on a stream is supported only per window: it keeps the first rows of each window of a window aggregate or a window TVF"); err != nil {
		return nil, err
	}
	var limit int64
	if q.Limit != nil {
		v, ok := count(q.Limit)
		if !ok || v <= 0 {
			return nil, errorf(q.Limit.Pos(), ErrType, "LIMIT must be a positive integer, got %s", q.Limit)
		}
		limit = v
	}
	p := r.node.(*Project)
	oc := &exprCtx{scope: c.scope, hook: c.hook, clause: "in ORDER BY"}
	var order []orderExpr
	for _, o := range q.OrderBy {
		i, err := selected(r.scope, o.Expr)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			oe, err := bindOrder(oc, o)
			if err != nil {
				return nil, err
			}
			order = append(order, oe)
			continue
		}
		// A selected column: sort by the expression that computes it.
		order = append(order, orderBy(o, p.Exprs[i]))
	}
	var part []expr.Expr
	if base.win.session {
		if base.win.start < 0 {
			at := q.Start
			if len(q.OrderBy) > 0 {
				at = q.OrderBy[0].Start
			} else if q.Limit != nil {
				at = q.Limit.Pos()
			}
			return nil, errorf(at, ErrUnsupported, "ORDER BY ... LIMIT over SESSION windows needs window_start where the window is computed: sessions of one end with other starts are other windows")
		}
		in := base.scope.cols[base.win.start]
		part = []expr.Expr{&expr.Col{Index: base.win.start, Name: in.name, T: in.typ}}
	}
	t, tp := topN(p, base, part, order)
	t.Limit = limit
	b.defines(t)
	var node Node = t
	if len(tp.Exprs) > len(p.Exprs) {
		top := &Project{Input: t, Out: p.Out}
		for i, f := range p.Out {
			top.Exprs = append(top.Exprs, &expr.Col{Index: i, Name: f.Name, T: f.Type})
		}
		node = top
	}
	return &relation{node: node, scope: r.scope, win: r.win}, nil
}

// count reads a number of rows, an integer literal. One beyond BIGINT is
// read as the largest BIGINT: no window has more rows, so it keeps them
// all, rather than being refused as not an integer.
func count(e parser.Expr) (int64, bool) {
	n, ok := e.(*parser.NumberLit)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(n.Text, 10, 64)
	if errors.Is(err, strconv.ErrRange) && v > 0 {
		return v, true
	}
	return v, err == nil
}

// selected returns the select-list column an ORDER BY item names: a
// position (ORDER BY 2) or an output name, or -1 when it names none.
func selected(out *scope, e parser.Expr) (int, error) {
	switch e := e.(type) {
	case *parser.NumberLit:
		n, err := strconv.Atoi(e.Text)
		if err != nil || n < 1 || n > len(out.cols) {
			return -1, errorf(e.Start, ErrType, "ORDER BY position %s is not in the select list (1..%d)", e.Text, len(out.cols))
		}
		return n - 1, nil
	case *parser.Ident:
		if len(e.Parts) != 1 {
			return -1, nil
		}
		for _, fold := range []bool{false, true} {
			hit := -1
			for i, c := range out.cols {
				if c.name == e.Parts[0] || fold && strings.EqualFold(c.name, e.Parts[0]) {
					if hit >= 0 {
						return -1, errorf(e.Start, ErrUnknownColumn, "ORDER BY column '%s' is ambiguous", e.Parts[0])
					}
					hit = i
				}
			}
			if hit >= 0 {
				return hit, nil
			}
		}
	}
	return -1, nil
}

// rankWhere binds the WHERE over a relation that numbers rows: its
// conjuncts that bound rownum (rownum <= N, rownum < N, rownum = 1,
// N >= rownum; outside windows also rownum >= M, rownum > M, rownum = N
// and rownum BETWEEN M AND N) become the ranking's range, and the other
// conjuncts filter the numbered rows.
func (b *binder) rankWhere(r *relation, cond parser.Expr) (*relation, error) {
	var rest []parser.Expr
	lo, hi := int64(1), int64(-1)
	var at parser.Expr // the last bound, for an empty range
	for _, x := range conjuncts(cond, nil) {
		l, h, ok, err := rownumBound(r, x)
		if err != nil {
			return nil, err
		}
		if !ok {
			rest = append(rest, x)
			continue
		}
		at, lo = x, max(lo, l)
		if h > 0 && (hi < 0 || h < hi) {
			hi = h
		}
	}
	if hi < 0 {
		if at != nil {
			return nil, errorf(at.Pos(), ErrUnsupported, "a Top-N keeps the first rows of each partition: bound rownum from above too, as in rownum BETWEEN %d AND N", lo)
		}
		return nil, r.ranked()
	}
	if lo > hi {
		return nil, errorf(at.Pos(), ErrType, "rownum from %d to %d keeps no rows", lo, hi)
	}
	top := r.node.(*Project)
	var n Node
	switch in := top.Input.(type) {
	case *TopN:
		t := *in
		t.Limit = hi
		n = &t
	case *Rank:
		rk := *in
		rk.Start, rk.End = lo, hi
		n = &rk
	}
	b.defines(n)
	out := &relation{node: &Project{Input: n, Exprs: top.Exprs, Out: top.Out}, scope: r.scope, win: r.win}
	if len(rest) == 0 {
		return out, nil
	}
	c := rest[0]
	for _, x := range rest[1:] {
		c = &parser.Binary{Start: c.Pos(), OpPos: x.Pos(), Op: "AND", Left: c, Right: x}
	}
	return b.where(out, c)
}

// conjuncts appends the AND-ed parts of e to dst.
func conjuncts(e parser.Expr, dst []parser.Expr) []parser.Expr {
	if x, ok := e.(*parser.Binary); ok && x.Op == "AND" {
		return conjuncts(x.Right, conjuncts(x.Left, dst))
	}
	return append(dst, e)
}

// rownumBound reads bounds on r's rownum column from one conjunct: the
// lowest and highest number it keeps (hi -1: no upper bound), and whether
// x is such a bound. A window Top-N keeps the first rows only.
func rownumBound(r *relation, x parser.Expr) (lo, hi int64, ok bool, err error) {
	isRow := func(e parser.Expr) bool {
		id, ok := e.(*parser.Ident)
		if !ok {
			return false
		}
		i, err := r.scope.resolve(id)
		return err == nil && i == r.rank.col
	}
	num := func(lit parser.Expr) (int64, error) {
		v, ok := count(lit)
		if !ok {
			return 0, errorf(lit.Pos(), ErrUnsupported, "rownum must be compared with an integer literal, as in rownum <= 3")
		}
		return v, nil
	}
	window := r.rank.window
	if bt, ok := x.(*parser.Between); ok && isRow(bt.Expr) {
		if window {
			return 0, 0, false, errorf(bt.Start, ErrUnsupported, "a window Top-N keeps the first rows of each window: bound rownum from above, as in rownum <= N")
		}
		if bt.Not || bt.Symmetric {
			return 0, 0, false, errorf(bt.Start, ErrUnsupported, "rownum takes BETWEEN M AND N, a range of numbers")
		}
		if lo, err = num(bt.Lo); err != nil {
			return 0, 0, false, err
		}
		if hi, err = num(bt.Hi); err != nil {
			return 0, 0, false, err
		}
		if lo < 1 || hi < lo {
			return 0, 0, false, errorf(bt.Start, ErrType, "%s keeps no rows", x)
		}
		return lo, hi, true, nil
	}
	bin, ok := x.(*parser.Binary)
	if !ok {
		return 0, 0, false, nil
	}
	op, lit := bin.Op, bin.Right
	switch {
	case isRow(bin.Left):
	case isRow(bin.Right):
		// N >= rownum is rownum <= N.
		lit = bin.Left
		if f, ok := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]; ok {
			op = f
		}
	default:
		return 0, 0, false, nil
	}
	switch op {
	case "<", "<=", "=":
	case ">", ">=":
		if window {
			return 0, 0, false, errorf(bin.Start, ErrUnsupported, "a window Top-N keeps the first rows of each window: bound rownum from above, as in rownum <= N")
		}
	case "<>":
		return 0, 0, false, errorf(bin.Start, ErrUnsupported, "rownum <> N is not supported: keep a range of rows, as in rownum <= N")
	default:
		return 0, 0, false, nil
	}
	v, err := num(lit)
	if err != nil {
		return 0, 0, false, err
	}
	switch op {
	case "<":
		lo, hi = 1, v-1
	case "<=":
		lo, hi = 1, v
	case "=":
		if window && v != 1 {
			return 0, 0, false, errorf(bin.Start, ErrUnsupported, "rownum = %d is not supported: keep the first rows with rownum <= N, or the first with rownum = 1", v)
		}
		lo, hi = v, v
	case ">":
		lo, hi = v+1, -1
	case ">=":
		lo, hi = v, -1
	}
	if op != ">" && op != ">=" && hi < 1 {
		return 0, 0, false, errorf(bin.Start, ErrType, "%s keeps no rows", x)
	}
	return max(lo, 1), hi, true, nil
}
