package planner

import (
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/join"
)

// temporalJoin starts a vertex reading both inputs behind hash exchanges
// on the join keys, running the event-time temporal join or, for a
// processing-time one, the lookup join against its bounded right table.
//
// The event-time join joins a left row when the watermark passes its
// time, with the versions the right side has brought by then, and frees
// the versions no row still to come can need; that is exact only if no
// row reaches it behind its input's watermark. So each input's source
// drops, as late, the rows behind their split's own watermark, as for an
// interval join. A right side that is not read straight from its source
// (an upsert source's ChangelogNormalize, a deduplication) cannot drop
// rows there: its rows are joined as they come, as in Flink, and one that
// comes behind the watermark is not seen by the left rows joined before
// it (README, Temporal joins).
func (c *compiler) temporalJoin(n *Join, l, r *stage) (*stage, error) {
	t := n.Temporal
	kind := [...]join.Kind{InnerJoin: join.Inner, LeftJoin: join.LeftOuter}[n.Kind]
	out := n.Schema()
	uid := UID(n)
	name := "TemporalJoin"
	var op exec.OpSpec
	if t.Proc() {
		name = "LookupJoin"
		spec := join.LookupSpec{UID: uid, Kind: kind, Left: l.schema, Right: r.schema, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, Residual: n.Residual, Out: out}
		if _, err := join.NewLookup(spec); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "%v", err)
		}
		op = exec.OpSpec{Name: n.describe() + " uid=" + uid, UID: uid, Fingerprint: spec.Fingerprint(), Out: out, TwoInput: true,
			New: func() (exec.Operator, error) { return join.NewLookup(spec) }}
	} else {
		if err := c.lateness(l, func(ts int64) int64 { return ts + 1 }); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "an event-time temporal join over this left input is not supported yet: its event time must come from a table's WATERMARK or a window aggregate")
		}
		// Best effort on the right: see above.
		_ = c.lateness(r, func(ts int64) int64 { return ts + 1 })
		spec := join.TemporalSpec{UID: uid, Kind: kind, Left: l.schema, Right: r.schema, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys,
			LeftTime: t.LeftTime, RightTime: t.RightTime, Residual: n.Residual, Out: out}
		if _, err := join.NewTemporal(spec); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "%v", err)
		}
		op = exec.OpSpec{Name: n.describe() + " uid=" + uid, UID: uid, Fingerprint: spec.Fingerprint(), Out: out, TwoInput: true,
			New: func() (exec.Operator, error) { return join.NewTemporal(spec) }}
	}
	v := c.vertex(name)
	v.Inputs = []*exec.Edge{{From: l.v, Kind: exec.Hash, Keys: n.LeftKeys}, {From: r.v, Kind: exec.Hash, Keys: n.RightKeys}}
	v.Ops = append(v.Ops, op)
	// The event-time join's rows come before the watermark that passes
	// them (held back a millisecond), so a window after it finds none late.
	return &stage{v: v, schema: out, windowed: !t.Proc()}, nil
}
