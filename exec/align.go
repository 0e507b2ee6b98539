package exec

import (
	"sync/atomic"

	"github.com/strandsql/strand/types"
)

// Alignment puts a source in a watermark alignment group, Flink's
// scan.watermark.alignment.* (FLIP-182, FLIP-296 for SQL): its subtasks
// read nothing while their watermark is more than MaxDrift ahead of the
// least watermark of the group's subtasks, those of every source of the
// job in the group. The zero Alignment (no Group) aligns nothing.
//
// Flink's update-interval, how often its coordinator publishes the
// group's least watermark, has no counterpart here: a subtask computes
// the least from the others' watermarks each time it looks (after every
// batch, and every paceWait while it waits), so it is never staler than
// one batch, within any interval the option allows.
type Alignment struct {
	Group string
	// MaxDrift is in milliseconds, more than zero.
	MaxDrift int64
}

// An alignGroup is the watermarks of the subtasks of one alignment group
// in one run: each writes its own after every batch, an atomic store,
// and reads the others' to find the least. A subtask that holds no one
// back stores holdsNone: one done, one whose splits are all idle
// (table.exec.source.idle-timeout), and one that has no watermark yet.
// Flink's readers too hold their group back only once they have a
// watermark; the other choice, a subtask without one at the least
// watermark of all, would stall the group for as long as a split has no
// rows (a Kafka partition without records, with no idle timeout to end
// it).
//
// No subtask waits for itself, nor for one that waits: the least
// watermark is that of a subtask that holds the group back, and its own
// watermark, being the least, is never ahead of it. A subtask waiting
// for its source's others (pacer) holds no one back meanwhile, so that
// the two kinds of waiting cannot wait for each other. So some subtask
// always reads; only one whose splits have no rows and are never idle
// can stall the group, as it stalls the job's watermark anyway.
type alignGroup struct {
	wm []atomic.Int64
}

// holdsNone is the watermark an alignGroup holds for a subtask that holds
// no one back: at MaxWatermark, the end of input, a subtask holds none.
const holdsNone = types.MaxWatermark

// An aligner is one source subtask's place in its alignment group.
type aligner struct {
	g     *alignGroup
	self  int
	drift int64
	// held is what the subtask last stored, kept to store only changes.
	held int64
}

// alignments makes the run's alignment groups, one per group name over
// the source vertices of g, and returns the aligners of each aligned
// vertex's subtasks, in subtask order.
func alignments(g *Graph) map[*Vertex][]*aligner {
	size := map[string]int{}
	for _, v := range g.Vertices {
		if v.Source != nil && v.Source.Align.Group != "" {
			size[v.Source.Align.Group] += v.Parallelism
		}
	}
	groups := map[string]*alignGroup{}
	for name, n := range size {
		ag := &alignGroup{wm: make([]atomic.Int64, n)}
		for i := range ag.wm {
			ag.wm[i].Store(holdsNone)
		}
		groups[name] = ag
	}
	next := map[string]int{}
	out := map[*Vertex][]*aligner{}
	for _, v := range g.Vertices {
		if v.Source == nil || v.Source.Align.Group == "" {
			continue
		}
		name := v.Source.Align.Group
		for range v.Parallelism {
			out[v] = append(out[v], &aligner{g: groups[name], self: next[name], drift: v.Source.Align.MaxDrift, held: holdsNone})
			next[name]++
		}
	}
	return out
}

// hold records the subtask's watermark, MinWatermark (none yet) or
// holdsNone meaning it holds no one back.
func (a *aligner) hold(wm int64) {
	if wm == types.MinWatermark {
		wm = holdsNone
	}
	if wm != a.held {
		a.held = wm
		a.g.wm[a.self].Store(wm)
	}
}

// ahead reports whether the subtask's watermark is more than its drift
// ahead of the least of its group's.
func (a *aligner) ahead() bool {
	if a.held == holdsNone {
		return false
	}
	least := a.held
	for i := range a.g.wm {
		least = min(least, a.g.wm[i].Load())
	}
	// least <= held, so their difference, unsigned, cannot overflow.
	return uint64(a.held-least) > uint64(a.drift)
}
