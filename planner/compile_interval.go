package planner

import (
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/join"
)

// intervalJoin starts a vertex reading both inputs behind hash exchanges
// on the join keys, as a regular join's, running the interval join.
//
// Its state is freed by watermarks, which is exact only if no row reaches
// it behind its input's watermark: each input's source drops, as late,
// the rows behind their split's own watermark (ts < watermark), decided
// per split as a window's late rows are, so the same rows go at any
// parallelism and timing. Behind a window aggregate, whose rows come
// before the watermark that fires them, nothing needs dropping. Its output
// holds the watermark back by its bounds (IntervalJoin.Held), so that its
// rows, whose time attributes it keeps, are never late downstream either.
func (c *compiler) intervalJoin(n *Join, l, r *stage) (*stage, error) {
	for _, s := range []*stage{l, r} {
		if err := c.lateness(s, func(ts int64) int64 { return ts + 1 }); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "an interval join over this input is not supported yet: its event time must come from a table's WATERMARK or a window aggregate")
		}
	}
	v := c.vertex("IntervalJoin")
	v.Inputs = []*exec.Edge{{From: l.v, Kind: exec.Hash, Keys: n.LeftKeys}, {From: r.v, Kind: exec.Hash, Keys: n.RightKeys}}
	out := n.Schema()
	kind := [...]join.Kind{InnerJoin: join.Inner, LeftJoin: join.LeftOuter, RightJoin: join.RightOuter, FullJoin: join.FullOuter}[n.Kind]
	iv := n.Interval
	spec := join.IntervalSpec{UID: UID(n), Kind: kind, Left: l.schema, Right: r.schema, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
		LeftTime: iv.LeftTime, RightTime: iv.RightTime, Lower: iv.Lower, Upper: iv.Upper, Residual: n.Residual, Out: out}
	if _, err := join.NewInterval(spec); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "%v", err)
	}
	v.Ops = append(v.Ops, exec.OpSpec{Name: n.describe() + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out, TwoInput: true,
		New: func() (exec.Operator, error) { return join.NewInterval(spec) }})
	return &stage{v: v, schema: out, windowed: true}, nil
}

// lateness makes the source feeding s drop the rows for which late(ts)
// <= their split's watermark, on top of any rule it has (the stricter
// wins: a row is late if either says so). Rows of a window aggregate's
// output are never late.
func (c *compiler) lateness(s *stage, late func(int64) int64) error {
	if s.windowed {
		return nil
	}
	if s.src == nil {
		return ErrUnsupported
	}
	if f := s.src.Fires; f != nil {
		s.src.Fires = func(ts int64) int64 { return min(f(ts), late(ts)) }
		return nil
	}
	s.src.Fires = late
	return nil
}
