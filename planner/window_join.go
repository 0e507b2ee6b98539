package planner

import (
	"fmt"
	"slices"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/join"
	"github.com/strandsql/strand/types"
	"github.com/strandsql/strand/window"
)

// JoinWindow makes a join a window join, as Flink's WindowJoin: both
// inputs are windowed alike (windowProps) and the join's keys equate
// their window_start and window_end, so a pair can only be of one window.
// Each side's rows are kept until their window fires, then joined and
// freed; the output, append-only, is emitted when the window fires.
type JoinWindow struct {
	Window window.Assigner
	// Start and End are the join key pairs (indexes into LeftKeys and
	// RightKeys) that equate the sides' window_start and window_end.
	Start, End int
	// LeftTime and RightTime are the sides' window_time columns, -1
	// where there is none: the output keeps them as time attributes.
	LeftTime, RightTime int
}

// windowSpec renders a window without its time column, as Flink's
// EXPLAIN of a window join does: TUMBLE(size=[...]), HOP(size=[...],
// slide=[...]), CUMULATE(max_size=[...], step=[...]).
func windowSpec(w window.Assigner) string {
	f := types.SQLIntervalDayTime
	var d string
	switch w.Kind {
	case window.Hop:
		d = fmt.Sprintf("HOP(size=[%s], slide=[%s]", f(w.Size), f(w.Slide))
	case window.Cumulate:
		d = fmt.Sprintf("CUMULATE(max_size=[%s], step=[%s]", f(w.Size), f(w.Slide))
	default:
		d = fmt.Sprintf("%v(size=[%s]", w.Kind, f(w.Size))
	}
	if w.Offset != 0 {
		d += fmt.Sprintf(", offset=[%s]", f(w.Offset))
	}
	return d + ")"
}

// windowJoin is the rule that makes j a window join, as Flink's
// WindowJoinUtil.satisfyWindowJoin: both inputs have window properties
// and its keys equate both window_start and window_end. Where Flink logs
// a warning and plans a regular join instead (one of the two equated,
// different windows on the two sides), strand refuses at the join, since
// a regular join would keep every row forever; so it does for what
// strand's window join does not take: SESSION or processing-time windows
// and updating inputs.
func windowJoin(j *Join) error {
	lp, rp := windowPropsOf(j.Left), windowPropsOf(j.Right)
	if lp == nil || rp == nil {
		return nil
	}
	start, end := -1, -1
	for i, l := range j.LeftKeys {
		r := j.RightKeys[i]
		if start < 0 && slices.Contains(lp.Starts, l) && slices.Contains(rp.Starts, r) {
			start = i
		}
		if end < 0 && slices.Contains(lp.Ends, l) && slices.Contains(rp.Ends, r) {
			end = i
		}
	}
	switch {
	case start < 0 && end < 0:
		return nil
	case start < 0 || end < 0:
		have, lacks := "window_end", "window_start"
		if end < 0 {
			have, lacks = lacks, have
		}
		return errorf(j.At, ErrUnsupported, "a window join needs both window_start and window_end of the two sides equal in its condition, as in Flink; it equates the %ss only: add the %ss' equality (of columns that hold them: a value computed from one, even a CAST, holds none)", have, lacks)
	case lp.Window != rp.Window:
		return errorf(j.At, ErrUnsupported, "a window join needs the same window on both sides, as in Flink: the left is %s, the right %s", windowSpec(lp.Window), windowSpec(rp.Window))
	case lp.Window.Kind == window.Session:
		return errorf(j.At, ErrUnsupported, "a window join over SESSION windows is not supported: a session ends when the watermark passes it, after the rows of fixed windows would have been joined (TUMBLE, HOP and CUMULATE windows are)")
	case lp.Proc || rp.Proc:
		return errorf(j.At, ErrUnsupported, "a window join over processing-time windows is not supported yet: its windows fire by event time")
	}
	for _, in := range []Node{j.Left, j.Right} {
		if m := ChangelogMode(in); !m.InsertOnly() {
			return updatesError(in, m, "a window join takes insert-only input")
		}
	}
	j.Window = &JoinWindow{Window: lp.Window, Start: start, End: end, LeftTime: first(lp.Times), RightTime: first(rp.Times)}
	return nil
}

// joinWin locates the window columns of a window join's output for the
// binder, as of a window aggregate's rows: a GROUP BY of both of them is a window aggregate of the same windows (a cascade), a window
// Top-N may follow; nil for a join that is no window join or pads both
// sides.
func joinWin(j *Join) *winCols {
	p := windowPropsOf(j)
	if p == nil || len(p.Starts) == 0 || len(p.Ends) == 0 {
		return nil
	}
	return &winCols{start: p.Starts[0], end: p.Ends[0], also: [2][]int{p.Starts[1:], p.Ends[1:]}, tvf: &j.Window.Window, agg: true}
}

// windowJoin starts a vertex reading both inputs behind hash exchanges on
// all the join keys, window_start and window_end among them, so the rows
// of a key and window meet in one subtask, and a join without other keys
// still spreads its windows over the subtasks.
//
// Its inputs never bring late rows: their windows come from a window TVF
// (windowPropsOf), which made its source drop, per split, the rows whose
// first window had fired (c.fires), or from a window aggregate, window
// Top-N or window join, whose rows of a window come before the watermark
// that fires it. It emits a window's rows when the window fires, before
// that watermark goes on, so its output is windowed too.
func (c *compiler) windowJoin(n *Join, l, r *stage) (*stage, error) {
	v := c.vertex("WindowJoin")
	v.Inputs = []*exec.Edge{{From: l.v, Kind: exec.Hash, Keys: n.LeftKeys}, {From: r.v, Kind: exec.Hash, Keys: n.RightKeys}}
	out := n.Schema()
	kind := [...]join.Kind{InnerJoin: join.Inner, LeftJoin: join.LeftOuter, RightJoin: join.RightOuter, FullJoin: join.FullOuter, SemiJoin: join.Semi, AntiJoin: join.Anti}[n.Kind]
	w := n.Window
	spec := join.WindowSpec{UID: UID(n), Kind: kind, Left: l.schema, Right: r.schema, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
		Start: w.Start, End: w.End, Window: windowSpec(w.Window), Residual: n.Residual, Out: out}
	if _, err := join.NewWindow(spec); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "%v", err)
	}
	v.Ops = append(v.Ops, exec.OpSpec{Name: n.describe() + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out, TwoInput: true,
		MemorySegments: join.WindowSegments, New: func() (exec.Operator, error) { return join.NewWindow(spec) }})
	return &stage{v: v, schema: out, windowed: true}, nil
}
