package window

import (
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
)

// spare is the memory of a fired window kept for the next one: its
// IntTable (cleared, its slots kept), its accumulator columns (every slot
// empty again) and its key, key-group and dirty columns, still charged
// to the budget. A hopping window's slices are small, made and fired one
// after another; reusing one's memory for the next saves allocating,
// zeroing and growing it, and the garbage collector's work on it.
//
// A slice's first rows come before the watermark that fires the window
// freeing an old slice (the watermark lags the rows by its delay), so a
// new slice is made while the old one still lives, and a batch can make
// one slice and retire another in either order: one spare would be
// missing for every other new slice (half of a 1000-key HOP's slices
// allocated their tables afresh). And a subtask fed by several source
// subtasks that read different parts of a file (byte ranges 8 MB apart,
// minutes of event time) holds the windows of all of them, and fires a
// dozen at once when the slowest moves on to its next range: the next
// dozen are made one by one afterwards. So the pool keeps as many fired
// windows' memories as come, up to spareShare of the budget in all.
type spare struct {
	ints         *memseg.IntTable
	accs         []agg.Acc
	ikeys        []uint64
	kgs          []uint16
	hashes       []uint64
	slots        []int32
	dirty        []uint64
	cap, charged int
}

// spareShare bounds the memory the spares keep: a 1/spareShare part of
// the budget, as the slider's (sliderShare).
const spareShare = sliderShare

// retire frees pane p, whose last window has fired, keeping its memory as
// a spare if it has an IntTable and no DISTINCT values, and if the spares
// with it take at most their share of the budget (spareShare).
func (a *Aggregate) retire(p *pane) {
	if p.ints == nil || a.distincts || int64(a.spareBytes+p.charged+p.ints.Bytes()) > a.mem.Budget()/spareShare {
		a.free(p)
		return
	}
	a.spareBytes += p.charged + p.ints.Bytes()
	p.ints.Clear()
	for _, ac := range p.accs {
		for g := range int32(p.len()) {
			ac.Reset(g)
		}
	}
	clear(p.dirty)
	a.spares = append(a.spares, &spare{ints: p.ints, accs: p.accs, ikeys: p.ikeys[:0], kgs: p.kgs[:0], hashes: p.hashes[:0], slots: p.slots[:0], dirty: p.dirty, cap: p.cap, charged: p.charged})
	p.ints, p.accs, p.hashes, p.slots, p.charged = nil, nil, nil, nil, 0
	a.free(p)
}

// reuse gives new pane p a spare's memory; false if there is none.
func (a *Aggregate) reuse(p *pane) bool {
	n := len(a.spares)
	if n == 0 {
		return false
	}
	sp := a.spares[n-1]
	a.spares = a.spares[:n-1]
	a.spareBytes -= sp.charged + sp.ints.Bytes()
	p.ints, p.accs, p.ikeys, p.kgs, p.hashes, p.slots, p.dirty, p.cap, p.charged = sp.ints, sp.accs, sp.ikeys, sp.kgs, sp.hashes, sp.slots, sp.dirty, sp.cap, sp.charged
	return true
}

// dropSpares gives the spares' memory back.
func (a *Aggregate) dropSpares() {
	for _, sp := range a.spares {
		sp.ints.Release()
		for _, ac := range sp.accs {
			agg.Release(ac)
		}
		a.mem.Unreserve(sp.charged)
	}
	a.spares = a.spares[:0]
	a.spareBytes = 0
}

// expected is the groups of the windows to come, which a new pane is
// sized for: those of the last window fired, or before the first fires,
// of the largest pane open. newPane sizes a fresh pane for an eighth
// more, and grows a spare (reuse), which is as large as a window that
// fired, only to that many. Windows of one query hold about as many
// groups each, give or take a few: sized for exactly the last one's, a
// fresh window outgrew its columns by a few groups about every other
// time and doubled them, leaving the old ones as garbage. And before any
// window fires, a subtask fed by sources reading far apart in event time
// (byte ranges of one file) opens a dozen windows or more at once; each
// grew from nothing through every size, faulting in fresh memory twice
// its own.
func (a *Aggregate) expected() int {
	n := a.hint
	if n == 0 {
		for _, p := range a.panes {
			n = max(n, p.len())
		}
	}
	return n
}
