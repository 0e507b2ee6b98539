package exec

import (
	"time"

	"github.com/strandsql/strand/state"
)

// StateGauge measures the state store of a keyed operator outside windows
// (a join, group aggregate, deduplication) into its subtask's metrics:
// StateSpilled, the store's bytes in Pebble's files, and StateMemtable,
// its bytes in memtables. Pebble's metrics take a lock and allocate, so
// it measures at most once a second of wall time; what it measures is
// never part of a result.
//
// Several stateful operators may share a subtask (a chain): each has a
// gauge of its own, which adds the change of what it last recorded to the
// subtask's totals, so that they sum the operators' stores instead of
// holding the last one measured.
type StateGauge struct {
	sub   *SubtaskMetrics
	store *state.Store
	next  time.Time
	// disk and memtable are what the gauge last recorded.
	disk, memtable int64
}

// Open attaches the gauge to the subtask's metrics and store.
func (g *StateGauge) Open(ctx *TaskContext, st *state.Store) {
	g.sub, g.store = ctx.counters(), st
}

// Keys adds delta to the subtask's count of stored entries.
func (g *StateGauge) Keys(delta int64) {
	if g.sub != nil && delta != 0 {
		g.sub.StateKeys.Add(delta)
	}
}

// CountKeys counts into the subtask's metrics the entries of the state
// names of operator uid in key groups lo..hi that w and the store hold:
// the restored ones, when an operator that counts its entries opens.
func (g *StateGauge) CountKeys(w *state.Batch, uid string, lo, hi int, names ...string) error {
	n := int64(0)
	for kg := lo; kg <= hi; kg++ {
		for _, name := range names {
			err := w.ScanPrefix(uid, uint16(kg), name, nil, func(_, _ []byte) error {
				n++
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	g.Keys(n)
	return nil
}

// Measure records the store's sizes if a second has passed since the last
// time.
func (g *StateGauge) Measure() {
	if g.store == nil || time.Now().Before(g.next) {
		return
	}
	g.next = time.Now().Add(time.Second)
	mem, disk := g.store.Sizes()
	g.Disk(disk)
	g.sub.StateMemtable.Add(mem - g.memtable)
	g.memtable = mem
}

// Disk records n bytes of the operator's store on disk: a window
// operator's, measured after each spill and checkpoint.
func (g *StateGauge) Disk(n int64) {
	g.sub.StateSpilled.Add(n - g.disk)
	g.disk = n
}
