package window

import (
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
)

// spare is the memory of a fired window kept for the next one: its
// IntTable (cleared, its slots kept), its accumulator columns (every slot
// empty again) and its key and dirty columns, still charged to the
// budget. A hopping window's slices are small, made and fired one after
// another; reusing one's memory for the next saves allocating, zeroing
// and growing it, and the garbage collector's work on it.
type spare struct {
	ints         *memseg.IntTable
	accs         []agg.Acc
	ikeys        []uint64
	dirty        []bool
	cap, charged int
}

// retire frees pane p, whose last window has fired, keeping its memory as
// the spare if there is none, if it has an IntTable and no DISTINCT
// values, and if it takes at most its share of the budget (as much as
// the slider may keep).
func (a *Aggregate) retire(p *pane) {
	if a.spare != nil || p.ints == nil || a.distincts || int64(p.charged+p.ints.Bytes()) > a.mem.Budget()/sliderShare {
		a.free(p)
		return
	}
	p.ints.Clear()
	for _, ac := range p.accs {
		for g := range int32(p.len()) {
			ac.Reset(g)
		}
	}
	clear(p.dirty)
	a.spare = &spare{ints: p.ints, accs: p.accs, ikeys: p.ikeys[:0], dirty: p.dirty, cap: p.cap, charged: p.charged}
	p.ints, p.charged = nil, 0
	a.free(p)
}

// reuse gives new pane p the spare's memory; false if there is none.
func (a *Aggregate) reuse(p *pane) bool {
	sp := a.spare
	if sp == nil {
		return false
	}
	a.spare = nil
	p.ints, p.accs, p.ikeys, p.dirty, p.cap, p.charged = sp.ints, sp.accs, sp.ikeys, sp.dirty, sp.cap, sp.charged
	return true
}

// dropSpare gives the spare's memory back.
func (a *Aggregate) dropSpare() {
	if sp := a.spare; sp != nil {
		sp.ints.Release()
		a.mem.Unreserve(sp.charged)
		a.spare = nil
	}
}
