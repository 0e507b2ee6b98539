package exec

import (
	"errors"
	"strings"
	"testing"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/checkpoint"
)

// TestFingerprintExactFloatSums: an operator whose fingerprint carries
// agg.ExactFloatSums takes back state with the mark and state without it
// (written before exact sums); an operator without the mark, as in a
// strand from before exact sums, refuses state with it, naming both
// schemas. Another schema is refused either way. MatchState (a run) and
// TaskContext.Restored (an operator driven alone) agree.
func TestFingerprintExactFloatSums(t *testing.T) {
	const base = "parts2;0123456789abcdef"
	marked := base + agg.ExactFloatSums
	for _, tc := range []struct {
		op, state string
		ok        bool
	}{
		{marked, marked, true},
		{marked, base, true},
		{base, base, true},
		{base, marked, false},
		{marked, "parts2;fedcba9876543210", false},
		{marked, "parts2;fedcba9876543210" + agg.ExactFloatSums, false},
		{marked, base + agg.ExactFloatSums + agg.ExactFloatSums, false},
	} {
		md := &checkpoint.Metadata{ID: 3, Operators: []checkpoint.OperatorState{{UID: "agg", Fingerprint: tc.state, MaxParallelism: DefaultMaxParallelism}}}
		g := &Graph{Vertices: []*Vertex{{Name: "agg", Parallelism: 1, Ops: []OpSpec{{Name: "agg", UID: "agg", Fingerprint: tc.op}}}}}
		err := MatchState(g, md).Err()
		if tc.ok != (err == nil) {
			t.Errorf("operator %s, state %s: MatchState: %v, want restored=%t", tc.op, tc.state, err, tc.ok)
		}
		if !tc.ok && (!errors.Is(err, ErrUnmapped) || !strings.Contains(err.Error(), "state schema "+tc.state+", the job needs "+tc.op)) {
			t.Errorf("operator %s, state %s: MatchState: %v, want a refusal naming both schemas", tc.op, tc.state, err)
		}
		ctx := &TaskContext{MaxParallelism: DefaultMaxParallelism, Checkpoint: &Checkpointing{Restore: md}}
		rv, err := ctx.Restored("agg", tc.op, 0, DefaultMaxParallelism-1)
		if tc.ok != (err == nil && rv != nil) {
			t.Errorf("operator %s, state %s: Restored: %v, %v, want restored=%t", tc.op, tc.state, rv, err, tc.ok)
		}
		if !tc.ok && (!errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "schema "+tc.state+", the query needs "+tc.op)) {
			t.Errorf("operator %s, state %s: Restored: %v, want a refusal naming both schemas", tc.op, tc.state, err)
		}
	}
}
