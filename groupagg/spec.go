package groupagg

import (
	"fmt"
	"strings"
	"time"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Spec is a group aggregate: per distinct value of the Keys columns of
// In, the Aggs over the rows with that value.
type Spec struct {
	UID  string
	In   types.Schema
	Keys []int
	Aggs []agg.Call
	// Retract marks an input that takes rows back (-U, -D): the
	// accumulators must retract, MIN and MAX as multisets.
	Retract bool
	// MiniBatch folds the rows of up to MiniBatch.Size input rows, or of
	// MiniBatch.Latency, into one change per group; zero is off.
	MiniBatch MiniBatch
	// TTL is the groups' time-to-live and clock (exec.StateTTL): a group
	// not written for that long is gone, and its next row starts it
	// again. Not part of the fingerprint: a restore may change it.
	TTL exec.StateTTL
}

// MiniBatch is Flink's table.exec.mini-batch.* configuration.
type MiniBatch struct {
	Size    int
	Latency time.Duration
}

// On reports whether mini-batching is enabled.
func (m MiniBatch) On() bool { return m.Size > 0 }

// Out is the output schema: the keys, then one column per aggregate,
// named $agg0, $agg1, ... (the planner names them).
func (s *Spec) Out() types.Schema {
	var out types.Schema
	for _, k := range s.Keys {
		out = append(out, types.Field{Name: s.In[k].Name, Type: s.In[k].Type.Plain()})
	}
	for i, a := range s.Aggs {
		out = append(out, types.Field{Name: fmt.Sprintf("$agg%d", i), Type: a.Out})
	}
	return out
}

// fingerprintVersion versions the state layout (doc.go): the group
// entry's value and the DISTINCT entries. Version 3 stamps the DISTINCT
// entries (state.TTL); an aggregate without them keeps version 2, whose
// layout is the same, so its older checkpoints restore.
const (
	fingerprintVersion         = "groupagg/2"
	fingerprintVersionDistinct = "groupagg/3"
)

// Fingerprint identifies the layout of the state: the key columns' types,
// each aggregate with its argument's type (which fixes its accumulator's
// encoding), and whether MIN and MAX keep multisets; it ends in
// agg.FingerprintMark of the aggregates, for state a strand from before
// exact FLOAT and DOUBLE sums must refuse. Mini-batching
// changes when changes are emitted, not what is kept, so it is not part
// of it.
func (s *Spec) Fingerprint() string {
	var b strings.Builder
	version := fingerprintVersion
	for _, a := range s.Aggs {
		if a.Distinct && a.Arg >= 0 {
			version = fingerprintVersionDistinct
		}
	}
	fmt.Fprintf(&b, "%s retract=%t\n", version, s.Retract)
	for _, k := range s.Keys {
		fmt.Fprintf(&b, "key %s\n", s.In[k].Type.Plain().Nullable())
	}
	for _, a := range s.Aggs {
		arg, filter := "*", "-"
		if a.Arg >= 0 {
			arg = s.In[a.Arg].Type.Plain().Nullable().String()
		}
		if a.Filter >= 0 {
			filter = fmt.Sprint(a.Filter)
		}
		fmt.Fprintf(&b, "agg %v(%s) arg=%d distinct=%t filter=%s -> %s\n", a.Kind, arg, a.Arg, a.Distinct, filter, a.Out.Plain().Nullable())
	}
	return fmt.Sprintf("%016x%s", memseg.Hash([]byte(b.String())), agg.FingerprintMark(s.Aggs, s.In))
}

// MinSegments is the fewest segments of managed memory the aggregate
// works with: two for the cache's hash table (buckets and entries) and
// two for its accumulator columns.
func (s *Spec) MinSegments() int { return 4 }

// check reports a spec the operator cannot run: a key or DISTINCT
// argument without a normalized key encoding, or an aggregate without an
// accumulator.
func (s *Spec) check() error {
	for _, k := range s.Keys {
		if _, err := memseg.TypeOf(s.In[k].Type.Arrow()); err != nil {
			return fmt.Errorf("cannot group by %s of type %s", s.In[k].Name, s.In[k].Type)
		}
	}
	for _, a := range s.Aggs {
		if a.Distinct && a.Arg >= 0 {
			if _, err := memseg.TypeOf(s.In[a.Arg].Type.Arrow()); err != nil {
				return fmt.Errorf("%s: DISTINCT of type %s is not supported", a.Name, s.In[a.Arg].Type)
			}
		}
		if _, err := s.newAcc(a); err != nil {
			return err
		}
		if copierOf(a.Out.Arrow()) == nil {
			return fmt.Errorf("%s: no result of type %s", a.Name, a.Out)
		}
	}
	return nil
}

func (s *Spec) newAcc(a agg.Call) (agg.Acc, error) {
	var in types.Type
	if a.Arg >= 0 {
		in = s.In[a.Arg].Type
	}
	// Only an input that takes rows back needs accumulators that can:
	// a DISTINCT aggregate retracts a value when its last row goes, which
	// needs a retraction upstream too.
	if s.Retract {
		return agg.NewRetracting(a, in)
	}
	return agg.New(a, in)
}
