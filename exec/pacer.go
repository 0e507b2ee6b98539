package exec

import (
	"math"
	"sync"
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
// Positions count bytes, not splits, where the source is Sized: the files
// of a directory differ in size, and counted in splits a subtask done
// with two small files stood waiting for another's large one, reading
// nothing (one of two subtasks idle for the length of that file). The
// split a subtask may be ahead by is then the largest one.
//
// Which rows a subtask reads and which it drops as late depend only on
// its splits (lateness is per split), so waiting changes when rows
// arrive, never the results.
type pacer struct {
	// pos is each subtask's position in the splits' order (start): subtask
	// s's k-th split is split k*p+s, and the subtask is as far into it as
	// it has read; unset until the subtask first reports, meaning the
	// start of its first split; doneAt once it has read all its splits or
	// stopped.
	pos []atomic.Int64
	// measure computes start and limit once, from the splits' sizes.
	measure sync.Once
	// start[g] is where split g starts: the sizes of the splits before it,
	// in bytes if every split has one (Sized), else paceUnit each; its
	// last entry is the end of the last split. bytes says which.
	start []int64
	bytes bool
	// limit is how far ahead of another a subtask may be before it
	// waits: p-1 of the largest splits and half of one.
	limit int64
}

// paceUnit is the resolution of a pacer's positions, per split, for a
// source whose splits have no size.
const paceUnit = 1 << 10

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
		pc.pos[s].Store(unset)
	}
	return pc
}

// unset is the position of a subtask that has not reported one yet.
const unset = -1

// sizes measures splits, the source's splits in the order the subtasks
// share them, once; each subtask calls it before it reports a position.
func (pc *pacer) sizes(splits []Split, src Source) {
	pc.measure.Do(func() {
		n := len(splits)
		pc.start = make([]int64, n+1)
		largest := int64(0)
		if sz, ok := src.(Sized); ok {
			pc.bytes = true
			for g, s := range splits {
				size, err := sz.Size(s)
				if err != nil || size < 0 {
					pc.bytes = false // a split without a size: count splits
					break
				}
				pc.start[g+1] = pc.start[g] + size
				largest = max(largest, size)
			}
		}
		if !pc.bytes {
			for g := range n {
				pc.start[g+1] = pc.start[g] + paceUnit
			}
			largest = paceUnit
		}
		pc.limit = int64(len(pc.pos)-1)*largest + largest/2
	})
}

// position is subtask sub's position at its k-th split, of which it has
// read read of size bytes (a size <= 0 counts as not started).
func (pc *pacer) position(sub, k int, read, size int64) int64 {
	g := min(k*len(pc.pos)+sub, len(pc.start)-1)
	pos := pc.start[g]
	switch {
	case size <= 0:
	case pc.bytes:
		pos += min(read, size)
	default:
		pos += min(read, size) * paceUnit / size
	}
	return pos
}

// set records subtask sub's position.
func (pc *pacer) set(sub int, pos int64) { pc.pos[sub].Store(pos) }

// done takes subtask sub out of the others' way.
func (pc *pacer) done(sub int) { pc.pos[sub].Store(doneAt) }

// ahead reports whether subtask sub, at pos, is more than the limit ahead
// of another subtask.
func (pc *pacer) ahead(sub int, pos int64) bool {
	for s := range pc.pos {
		other := pc.pos[s].Load()
		if other == unset {
			other = pc.start[min(s, len(pc.start)-1)]
		}
		if s != sub && other != doneAt && pos-other > pc.limit {
			return true
		}
	}
	return false
}
