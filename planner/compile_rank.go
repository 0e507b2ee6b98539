package planner

import (
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/rank"
)

// rank starts a vertex behind a hash exchange on the partition columns,
// so all rows of a partition, and a retraction after the row it takes
// back, meet in one subtask. Without PARTITION BY the whole stream is one
// partition: the vertex runs at parallelism 1 behind a global edge, as
// Flink's singleton Rank.
func (c *compiler) rank(n *Rank) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	var op exec.OpSpec
	name := "Rank"
	uid := UID(n)
	ttl := ""

	if last, tc, ok := n.Dedup(); ok {
		name = "Deduplicate"
		spec := rank.DedupSpec{UID: uid, In: s.schema, Partition: n.Partition, TimeCol: tc, KeepLast: last}
		spec.TTL = c.stateTTLs(nil, s.schema)[0]
		ttl = ttlName(spec.TTL)
		if _, err := rank.NewDedup(spec); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "%v", err)
		}
		op = exec.OpSpec{Fingerprint: spec.Fingerprint(), CacheMemory: !spec.TTL.TTL.On(), New: func() (exec.Operator, error) { return rank.NewDedup(spec) }}
	} else {
		spec := rank.Spec{UID: uid, In: s.schema, Partition: n.Partition, Start: n.Start, End: n.End, RowNum: n.RowNum, RowName: n.RowName, Strategy: n.Strategy(), Func: n.Func}
		spec.Key, _ = n.UpdateFastKey()
		spec.TTL = c.stateTTLs(nil, s.schema)[0]
		ttl = ttlName(spec.TTL)
		for _, o := range n.Order {
			spec.Order = append(spec.Order, rank.SortKey{Col: o.Col, Desc: o.Desc, NullsLast: o.NullsLast})
		}
		newOp := func() (exec.Operator, error) { return rank.NewTopN(spec) }
		switch {
		case n.Func != rank.RowNumber:
			newOp = func() (exec.Operator, error) { return rank.NewRanked(spec) }
		case spec.Strategy == rank.UpdateFast:
			newOp = func() (exec.Operator, error) { return rank.NewUpdateFast(spec) }
		}
		if _, err := newOp(); err != nil {
			return nil, errorf(n.At, ErrUnsupported, "%v", err)
		}
		// A ROW_NUMBER Top-N without a TTL caches its rows (rank.TopN).
		cached := spec.Func == rank.RowNumber && spec.Strategy != rank.UpdateFast && !spec.TTL.TTL.On()
		op = exec.OpSpec{Fingerprint: spec.Fingerprint(), CacheMemory: cached, New: newOp}
	}
	v := c.keyedVertex(name, s.v, n.Partition)
	out := n.Schema()
	op.Name, op.UID, op.Out = n.describe()+ttl+" uid="+uid, uid, out
	v.Ops = append(v.Ops, op)
	return &stage{v: v, schema: out}, nil
}
