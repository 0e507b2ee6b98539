package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/strandsql/strand/types"
)

// TestFloorsAheadMatchesScan drives random InOrder subtasks split by
// split, as sourceTask.run does, and checks that floorsAhead's watermark
// is splitsWatermark's at every step.
func TestFloorsAheadMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		n := 1 + rng.IntN(12)
		states := make([]*splitState, n)
		for i := range states {
			st := &splitState{started: rng.IntN(4) == 0, wm: types.MinWatermark}
			switch {
			case st.started && rng.IntN(3) == 0:
				st.done = true
			case st.started:
				st.wm = rng.Int64N(100)
			case rng.IntN(5) == 0:
				st.floor = types.MaxWatermark // an empty split
			default:
				st.floor = rng.Int64N(100)
			}
			states[i] = st
		}
		ahead := newFloorsAhead(states)
		first := 0
		for step := 0; step < 4*n; step++ {
			for first < len(states) && states[first].done {
				first++
			}
			if first == len(states) {
				break
			}
			st := states[first]
			if !st.started {
				st.started, st.wm = true, max(st.wm, st.floor-rng.Int64N(3))
			}
			switch rng.IntN(4) {
			case 0:
				st.done = true
			case 1:
				st.idle = !st.idle
			default:
				st.wm += rng.Int64N(10)
			}
			wm, active := ahead.watermark(states, first)
			want, wantActive := splitsWatermark(states[first:])
			if wm != want || active != wantActive {
				t.Fatalf("round %d step %d: got (%d, %t), want (%d, %t)", round, step, wm, active, want, wantActive)
			}
		}
	}
}
