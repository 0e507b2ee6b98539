package over

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Unbounded is a frame's Preceding for UNBOUNDED PRECEDING.
const Unbounded = -1

// Spec is an OVER aggregation: aggregates over a frame of each row's
// partition, the rows ordered by an event-time column.
type Spec struct {
	// UID identifies the operator's state.
	UID       string
	In        types.Schema
	Partition []int
	// Time is the event-time column that orders each partition's rows.
	Time int
	// Rows makes the frame ROWS, else RANGE.
	Rows bool
	// Preceding is where the frame starts, before the current row: a
	// number of rows for ROWS, milliseconds of event time for RANGE, or
	// Unbounded. It ends at the current row (with its peers, rows of the
	// same time, for RANGE).
	Preceding int64
	Aggs      []agg.Call
	// Names are the aggregates' columns.
	Names []string
}

// Out is the schema of the rows the operator emits: the input's columns,
// then one per aggregate.
func (s *Spec) Out() types.Schema {
	out := append(types.Schema{}, s.In...)
	for i, a := range s.Aggs {
		name := fmt.Sprintf("EXPR$%d", i)
		if i < len(s.Names) {
			name = s.Names[i]
		}
		out = append(out, types.Field{Name: name, Type: a.Out})
	}
	return out
}

// check validates the spec against its input.
func (s *Spec) check() error {
	if s.Time < 0 || s.Time >= len(s.In) {
		return fmt.Errorf("over: time column %d out of range", s.Time)
	}
	if k := s.In[s.Time].Type.Kind; k != types.Timestamp && k != types.TimestampLTZ {
		return fmt.Errorf("over: ORDER BY column %s is %s, not a TIMESTAMP", s.In[s.Time].Name, s.In[s.Time].Type)
	}
	for i, p := range s.Partition {
		if slices.Contains(s.Partition[:i], p) {
			// The state would key the partition by the column once
			// and the exchange route its rows by it twice.
			return fmt.Errorf("over: partition column %d is listed twice", p)
		}
	}
	if slices.Contains(s.Partition, s.Time) {
		return fmt.Errorf("over: the ORDER BY column %s is also partitioned by", s.In[s.Time].Name)
	}
	if s.Preceding < Unbounded {
		return fmt.Errorf("over: frame starts %d before the current row", s.Preceding)
	}
	for _, a := range s.Aggs {
		if a.Distinct || a.Filter >= 0 {
			return fmt.Errorf("over: %s: DISTINCT and FILTER are not supported", a.Name)
		}
		if a.Arg >= len(s.In) {
			return fmt.Errorf("over: %s: argument column %d out of range", a.Name, a.Arg)
		}
	}
	return nil
}

// overFormat versions the state layout and meaning (doc.go): over/2
// fires the rows before a watermark, over/1 those at it too, so a row at
// over/1's last watermark would come after rows already emitted.
const overFormat = "over/2"

// Fingerprint identifies the layout and meaning of the operator's state:
// the rows' columns, partitioning and order, the frame (a bounded frame
// keeps the rows it may still need, an unbounded one its accumulators)
// and the aggregates whose accumulators it keeps. An unbounded frame's
// ends in agg.FingerprintMark of the aggregates, for state a strand from
// before exact FLOAT and DOUBLE sums must refuse; a bounded frame keeps
// rows, not accumulators, so its state reads the same in either.
func (s *Spec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rows=%t preceding=%d time=%d part=%v\n", overFormat, s.Rows, s.Preceding, s.Time, s.Partition)
	for _, f := range s.In {
		fmt.Fprintf(&b, "col %s\n", f.Type.Plain().Nullable())
	}
	for _, a := range s.Aggs {
		fmt.Fprintf(&b, "agg %v(%d) -> %s\n", a.Kind, a.Arg, a.Out.Plain().Nullable())
	}
	mark := ""
	if s.Preceding == Unbounded {
		mark = agg.FingerprintMark(s.Aggs, s.In)
	}
	return fmt.Sprintf("over;%016x%s", memseg.Hash([]byte(b.String())), mark)
}
