package exec

import (
	"math"
	"sync/atomic"
)

// A pacer keeps the subtasks of a source that reads its splits in order
// (InOrder) close together in the order of the splits. Subtask s reads
// splits s, s+p, s+2p, ... of the p subtasks' list, so at the same speed
// the subtasks read p neighboring splits at once: for one large file of
// byte ranges, rows at most p-1 ranges apart in the file, and so in event
// time. Nothing else bounds how far one subtask gets ahead of another
// (the exchange's channels bound the rows in flight, not their time), and
// the windows downstream keep every window between the slowest subtask's
// watermark and the fastest one's rows open: with p = 2 and 8 MB ranges
// of 10 s windows, measured spreads of 400 to 1 400 s of event time
// instead of 125, about a hundred windows open instead of a dozen, their
// state faulted in fresh and cold in the cache. A subtask more than
// p-1 splits and a half ahead of the one furthest behind waits
// (sourceTask.keepPace).
//
// Which rows a subtask reads and which it drops as late depend only on
// its splits (lateness is per split), so waiting changes when rows
// arrive, never the results.
type pacer struct {
	// pos is each subtask's position in the splits' order, in units of
	// 1/paceUnit split: subtask s's k-th split is k*p+s, plus the
	// fraction of it read; doneAt once a subtask has read all its splits
	// or stopped.
	pos []atomic.Int64
}

// paceUnit is the resolution of a pacer's positions, per split.
const paceUnit = 1 << 10

// paceSlack is how far past its place, in 1/paceUnit split, a subtask
// may read before it waits.
const paceSlack = paceUnit / 2

// doneAt is the position of a subtask that holds no one back.
const doneAt = math.MaxInt64

// newPacer returns the pacer of a source of p subtasks, each at the start
// of its first split; nil for one subtask, which has no one to keep pace
// with.
func newPacer(p int) *pacer {
	if p <= 1 {
		return nil
	}
	pc := &pacer{pos: make([]atomic.Int64, p)}
	for s := range pc.pos {
		pc.pos[s].Store(int64(s) * paceUnit)
	}
	return pc
}

// position is subtask sub's position at its k-th split, of which it has
// read read of size bytes (a size <= 0 counts as not started).
func (pc *pacer) position(sub, k int, read, size int64) int64 {
	pos := int64(k*len(pc.pos)+sub) * paceUnit
	if size > 0 {
		pos += min(read, size) * paceUnit / size
	}
	return pos
}

// set records subtask sub's position.
func (pc *pacer) set(sub int, pos int64) { pc.pos[sub].Store(pos) }

// done takes subtask sub out of the others' way.
func (pc *pacer) done(sub int) { pc.pos[sub].Store(doneAt) }

// ahead reports whether subtask sub, at pos, is more than p-1 splits and
// paceSlack ahead of another subtask.
func (pc *pacer) ahead(sub int, pos int64) bool {
	limit := int64(len(pc.pos)-1)*paceUnit + paceSlack
	for s := range pc.pos {
		if other := pc.pos[s].Load(); s != sub && other != doneAt && pos-other > limit {
			return true
		}
	}
	return false
}
