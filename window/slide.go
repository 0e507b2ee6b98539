package window

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
)

// Windows of several slices (HOP, CUMULATE) whose panes have IntTables
// fire through a slider: a table of the keys of the slices that recent
// windows covered (memseg.IntTable, kept from window to window), whose
// values number the slider's slots, with accumulators per slot and the
// slots in key order. A slice's groups are given their slots once, when
// the slice's first window fires (IntTable.Union, the keys' hashes
// computed once); its later windows reuse them. A window then merges each
// of its slices' groups into their slots (one agg.Acc.MergeRows per slice
// and aggregate, marking the slots it touches), walks the slots in key
// order emitting the marked ones, and resets them. So a slice group costs
// a probe of the slider's table once and a step of a tight merge loop per
// window, with no sort or k-way merge per window. Slot 0 is the NULL
// key's. Keys of slices that expired stay in the slider until it holds
// more than twice the keys of the windows it fires; it then starts again
// empty (a new generation: the slices' slots are given again).

// slider is fireSlices' state, kept across windows: the table from keys to
// slots (a key's slot is its value + 1), the keys by slot, the slots in
// key order (the NULL slot apart), the accumulators (slots 0..cap-1, empty
// but for a window firing) and per slot the last window that touched it.
type slider struct {
	table  *memseg.IntTable
	gen    uint64
	keys   []uint64 // keys[s-1] is slot s's
	sorted []int32
	accs   []agg.Acc
	cap    int // slots of accs and mark, charged to the budget
	mark   []uint32
	seq    uint32
	// Scratch: slots added by a window, the merge of the sorted slots,
	// and a batch's keys.
	added  []intPair
	merged []int32
	us     []uint64
	valid  []bool
}

// sliderShare bounds the memory the slider keeps between firings (its
// table, accumulators and marks) to this fraction of the budget: more is
// given back after each Advance.
const sliderShare = 16

// fireSlices emits window [ws, we), whose slices with state (all in
// memory, with IntTables) are cover. It returns false, having emitted
// nothing, when the budget cannot take the slider's table or
// accumulators: the caller fires the window another way.
func (a *Aggregate) fireSlices(cover []*pane, ws, we int64, emit func(arrow.RecordBatch) error) (bool, error) {
	if a.slider == nil {
		a.sliders++
		a.slider = &slider{table: memseg.NewIntTable(a.mem), gen: a.sliders, accs: a.newAccs()}
	}
	w := a.slider
	for _, p := range cover {
		if p.slotGen != w.gen {
			if err := a.giveSlots(p); err != nil {
				a.trimSlider(true)
				return false, nil
			}
		}
	}
	if err := a.sliderRoom(w.table.Len() + 1); err != nil {
		a.trimSlider(true)
		return false, nil
	}
	a.sortSlots()
	w.seq++
	if w.seq == 0 { // wrapped: no mark may look current
		clear(w.mark)
		w.seq = 1
	}
	for _, p := range cover {
		for _, s := range p.slots {
			w.mark[s] = w.seq
		}
		for i, ac := range w.accs {
			ac.MergeRows(p.slots, p.accs[i], a.iota(len(p.slots)))
		}
	}
	// The window's slots in key order: NULL first, then by value.
	order := a.order[:0]
	if w.mark[0] == w.seq {
		order = append(order, 0)
	}
	for _, s := range w.sorted {
		if w.mark[s] == w.seq {
			order = append(order, s)
		}
	}
	a.order = order
	var err error
	for lo := 0; lo < len(order) && err == nil; lo += a.spec.BatchSize {
		chunk := order[lo:min(lo+a.spec.BatchSize, len(order))]
		err = a.emit(ws, we, w.accs, chunk, func(kb []array.Builder) error {
			us := slices.Grow(w.us[:0], len(chunk))[:len(chunk)]
			var valid []bool
			if chunk[0] == 0 {
				valid = slices.Grow(w.valid[:0], len(chunk))[:len(chunk)]
			}
			w.us, w.valid = us, valid
			for i, s := range chunk {
				if s == 0 {
					valid[i] = false
					continue
				}
				us[i] = w.keys[s-1]
				if valid != nil {
					valid[i] = true
				}
			}
			a.appendInts(kb[0], us, valid)
			return nil
		}, emit)
	}
	for _, ac := range w.accs {
		for _, s := range order {
			ac.Reset(s)
		}
	}
	if n := w.table.Len(); n > 4096 && n > 2*len(order) {
		// Mostly keys of expired slices: start again.
		a.trimSlider(true)
	}
	return true, err
}

// giveSlots gives pane p's groups their slots in the slider, adding the
// keys it does not hold yet.
func (a *Aggregate) giveSlots(p *pane) error {
	w := a.slider
	if len(p.hashes) != len(p.ikeys) {
		p.hashes = slices.Grow(p.hashes[:0], len(p.ikeys))[:len(p.ikeys)]
		for g, u := range p.ikeys {
			p.hashes[g] = memseg.HashInt64(int64(u ^ 1<<63))
		}
	}
	p.slots = slices.Grow(p.slots[:0], len(p.ikeys))[:len(p.ikeys)]
	// The NULL group has no key in the table: the keys before and after
	// it.
	lo, hi := len(p.ikeys), len(p.ikeys)
	if p.null >= 0 {
		lo, hi = int(p.null), int(p.null)+1
		p.slots[p.null] = -1 // slot 0 after the shift below
	}
	from := len(w.keys)
	var err error
	if w.keys, err = w.table.Union(p.ikeys[:lo], p.hashes[:lo], p.slots[:lo], w.keys); err == nil {
		w.keys, err = w.table.Union(p.ikeys[hi:], p.hashes[hi:], p.slots[hi:], w.keys)
	}
	for v := from; v < len(w.keys); v++ {
		w.added = append(w.added, intPair{u: w.keys[v], g: int32(v + 1)})
	}
	if err != nil {
		return err
	}
	for g := range p.slots {
		p.slots[g]++
	}
	p.slotGen = w.gen
	return nil
}

// sortSlots merges the slots giveSlots added into the slots in key order.
func (a *Aggregate) sortSlots() {
	w := a.slider
	if len(w.added) == 0 {
		return
	}
	a.pairTmp = sortPairs(w.added, a.pairTmp)
	out := w.merged[:0]
	i := 0
	for _, s := range w.sorted {
		u := w.keys[s-1]
		for ; i < len(w.added) && w.added[i].u < u; i++ {
			out = append(out, w.added[i].g)
		}
		out = append(out, s)
	}
	for ; i < len(w.added); i++ {
		out = append(out, w.added[i].g)
	}
	w.sorted, w.merged = out, w.sorted
	w.added = w.added[:0]
}

// sliderRoom makes room for n slots in the slider's accumulators and
// marks, charging the budget.
func (a *Aggregate) sliderRoom(n int) error {
	w := a.slider
	if n <= w.cap {
		return nil
	}
	c := max(n, 2*w.cap)
	if err := a.mem.Reserve((c - w.cap) * (a.accBytes + 4)); err != nil {
		return err
	}
	w.cap = c
	for _, ac := range w.accs {
		ac.Grow(c)
	}
	w.mark = agg.Grow(w.mark, c)
	return nil
}

// trimSlider gives the slider's memory back if it holds more than its
// share of the budget, or when all is set: its slots are given again, to
// the slices of the windows that fire next.
func (a *Aggregate) trimSlider(all bool) {
	w := a.slider
	if w == nil || !all && int64(w.table.Bytes()+w.cap*(a.accBytes+4)) <= a.mem.Budget()/sliderShare {
		return
	}
	w.table.Release()
	a.mem.Unreserve(w.cap * (a.accBytes + 4))
	a.slider = nil
}
