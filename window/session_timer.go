package window

import "slices"

// Session timers. Firing must cost the sessions that fire, not the
// sessions held: a min-heap of timers orders the sessions in memory by
// end, and a watermark pops the timers below it.
//
// A timer names a session by its slot and the slot's generation, and
// holds the session's end when it was set. Ends only grow while a session
// lives (a row extends it, or it takes in the sessions it now touches), so
// a timer is never later than its session: when it pops, the session
// fires if its end is passed, or is set again at its new end. A session
// that merged into another, or fired, left its slot with a new generation:
// its timer is stale and dropped when it pops. Each live session so has
// exactly one timer, set when the session is made (a row opens it, a
// restore or an unspill loads it), and the heap holds at most the live
// sessions and the stale timers of those that went since; when it fills
// its room the stale timers are swept out, and it grows to twice what it
// holds, charged to the budget.
//
// The heap is not checkpointed: it is derived from the sessions, and a
// restore sets a timer for each session it loads, in whatever key groups
// the subtask now has. Spilled sessions have their timers in the state
// store instead (session_spill.go), one entry per session keyed by end,
// in the session's key group.
type timer struct {
	end  int64
	slot int32
	gen  uint32
}

const timerBytes = 16

// roomForTimers makes room in the heap for n more timers, charging the
// budget for what it grows by: a full heap is swept first, and grows to
// twice what it holds. It returns ErrNoMemory, having changed nothing the
// sessions hold, when the budget cannot take it.
func (s *Sessions) roomForTimers(n int) error {
	if cap(s.timers)-len(s.timers) >= n {
		return nil
	}
	s.sweepTimers()
	if cap(s.timers)-len(s.timers) >= n && len(s.timers) < cap(s.timers)/2 {
		return nil
	}
	grow := max(16, len(s.timers), n)
	if err := s.reserve(grow * timerBytes); err != nil {
		return err
	}
	s.timers = slices.Grow(s.timers, grow)
	s.timersCharged += grow * timerBytes
	return nil
}

// pushTimer sets a timer at the end of the session in slot. There is room
// for it: a new session made it (roomForTimers), or a timer popped.
func (s *Sessions) pushTimer(slot int32) {
	s.timers = append(s.timers, timer{end: s.end[slot], slot: slot, gen: s.gen[slot]})
	s.siftUp(len(s.timers) - 1)
}

// popTimer removes and returns the earliest timer.
func (s *Sessions) popTimer() timer {
	h := s.timers
	t := h[0]
	last := len(h) - 1
	h[0] = h[last]
	s.timers = h[:last]
	if last > 0 {
		s.siftDown(0)
	}
	return t
}

// sweepTimers drops the stale timers and restores the heap order.
func (s *Sessions) sweepTimers() {
	h := s.timers[:0]
	for _, t := range s.timers {
		if s.gen[t.slot] == t.gen {
			h = append(h, t)
		}
	}
	s.timers = h
	for i := len(h)/2 - 1; i >= 0; i-- {
		s.siftDown(i)
	}
}

func (s *Sessions) siftUp(i int) {
	h := s.timers
	t := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].end <= t.end {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = t
}

func (s *Sessions) siftDown(i int) {
	h := s.timers
	n := len(h)
	t := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].end < h[c].end {
			c++
		}
		if t.end <= h[c].end {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = t
}
