package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/over"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/types"
)

// Over is an OVER aggregation (Flink's OverAggregate): aggregates over a
// frame of each row's partition, ordered by an event-time column; its
// output is the input's columns, then one per aggregate, append-only.
type Over struct {
	Input     Node
	Partition []int
	// Time is the ORDER BY column, an event-time attribute.
	Time int
	// Rows and Preceding are the frame (over.Spec).
	Rows      bool
	Preceding int64
	Aggs      []agg.Call
	// Names are the aggregates' display names for EXPLAIN.
	Names []string
	// At is the first OVER aggregate, for errors about the operator.
	At parser.Pos
	// UIDHint is as for WindowAgg.
	UIDHint string
}

func (o *Over) Inputs() []Node { return []Node{o.Input} }

func (o *Over) Schema() types.Schema {
	s := o.spec(o.Input.Schema())
	return s.Out()
}

// Mode: every input row comes out once, with its aggregates.
func (o *Over) Mode() Mode { return InsertOnly }

// spec is the operator's spec over its input's schema in.
func (o *Over) spec(in types.Schema) over.Spec {
	names := make([]string, len(o.Aggs))
	for i := range names {
		names[i] = fmt.Sprintf("w0$o%d", i)
	}
	return over.Spec{UID: UID(o), In: in, Partition: o.Partition, Time: o.Time, Rows: o.Rows, Preceding: o.Preceding, Aggs: o.Aggs, Names: names}
}

// frame renders the frame as Flink's EXPLAIN does.
func (o *Over) frame() string {
	kind, lo := "RANGE", "UNBOUNDED PRECEDING"
	if o.Rows {
		kind = "ROWS"
	}
	switch {
	case o.Preceding == over.Unbounded:
	case o.Rows:
		lo = fmt.Sprintf("%d PRECEDING", o.Preceding)
	default:
		lo = fmt.Sprintf("%d ms PRECEDING", o.Preceding)
	}
	return fmt.Sprintf("%s BETWEEN %s AND CURRENT ROW", kind, lo)
}

func (o *Over) describe() string {
	in := o.Input.Schema()
	part := make([]string, len(o.Partition))
	for i, c := range o.Partition {
		part[i] = in[c].Name
	}
	sel := append(in.Names(), o.Names...)
	return fmt.Sprintf("OverAggregate(partitionBy=[%s], orderBy=[%s ASC], window=[%s], select=[%s])",
		strings.Join(part, ", "), in[o.Time].Name, o.frame(), strings.Join(sel, ", "))
}

// overFires is the watermark at which the operator emits a row of time
// ts: the first after it (exec.SourceSpec.Fires).
func overFires(ts int64) int64 {
	if ts == math.MaxInt64 {
		return ts
	}
	return ts + 1
}

// overCanon is the canonical encoding of an OVER aggregation: it keeps
// its input's rows and its accumulators, so the input's columns (with
// what the computed ones compute: a partition key, a kept column), the
// partitioning, order, frame and aggregates are what its state means.
func overCanon(o *Over) string {
	in := o.Input.Schema()
	var b strings.Builder
	fmt.Fprintf(&b, "over %s\nsources %s\n", o.frame(), strings.Join(sourceTables(o), ","))
	for i := range in {
		fmt.Fprintf(&b, "in %s\n", canonComputed(o.Input, i))
	}
	for _, p := range o.Partition {
		fmt.Fprintf(&b, "partition %s\n", canonCol(in, p))
	}
	fmt.Fprintf(&b, "order %s\n", canonCol(in, o.Time))
	for _, a := range o.Aggs {
		arg := "*"
		if a.Arg >= 0 {
			arg = canonComputed(o.Input, a.Arg)
		}
		fmt.Fprintf(&b, "agg %v(%s) -> %s\n", a.Kind, arg, a.Out.Plain().Nullable())
	}
	return b.String()
}

// over starts a vertex behind a hash exchange on the partition columns,
// so a partition's rows meet in one subtask, or, without PARTITION BY, at
// parallelism 1 behind a global edge, as Flink's. The source drops, as
// late, the rows before their split's watermark (ts < watermark): the
// operator has emitted the rows before each watermark it has seen, so a
// row behind one would be lost to it. Its output's watermark is one
// behind its input's (over.Over.Held), so its rows come before the
// watermark that covers them and nothing downstream drops them either.
func (c *compiler) over(n *Over) (*stage, error) {
	s, err := c.node(n.Input)
	if err != nil {
		return nil, err
	}
	if err := c.lateness(s, overFires); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "an OVER aggregation over this input is not supported yet: its event time must come from a table's WATERMARK or a window aggregate")
	}
	spec := n.spec(s.schema)
	if _, err := over.New(spec); err != nil {
		return nil, errorf(n.At, ErrUnsupported, "%v", err)
	}
	v := c.keyedVertex("OverAggregate", s.v, n.Partition)
	out := n.Schema()
	v.Ops = append(v.Ops, exec.OpSpec{Name: n.describe() + " uid=" + spec.UID, UID: spec.UID, Fingerprint: spec.Fingerprint(), Out: out,
		New: func() (exec.Operator, error) { return over.New(spec) }})
	return &stage{v: v, schema: out, windowed: true}, nil
}
