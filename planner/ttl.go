package planner

import (
	"strings"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// ttlHint is a STATE_TTL hint's TTL for one input of an operator.
type ttlHint struct {
	Millis int64
	Set    bool
}

// stateTTLs is the state TTL of a keyed operator outside windows over the
// inputs ins: each input's hinted TTL or the session's,
// by event time if every input carries a rowtime column, whose values
// then stamp and expire its state, else by processing time (the one case
// in which what expires depends on timing).
func (c *compiler) stateTTLs(hints []ttlHint, ins ...types.Schema) []exec.StateTTL {
	out := make([]exec.StateTTL, len(ins))
	event := true
	for i, in := range ins {
		out[i].TimeCol = rowtimeCol(in)
		event = event && out[i].TimeCol >= 0
	}
	for i := range out {
		out[i].TTL = state.TTL{Millis: c.env.StateTTL}
		if i < len(hints) && hints[i].Set {
			out[i].TTL.Millis = hints[i].Millis
		}
		if !event {
			out[i].TimeCol = -1
		}
	}
	return out
}

// rowtimeCol is the first rowtime column of in, or -1.
func rowtimeCol(in types.Schema) int {
	for i, f := range in {
		if f.Type.Attr == types.RowTime {
			return i
		}
	}
	return -1
}

// ttlName is what an operator's name in the job graph says of its state
// TTLs: nothing when none is on.
func ttlName(ttls ...exec.StateTTL) string {
	var parts []string
	on := false
	for _, t := range ttls {
		on = on || t.TTL.On()
		parts = append(parts, t.String())
	}
	if !on {
		return ""
	}
	return " stateTtl=[" + strings.Join(parts, ", ") + "]"
}
