package exec

import "github.com/strandsql/strand/types"

// floorsAhead computes an InOrder subtask's watermark in constant time
// per batch: it reads states[first] (every split before it is done), and
// the splits after it that had not started when it opened them count at
// their fixed floors, whose minimum from each index on it keeps, so that
// a directory of many files is not walked for each batch. A split that
// had started (a restored one, part read) past first falls back to
// splitsWatermark until first reaches it.
type floorsAhead struct {
	floor   []int64 // floor[i]: the least floor of unstarted splits i..
	any     []bool  // any[i]: whether there is such a split
	started int     // the last index of a split started when opened, or -1
}

func newFloorsAhead(states []*splitState) *floorsAhead {
	n := len(states)
	a := &floorsAhead{floor: make([]int64, n+1), any: make([]bool, n+1), started: -1}
	a.floor[n] = types.MaxWatermark
	for i := n - 1; i >= 0; i-- {
		a.floor[i], a.any[i] = a.floor[i+1], a.any[i+1]
		if states[i].started {
			a.started = max(a.started, i)
			continue
		}
		a.floor[i], a.any[i] = min(a.floor[i], states[i].floor), true
	}
	return a
}

// watermark is splitsWatermark(states[first:]).
func (a *floorsAhead) watermark(states []*splitState, first int) (wm int64, active bool) {
	if first >= len(states) || first < a.started || len(states) != len(a.floor)-1 {
		return splitsWatermark(states[first:])
	}
	st := states[first]
	wm, active = a.floor[first+1], a.any[first+1]
	if w, ok := st.watermark(); ok {
		wm, active = min(wm, w), true
	}
	return wm, active || st.done && !a.any[first+1]
}
