package window

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// Spilled sessions. When the memory budget cannot take a key, a session or
// a DISTINCT value, every key's sessions move to the operator's state store
// (spillAll) and memory starts empty. A spilled key is written as its
// checkpoint entry is (state "S", session_state.go: the key's sessions in
// start order), and each of its sessions gets a timer entry, state "T":
//
//	key: the session's end (8 bytes big-endian, sign bit flipped) | the key
//
// in the key's key group, so that the store orders the spilled sessions of
// a key group by end, then key. The invariant: a key that is not in memory
// has its sessions in the store (if it has any), and a timer for each; a
// key in memory has no timers in the store.
//
// A row of a key that is not in memory looks the key up in the store
// (while any key is spilled) and takes its sessions back into memory,
// deleting their timers (unspill). A watermark fires the spilled sessions
// whose timers it passes straight from the store: the timers of the key
// groups holding any are merged in the order of their keys, so by end
// and key, and each fires the first session of its key's entry, which is
// rewritten without it (or deleted); the spilled sessions so cost only
// what fires, in an order merged with the sessions that fire from memory.
//
// With checkpoints, the store is the checkpointed one: a spilled key's "S"
// entry is its state as a checkpoint must hold it, so a key that comes
// back keeps its entry (it is not dirty) and a snapshot holds every key,
// in memory (written by Flush) or not. The "T" entries are checkpointed
// too but not restored: a restore loads each key into memory and sets its
// timers there, spilling again if the budget is exceeded.
const timerState = "T"

// sessionSpill is where a Sessions spills.
type sessionSpill struct {
	open  func() (*state.Store, error)
	store *state.Store
	batch *state.Batch // indexed: a key's entry is read back after writes
	dirty bool         // batch has writes
	uid   string
	// maxPar is the number of key groups: a key's is
	// memseg.Hash(key) % maxPar, as the Aggregate's (UseStore).
	maxPar uint64
	// keys counts the keys whose sessions are in the store and not in
	// memory; min is at most the least end of their sessions; kgs are the
	// key groups that may hold their timers.
	keys int
	min  int64
	kgs  map[uint16]bool
	n    int64 // spills
	tk   []byte
}

func (sp *sessionSpill) reset() { sp.min = types.MaxWatermark }

// UseStore names the state Flush writes (operator uid, each key in key
// group memseg.Hash(key) % maxPar of its normalized key, exec.KeyGroup's,
// as Aggregate.UseStore's) and lets the aggregate spill what does not fit in
// memory to the store open returns, called on the first spill (with
// checkpoints, the checkpointed store). With a nil open, running out of
// memory fails with ErrMemory.
func (s *Sessions) UseStore(open func() (*state.Store, error), uid string, maxPar int) {
	s.spill.open, s.spill.uid, s.spill.maxPar = open, uid, uint64(maxPar)
}

// kg returns the key group of the normalized key key.
func (sp *sessionSpill) kg(key []byte) uint16 { return uint16(memseg.Hash(key) % sp.maxPar) }

// Spills is the number of times the aggregate has spilled its sessions.
func (s *Sessions) Spills() int64 { return s.spill.n }

// Restored finishes a restore: the entries Load spilled are written.
func (s *Sessions) Restored() error { return s.spill.commit() }

// writes returns the spill store's batch, opening the store.
func (sp *sessionSpill) writes() (*state.Batch, error) {
	if sp.batch == nil {
		if sp.open == nil {
			return nil, fmt.Errorf("%w, and there is no store to spill to", ErrMemory)
		}
		st, err := sp.open()
		if err != nil {
			return nil, fmt.Errorf("window: open spill store: %w", err)
		}
		sp.store, sp.batch = st, st.NewIndexedBatch()
	}
	return sp.batch, nil
}

func (sp *sessionSpill) set(kg uint16, name string, key, value []byte) {
	sp.batch.Set(sp.uid, kg, name, key, value)
	sp.dirty = true
}

func (sp *sessionSpill) del(kg uint16, name string, key []byte) {
	sp.batch.Delete(sp.uid, kg, name, key)
	sp.dirty = true
}

// timerKey is the key of the timer of a session of key ending at end.
func (sp *sessionSpill) timerKey(end int64, key []byte) []byte {
	k := startKey(end)
	sp.tk = append(append(sp.tk[:0], k[:]...), key...)
	return sp.tk
}

func timerEnd(tk []byte) int64 { return int64(binary.BigEndian.Uint64(tk) ^ 1<<63) }

// commit applies the batch's writes, if any.
func (sp *sessionSpill) commit() error {
	if !sp.dirty {
		return nil
	}
	sp.dirty = false
	return sp.batch.Commit()
}

// commitIfLarge bounds the heap the batch takes.
func (sp *sessionSpill) commitIfLarge() error {
	if sp.batch.Len() < 4<<20 {
		return nil
	}
	return sp.commit()
}

// spilled records that key group kg holds timers of sessions ending at
// end and later.
func (sp *sessionSpill) spilled(kg uint16, end int64) {
	if sp.kgs == nil {
		sp.kgs = map[uint16]bool{}
	}
	sp.kgs[kg] = true
	sp.min = min(sp.min, end)
}

// spillAll moves every key's sessions to the store, and empties memory.
func (s *Sessions) spillAll() error {
	sp := &s.spill
	if _, err := sp.writes(); err != nil {
		return err
	}
	for k, addr := range s.addrs {
		key := s.table.KeyAt(addr)
		kg := sp.kg(key)
		if s.head[k] < 0 {
			if s.stored[k] {
				sp.del(kg, sessionState, key)
			}
			continue
		}
		if !s.track || !s.stored[k] || s.dirty[k] {
			sp.set(kg, sessionState, key, s.encode(int32(k)))
		}
		for cur := s.head[k]; cur >= 0; cur = s.next[cur] {
			sp.set(kg, timerState, sp.timerKey(s.end[cur], key), nil)
			sp.spilled(kg, s.end[cur])
		}
		sp.keys++
		if err := sp.commitIfLarge(); err != nil {
			return err
		}
	}
	if err := sp.commit(); err != nil {
		return err
	}
	s.clear()
	sp.n++
	return nil
}

// clear forgets every key and session in memory and gives their memory
// back.
func (s *Sessions) clear() {
	// New tables, not Reset ones: a reset table sizes its buckets for as
	// many keys as it held, which would take the memory just freed.
	s.table.Release()
	s.table = memseg.NewHashTable(s.mem, 4)
	s.addrs, s.head, s.dirty, s.stored, s.dirtyList = nil, nil, nil, nil, nil
	s.dead = 0
	s.start, s.end, s.next, s.owner, s.fwd, s.gen = nil, nil, nil, nil, nil, nil
	s.free, s.timers, s.timersCharged = nil, nil, 0
	s.accs, _ = s.newAccs() // NewSessions made them once
	for _, d := range s.dist {
		if d != nil {
			d.use(s.mem)
			d.first, d.last, d.next, d.head, d.n, d.setCap = nil, nil, nil, nil, nil, 0
			d.live, d.dead = 0, 0
		}
	}
	s.mem.Unreserve(s.charged)
	s.charged, s.cap, s.keyCap = 0, 0, 0
}

// unspill takes key k's sessions back from the store into memory, if it
// has any there. It returns ErrNoMemory, having changed nothing, when they
// do not fit.
func (s *Sessions) unspill(k int32, key []byte) error {
	sp := &s.spill
	kg := sp.kg(key)
	v, ok, err := sp.batch.Get(sp.uid, kg, sessionState, key)
	if err != nil || !ok {
		return err
	}
	if err := s.decodeInto(k, v); err != nil {
		return err
	}
	for cur := s.head[k]; cur >= 0; cur = s.next[cur] {
		sp.del(kg, timerState, sp.timerKey(s.end[cur], key))
	}
	if s.track {
		s.stored[k] = true
	} else {
		sp.del(kg, sessionState, key)
	}
	sp.keys--
	return nil
}

// placeAlone folds row i of b into its key's sessions in the store, when
// the key and its sessions do not fit in memory even alone (a watermark
// held back leaves a key many open sessions): through a Sessions of its
// own, outside the budget, which holds that one key while the row goes
// in. The key stays spilled.
func (s *Sessions) placeAlone(b arrow.RecordBatch, i int) error {
	sp := &s.spill
	key := s.enc.Append(nil, i)
	kg := sp.kg(key)
	alone, err := NewSessions(s.spec, s.alloc)
	if err != nil {
		return err
	}
	defer alone.Release()
	alone.wm = s.wm
	k, err := alone.keyOf(key)
	if err != nil {
		return err
	}
	v, spilled, err := sp.batch.Get(sp.uid, kg, sessionState, key)
	if err != nil {
		return err
	}
	if spilled {
		if err := alone.decodeInto(k, v); err != nil {
			return err
		}
		for cur := alone.head[k]; cur >= 0; cur = alone.next[cur] {
			sp.del(kg, timerState, sp.timerKey(alone.end[cur], key))
		}
	}
	row := b.NewSlice(int64(i), int64(i+1))
	defer row.Release()
	if _, err := alone.Add(row); err != nil {
		return err
	}
	sp.set(kg, sessionState, key, alone.encode(k))
	for cur := alone.head[k]; cur >= 0; cur = alone.next[cur] {
		sp.set(kg, timerState, sp.timerKey(alone.end[cur], key), nil)
		sp.spilled(kg, alone.end[cur])
	}
	if !spilled {
		sp.keys++
	}
	return sp.commitIfLarge()
}

// spillEntry writes a restored entry straight to the store, spilled.
func (s *Sessions) spillEntry(kg uint16, key, value []byte) error {
	sp := &s.spill
	if _, ok, err := sp.batch.Get(sp.uid, kg, sessionState, key); err != nil || ok {
		if err == nil {
			err = fmt.Errorf("%w: sessions of a key stored twice", ErrCorrupt)
		}
		return err
	}
	var ends []int64
	err := eachSession(value, func(_, end int64, _ []byte) error {
		ends = append(ends, end)
		return nil
	})
	if err != nil {
		return err
	}
	sp.set(kg, sessionState, key, value)
	for _, end := range ends {
		sp.set(kg, timerState, sp.timerKey(end, key), nil)
		sp.spilled(kg, end)
	}
	sp.keys++
	return sp.commitIfLarge()
}

// dueSessions merges the spilled timers that a watermark passes, over the
// key groups that hold any, in the order of their keys (end, then key).
type dueSessions struct {
	s    *Sessions
	its  dueHeap
	wm   int64
	next int64 // the least end at or after wm seen
}

type dueIter struct {
	it *state.Iter
	kg uint16
}

type dueHeap []dueIter

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return bytes.Compare(h[i].it.Key(), h[j].it.Key()) < 0 }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueIter)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dueSpilled returns the spilled sessions ending before wm, or nil if
// there are none.
func (s *Sessions) dueSpilled(wm int64) (*dueSessions, error) {
	sp := &s.spill
	if sp.keys == 0 || sp.min >= wm {
		return nil, nil
	}
	d := &dueSessions{s: s, wm: wm, next: types.MaxWatermark}
	for kg := range sp.kgs {
		it, err := sp.store.NewIter(sp.uid, kg, timerState, nil)
		if err != nil {
			d.close()
			return nil, err
		}
		if !it.First() {
			delete(sp.kgs, kg)
			if err := it.Close(); err != nil {
				d.close()
				return nil, err
			}
			continue
		}
		if end := timerEnd(it.Key()); end >= wm {
			d.next = min(d.next, end)
			if err := it.Close(); err != nil {
				d.close()
				return nil, err
			}
			continue
		}
		d.its = append(d.its, dueIter{it: it, kg: kg})
	}
	heap.Init(&d.its)
	return d, nil
}

// peek returns the end and key of the next due session.
func (d *dueSessions) peek() (int64, []byte, bool) {
	if d == nil || len(d.its) == 0 {
		return 0, nil, false
	}
	tk := d.its[0].it.Key()
	return timerEnd(tk), tk[8:], true
}

// advance moves past the next due session.
func (d *dueSessions) advance() error {
	top := d.its[0].it
	if top.Next() {
		end := timerEnd(top.Key())
		if end < d.wm {
			heap.Fix(&d.its, 0)
			return nil
		}
		d.next = min(d.next, end)
	}
	heap.Pop(&d.its)
	return top.Close()
}

// close closes the iterators and records where the next due timers are:
// an error left some unread, which the next watermark reads again.
func (d *dueSessions) close() {
	if d == nil {
		return
	}
	sp := &d.s.spill
	sp.min = d.next
	for _, it := range d.its {
		it.it.Close()
		sp.min = types.MinWatermark
	}
	d.its = nil
}

// fireSpilled fires the next due spilled session into o: the first of its
// key's entry, which the store keeps without it.
func (s *Sessions) fireSpilled(d *dueSessions, o *sessionOut) error {
	sp := &s.spill
	kg := d.its[0].kg
	end, key, _ := d.peek()
	v, ok, err := sp.batch.Get(sp.uid, kg, sessionState, key)
	if err != nil {
		return err
	}
	r := reader{b: v}
	n := r.uvarint()
	lo, hi := r.varint(), r.varint()
	st := r.bytes()
	if !ok || r.err != nil || n == 0 || hi != end {
		return fmt.Errorf("%w: a spilled session's timer at %d without its session", ErrCorrupt, end)
	}
	if _, err := o.addState(lo, hi, key, st); err != nil {
		return err
	}
	sp.del(kg, timerState, sp.timerKey(end, key))
	if n == 1 {
		sp.del(kg, sessionState, key)
		sp.keys--
	} else {
		rest := binary.AppendUvarint(nil, n-1)
		sp.set(kg, sessionState, key, append(rest, r.b...))
	}
	if err := sp.commitIfLarge(); err != nil {
		return err
	}
	return d.advance()
}
