package planner

import (
	"fmt"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// Node is a logical plan node. Nodes are immutable once built: rules
// return new nodes instead of changing old ones.
type Node interface {
	// Schema is the node's output.
	Schema() types.Schema
	// Inputs are the node's children.
	Inputs() []Node
	// describe renders the node itself on one line, for EXPLAIN.
	describe() string
}

// Scan reads a table: every column, physical and computed, with the
// table's watermark.
type Scan struct {
	Table *Table
	// At is where the query names the table, for errors about it.
	At parser.Pos
}

// Filter keeps rows for which Cond is TRUE.
type Filter struct {
	Input Node
	Cond  expr.Expr
}

// Project computes one column per expression.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Out   types.Schema
}

// WindowTVF appends window_start, window_end and window_time to every row
// (TABLE(TUMBLE(...)) used without a window aggregate).
type WindowTVF struct {
	Input   Node
	TimeCol int
	Window  window.Assigner
	// Partition are a SESSION's PARTITION BY columns of Input, and
	// PartitionAt where its PARTITION BY is, for errors.
	Partition   []int
	PartitionAt parser.Pos
	// At is where the TVF is, for errors; UIDHint is a SESSION TVF's uid
	// when two alike in one statement need telling apart (UID).
	At      parser.Pos
	UIDHint string
}

// WindowAgg is a window aggregate: its output is the keys, window_start,
// window_end, then the aggregates (window.Spec.Out).
type WindowAgg struct {
	Input Node
	// TimeCol is the event-time column, or -1 for a processing-time
	// window, which assigns rows by the clock as they arrive; ProcTime
	// then names its PROCTIME() column.
	TimeCol  int
	ProcTime string
	Window   window.Assigner
	// Assigned marks rows that carry their window: TimeCol is their
	// window_end column (a window aggregate over a view or subquery of a
	// window TVF, whose rows are one per window).
	Assigned bool
	Keys     []int
	Aggs     []agg.Call
	// Names are the aggregates' display names for EXPLAIN and output.
	Names []string
	// UIDHint is the uid a /*+ UID('...') */ hint gives the operator, or
	// empty to derive it (UID).
	UIDHint string
	// At is the window's TVF or GROUP BY call, for errors.
	At  parser.Pos
	out types.Schema
}

// TopN is a window Top-N: of each window's rows (those with the same
// window_end) and each partition of them by Partition, the first Limit in
// Order, emitted when the window fires. It is both Flink's window Top-N
// (ROW_NUMBER() OVER (PARTITION BY window_start, window_end ...) filtered
// by rownum <= N) and strand's ORDER BY ... LIMIT n over a windowed query.
type TopN struct {
	Input Node
	// WindowEnd is the input's window_end column.
	WindowEnd int
	// Partition are further partition columns.
	Partition []int
	Order     []OrderKey
	// Limit is the rows kept per window and partition; 0 keeps every row
	// (ORDER BY without LIMIT sorts each window).
	Limit int64
	// RowNum appends each row's number in its partition, 1..Limit, as a
	// BIGINT NOT NULL column named RowName.
	RowNum  bool
	RowName string
	// UIDHint is as for WindowAgg.
	UIDHint string
}

// OrderKey is one column of an ORDER BY.
type OrderKey struct {
	Col             int
	Desc, NullsLast bool
}

// Sink writes its input to a table (INSERT INTO) or to the client
// (SELECT, Table nil).
type Sink struct {
	Input Node
	Table *Table
	// At is where the statement names the table, for errors about it.
	At parser.Pos
	// DropBefore drops the input's -U rows: an upsert sink whose primary
	// key is an upsert key of its input (planSinks).
	DropBefore bool
}

func (s *Scan) Schema() types.Schema      { return s.Table.Schema }
func (f *Filter) Schema() types.Schema    { return f.Input.Schema() }
func (p *Project) Schema() types.Schema   { return p.Out }
func (w *WindowAgg) Schema() types.Schema { return w.out }
func (s *Sink) Schema() types.Schema      { return s.Input.Schema() }

func (t *TopN) Schema() types.Schema {
	out := append(types.Schema{}, t.Input.Schema()...)
	if t.RowNum {
		out = append(out, types.Field{Name: t.RowName, Type: types.TBigInt.WithNotNull(true)})
	}
	return out
}

func (w *WindowTVF) Schema() types.Schema {
	in := w.Input.Schema()
	out := append(types.Schema{}, in...)
	return append(out, windowColumns()...)
}

// windowColumns are the columns a window TVF adds: window_time is the
// window's rowtime attribute, window_end - 1 ms.
func windowColumns() types.Schema {
	ts := types.TTimestamp.WithNotNull(true)
	rt := ts
	rt.Attr = types.RowTime
	return types.Schema{{Name: "window_start", Type: ts}, {Name: "window_end", Type: ts}, {Name: "window_time", Type: rt}}
}

func (s *Scan) Inputs() []Node      { return nil }
func (f *Filter) Inputs() []Node    { return []Node{f.Input} }
func (p *Project) Inputs() []Node   { return []Node{p.Input} }
func (w *WindowTVF) Inputs() []Node { return []Node{w.Input} }
func (w *WindowAgg) Inputs() []Node { return []Node{w.Input} }
func (s *Sink) Inputs() []Node      { return []Node{s.Input} }
func (t *TopN) Inputs() []Node      { return []Node{t.Input} }

func (s *Scan) describe() string {
	d := fmt.Sprintf("Scan(table=[%s], fields=[%s]", s.Table.Name, strings.Join(s.Table.Schema.Names(), ", "))
	if s.Table.Watermark != nil {
		d += fmt.Sprintf(", watermark=[%s]", s.Table.Watermark)
	}
	return d + ")"
}

func (f *Filter) describe() string { return fmt.Sprintf("Filter(condition=[%s])", f.Cond) }

func (p *Project) describe() string {
	parts := make([]string, len(p.Exprs))
	for i, e := range p.Exprs {
		parts[i] = fmt.Sprintf("%s AS %s", e, p.Out[i].Name)
	}
	return fmt.Sprintf("Project(%s)", strings.Join(parts, ", "))
}

func (w *WindowTVF) describe() string {
	in := w.Input.Schema()
	d := describeWindow(in, w.TimeCol, w.Window)
	if w.Window.Kind == window.Session && len(w.Partition) > 0 {
		// As Flink: SESSION(time_col=[ts], gap=[...], partition keys=[k]).
		d = strings.TrimSuffix(d, ")]") + fmt.Sprintf(", partition keys=[%s])]", partitionNames(in, w.Partition))
	}
	return fmt.Sprintf("WindowTableFunction(%s)", d)
}

func (w *WindowAgg) describe() string {
	in := w.Input.Schema()
	keys := make([]string, len(w.Keys))
	for i, k := range w.Keys {
		keys[i] = in[k].Name
	}
	win := ""
	if w.TimeCol < 0 {
		win = describeTumble(w.ProcTime+" (processing time)", w.Window)
	} else {
		win = describeWindow(in, w.TimeCol, w.Window)
	}
	return fmt.Sprintf("WindowAggregate(%s, groupBy=[%s], select=[%s])", win, strings.Join(keys, ", "), strings.Join(w.Names, ", "))
}

func (t *TopN) describe() string {
	in := t.Input.Schema()
	d := fmt.Sprintf("WindowTopN(windowEnd=[%s]", in[t.WindowEnd].Name)
	if len(t.Partition) > 0 {
		part := make([]string, len(t.Partition))
		for i, c := range t.Partition {
			part[i] = in[c].Name
		}
		d += fmt.Sprintf(", partitionBy=[%s]", strings.Join(part, ", "))
	}
	order := make([]string, len(t.Order))
	for i, o := range t.Order {
		order[i] = in[o.Col].Name + map[bool]string{false: " ASC", true: " DESC"}[o.Desc] +
			map[bool]string{false: " NULLS FIRST", true: " NULLS LAST"}[o.NullsLast]
	}
	d += fmt.Sprintf(", orderBy=[%s]", strings.Join(order, ", "))
	if t.Limit > 0 {
		d += fmt.Sprintf(", limit=[%d]", t.Limit)
	}
	if t.RowNum {
		d += fmt.Sprintf(", rownum=[%s]", t.RowName)
	}
	return d + ")"
}

func (s *Sink) describe() string {
	if s.Table == nil {
		return fmt.Sprintf("Collect(fields=[%s])", strings.Join(s.Input.Schema().Names(), ", "))
	}
	return fmt.Sprintf("Sink(table=[%s], fields=[%s])", s.Table.Name, strings.Join(s.Input.Schema().Names(), ", "))
}

// mode is what the sink writes: its input, without the -U rows it drops,
// by its primary key when it is an upsert sink.
func (s *Sink) mode() Mode {
	m := ChangelogMode(s.Input)
	if s.DropBefore {
		m = Mode{Kinds: m.Kinds &^ UpdatesBefore, Key: s.Table.keyCols(s.Input.Schema())}
	}
	return m
}

func describeWindow(in types.Schema, col int, w window.Assigner) string {
	return describeTumble(in[col].Name, w)
}

// describeTumble renders a window as Flink's EXPLAIN does:
// TUMBLE(size), HOP(size, slide), CUMULATE(max_size, step).
func describeTumble(timeCol string, w window.Assigner) string {
	f := types.SQLIntervalDayTime
	d := fmt.Sprintf("window=[%v(time_col=[%s], size=[%s]", w.Kind, timeCol, f(w.Size))
	switch w.Kind {
	case window.Session:
		return fmt.Sprintf("window=[SESSION(time_col=[%s], gap=[%s])]", timeCol, f(w.Size))
	case window.Hop:
		d += fmt.Sprintf(", slide=[%s]", f(w.Slide))
	case window.Cumulate:
		d = fmt.Sprintf("window=[CUMULATE(time_col=[%s], max_size=[%s], step=[%s]", timeCol, f(w.Size), f(w.Slide))
	}
	if w.Offset != 0 {
		d += fmt.Sprintf(", offset=[%s]", types.SQLIntervalDayTime(w.Offset))
	}
	return d + ")]"
}

// Explain renders a plan as a tree, root first, with Flink's tree lines:
// each input under its parent after "+- ", or ":- " for an input that has
// siblings after it, whose subtree the ":" continues down to.
func Explain(n Node) string {
	var b strings.Builder
	var walk func(n Node, indent, branch string)
	walk = func(n Node, indent, branch string) {
		fmt.Fprintf(&b, "%s%s%s\n", indent, branch, withMode(n.describe(), ChangelogMode(n)))
		switch branch {
		case ":- ":
			indent += ":  "
		case "+- ":
			indent += "   "
		}
		ins := n.Inputs()
		for i, in := range ins {
			if i < len(ins)-1 {
				walk(in, indent, ":- ")
			} else {
				walk(in, indent, "+- ")
			}
		}
	}
	walk(n, "", "")
	return b.String()
}
