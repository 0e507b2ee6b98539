package planner

import (
	"slices"

	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// windowProps are a node's window properties, as Flink's
// RelWindowProperties: which of its columns hold the window_start,
// window_end and window_time of the window each row belongs to, and that
// window's spec. A window TVF, a window aggregate and a window join make
// them; a Filter, a window Top-N and a Project that keeps the columns (a
// rename, a view, a subquery, a CTE) pass them on, and so does a UNION ALL
// of inputs of the same window. Each is a set of columns, as Flink's: a
// projection may copy a column, and an inner window join's rows have both
// sides' window columns, equal.
type windowProps struct {
	// Starts, Ends and Times are the columns, in order; none for a
	// property that is not there.
	Starts, Ends, Times []int
	Window              window.Assigner
	// Proc marks a processing-time window.
	Proc bool
}

// windowPropsOf derives n's window properties, nil when its rows have
// no window (or neither window_start nor window_end survives).
func windowPropsOf(n Node) *windowProps {
	switch n := n.(type) {
	case *WindowTVF:
		in := len(n.Input.Schema())
		return &windowProps{Starts: []int{in}, Ends: []int{in + 1}, Times: []int{in + 2}, Window: n.Window, Proc: n.Input.Schema()[n.TimeCol].Type.Attr == types.ProcTime}
	case *WindowAgg:
		k := len(n.Keys)
		return &windowProps{Starts: []int{k}, Ends: []int{k + 1}, Window: n.Window, Proc: n.TimeCol < 0}
	case *Filter:
		return windowPropsOf(n.Input)
	case *TopN:
		return windowPropsOf(n.Input)
	case *Project:
		return windowPropsOf(n.Input).through(n.Exprs)
	case *Union:
		return unionProps(n)
	case *Join:
		if n.Window == nil {
			return nil
		}
		// The sides whose rows are never padded keep their window
		// columns (a padded row's are NULL); a FULL OUTER JOIN keeps none.
		l, r := windowPropsOf(n.Left), windowPropsOf(n.Right)
		if l == nil || r == nil {
			return nil
		}
		p := &windowProps{Window: l.Window, Proc: l.Proc}
		if !n.Kind.RightOuter() {
			p.Starts, p.Ends, p.Times = l.Starts, l.Ends, l.Times
		}
		if !n.Kind.LeftOuter() && !n.Kind.filtering() {
			off := len(n.Left.Schema())
			p.Starts, p.Ends, p.Times = shifted(p.Starts, r.Starts, off), shifted(p.Ends, r.Ends, off), shifted(p.Times, r.Times, off)
		}
		return p.orNil()
	}
	return nil
}

// unionProps are the window properties of a UNION ALL, as Flink derives
// them: of inputs that all have the same window, the columns that hold a
// property in every input.
func unionProps(u *Union) *windowProps {
	var p *windowProps
	for _, in := range u.Ins {
		q := windowPropsOf(in)
		if q == nil || p != nil && (q.Window != p.Window || q.Proc != p.Proc) {
			return nil
		}
		if p == nil {
			p = q
			continue
		}
		p = &windowProps{Starts: common(p.Starts, q.Starts), Ends: common(p.Ends, q.Ends), Times: common(p.Times, q.Times), Window: p.Window, Proc: p.Proc}
	}
	return p.orNil()
}

// common returns the columns in both a and b.
func common(a, b []int) []int {
	var out []int
	for _, c := range a {
		if slices.Contains(b, c) {
			out = append(out, c)
		}
	}
	return out
}

// shifted returns cols followed by more, each plus off.
func shifted(cols, more []int, off int) []int {
	out := slices.Clone(cols)
	for _, c := range more {
		out = append(out, c+off)
	}
	return out
}

// orNil returns p, or nil when neither window_start nor window_end is
// there.
func (p *windowProps) orNil() *windowProps {
	if p == nil || len(p.Starts) == 0 && len(p.Ends) == 0 {
		return nil
	}
	return p
}

// first returns the first of cols, -1 for none.
func first(cols []int) int {
	if len(cols) == 0 {
		return -1
	}
	return cols[0]
}

// through locates p's columns in a projection of them: a column
// reference keeps one, and window_end - 1 ms computes window_time (a
// window aggregate's, which its output does not hold).
func (p *windowProps) through(exprs []expr.Expr) *windowProps {
	if p == nil {
		return nil
	}
	out := &windowProps{Window: p.Window, Proc: p.Proc}
	for i, e := range exprs {
		switch c := e.(type) {
		case *expr.Col:
			if slices.Contains(p.Starts, c.Index) {
				out.Starts = append(out.Starts, i)
			}
			if slices.Contains(p.Ends, c.Index) {
				out.Ends = append(out.Ends, i)
			}
			if slices.Contains(p.Times, c.Index) {
				out.Times = append(out.Times, i)
			}
		case *expr.Call:
			if slices.ContainsFunc(p.Ends, func(end int) bool { return isWindowTime(c, end) }) {
				out.Times = append(out.Times, i)
			}
		}
	}
	return out.orNil()
}

// isWindowTime reports whether c is window_end - 1 ms of column end, a
// rowtime attribute: the window_time a window aggregate's select list
// computes (windowTime).
func isWindowTime(c *expr.Call, end int) bool {
	if c.Fn != expr.SubInterval || c.T.Attr != types.RowTime || len(c.Args) != 2 {
		return false
	}
	col, ok := c.Args[0].(*expr.Col)
	lit, isLit := c.Args[1].(*expr.Lit)
	return ok && col.Index == end && isLit && !lit.V.IsNull && lit.V.Int == 1
}
