package planner

import (
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// windowProps are a node's window properties, as Flink's
// RelWindowProperties: which of its columns hold the window_start,
// window_end and window_time of the window each row belongs to, and that
// window's spec. A window TVF, a window aggregate and a window join make
// them; a Filter, a window Top-N and a Project that keeps the columns (a
// rename, a view, a subquery, a CTE) pass them on.
type windowProps struct {
	// Start, End and Time are the columns, -1 for one that is not there.
	Start, End, Time int
	Window           window.Assigner
	// Proc marks a processing-time window.
	Proc bool
}

// windowPropsOf derives n's window properties, nil when its rows have
// no window (or neither window_start nor window_end survives).
func windowPropsOf(n Node) *windowProps {
	switch n := n.(type) {
	case *WindowTVF:
		in := len(n.Input.Schema())
		return &windowProps{Start: in, End: in + 1, Time: in + 2, Window: n.Window, Proc: n.Input.Schema()[n.TimeCol].Type.Attr == types.ProcTime}
	case *WindowAgg:
		k := len(n.Keys)
		return &windowProps{Start: k, End: k + 1, Time: -1, Window: n.Window, Proc: n.TimeCol < 0}
	case *Filter:
		return windowPropsOf(n.Input)
	case *TopN:
		return windowPropsOf(n.Input)
	case *Project:
		return windowPropsOf(n.Input).through(n.Exprs)
	case *Join:
		if n.Window == nil {
			return nil
		}
		// The side whose rows are never padded keeps its window columns
		// (a padded row's are NULL); a FULL OUTER JOIN keeps none.
		switch {
		case !n.Kind.RightOuter():
			return windowPropsOf(n.Left)
		case !n.Kind.LeftOuter():
			p := *windowPropsOf(n.Right)
			p.Start, p.End = p.Start+len(n.Left.Schema()), p.End+len(n.Left.Schema())
			if p.Time >= 0 {
				p.Time += len(n.Left.Schema())
			}
			return &p
		}
	}
	return nil
}

// through locates p's columns in a projection of them: a column
// reference keeps one, and window_end - 1 ms computes window_time (a
// window aggregate's, which its output does not hold).
func (p *windowProps) through(exprs []expr.Expr) *windowProps {
	if p == nil {
		return nil
	}
	out := &windowProps{Start: -1, End: -1, Time: -1, Window: p.Window, Proc: p.Proc}
	for i, e := range exprs {
		switch c := e.(type) {
		case *expr.Col:
			if c.Index == p.Start && out.Start < 0 {
				out.Start = i
			}
			if c.Index == p.End && out.End < 0 {
				out.End = i
			}
			if c.Index == p.Time && out.Time < 0 {
				out.Time = i
			}
		case *expr.Call:
			if out.Time < 0 && isWindowTime(c, p.End) {
				out.Time = i
			}
		}
	}
	if out.Start < 0 && out.End < 0 {
		return nil
	}
	return out
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
