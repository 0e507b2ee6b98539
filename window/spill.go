package window

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/state"
)

// Spilled state. When the memory budget cannot take a new group, every
// window's in-memory state moves to the operator's state store under state
// name "s", in the key group of each group's key:
//
//	start key 0x00 seq          → the group's accumulators (acc.put)
//	start key 0x01 agg value    → empty: a DISTINCT value the group has seen
//
// start is the window start (as in "p"), key the group's normalized key
// (self-delimiting: its columns decode), seq a big-endian uint64 unique to
// the spill, agg the DISTINCT aggregate's index as a uvarint (one byte
// below 128), and value a DISTINCT value's normalized key. The same group
// spilled twice has two accumulator entries, which firing merges; the same
// DISTINCT value spilled twice is one entry. Checkpoints carry the entries
// like any other state, and a restore routes them by key group.
//
// A window with spilled parts fires by spilling what its slices still hold
// in memory and merging their key groups' entries in key order: each
// group's accumulators merge, and each DISTINCT aggregate is computed
// again from the group's values, so a group's output is what it would
// have been had nothing spilled. A slice's entries are deleted when the
// last window covering it has fired. (start is the slice's start.)
const spillState = "s"

// Tags after a spilled group's key.
const (
	tagAccs     = 0x00
	tagDistinct = 0x01
)

// spill is where an aggregate spills.
type spill struct {
	open  func() (*state.Store, error)
	store *state.Store
	uid   string
	// maxPar is the number of key groups, 0 before UseStore: from then
	// on each group's key group is recorded when it is made (record).
	maxPar uint64
	seq    uint64
	batch  *state.Batch
	n      int64 // spills so far
}

// UseStore lets the aggregate spill state that does not fit in memory to
// a state store, which open returns (it is called on the first spill),
// under operator uid; Flush writes checkpointed state under the same uid.
// Both put each group in key group memseg.Hash(key) % maxPar of its
// normalized key, exec.KeyGroup's: maxPar is the job's max parallelism,
// 1 to 65536. epoch must be greater than that of every earlier run whose
// state the aggregate restores (such as the ID of the checkpoint
// restored), so that its spills never overwrite theirs. Without a store,
// running out of memory fails the aggregate with ErrMemory.
//
// UseStore must be called before the first Add or Load: from then on the
// aggregate records each group's key group as it makes the group, from the
// hash its table took (groups.go), so that neither a spill nor a Flush
// encodes and hashes keys again.
func (a *Aggregate) UseStore(open func() (*state.Store, error), uid string, maxPar int, epoch uint64) {
	a.spill = spill{open: open, uid: uid, maxPar: uint64(maxPar), seq: epoch << 32}
}

// record appends to p.kgs the key group of p's newest group, whose key's
// hash is hash, once UseStore has given the key groups: p.kgs[g] is then
// group g's key group, for every group of p.
func (a *Aggregate) record(p *pane, hash uint64) {
	if a.spill.maxPar != 0 {
		p.kgs = append(p.kgs, uint16(hash%a.spill.maxPar))
	}
}

// Spills is the number of times the aggregate has spilled a window.
func (a *Aggregate) Spills() int64 { return a.spill.n }

// storeBatch returns the spill store's batch, opening the store.
func (a *Aggregate) storeBatch() (*state.Batch, error) {
	if a.spill.store == nil {
		if a.spill.open == nil {
			return nil, fmt.Errorf("%w (%d bytes), and there is no store to spill to", ErrMemory, a.mem.Budget())
		}
		st, err := a.spill.open()
		if err != nil {
			return nil, fmt.Errorf("window: open spill store: %w", err)
		}
		a.spill.store, a.spill.batch = st, st.NewBatch()
	}
	return a.spill.batch, nil
}

// commitIfLarge bounds the heap a spill's batch takes.
func (a *Aggregate) commitIfLarge(b *state.Batch) error {
	if b.Len() < 4<<20 {
		return nil
	}
	return b.Commit()
}

// spillAll spills every window's in-memory state.
func (a *Aggregate) spillAll() error {
	a.trimSlider(true)
	a.dropSpares()
	for _, s := range slices.Sorted(maps.Keys(a.panes)) {
		if err := a.spillPane(a.panes[s]); err != nil {
			return err
		}
	}
	return nil
}

// spillPane moves pane p's in-memory state to the store, and deletes its
// checkpointed entries ("p"), which that state includes.
func (a *Aggregate) spillPane(p *pane) error {
	if p.len() == 0 && len(p.parts) == 0 {
		return nil
	}
	b, err := a.storeBatch()
	if err != nil {
		return err
	}
	start := startKey(p.start)
	seq := a.spill.seq
	a.spill.seq++
	for g := range int32(p.len()) {
		a.part = accsKey(a.part[:0], start[:], p.keyAt(g, &a.kbuf), seq)
		k := len(a.part)
		for _, ac := range p.accs {
			a.part = ac.Put(a.part, g)
		}
		b.Set(a.spill.uid, p.kgs[g], spillState, a.part[:k], a.part[k:])
		p.markSpilled(p.kgs[g])
		if err := a.commitIfLarge(b); err != nil {
			return err
		}
	}
	for agg, seen := range p.seen {
		if seen == nil {
			continue
		}
		for it := seen.Iter(); it.Next(); {
			g := binary.BigEndian.Uint32(it.Key())
			a.part = distinctKey(a.part[:0], start[:], p.keyAt(int32(g), &a.kbuf), agg, it.Key()[4:])
			b.Set(a.spill.uid, p.kgs[g], spillState, a.part, nil)
			if err := a.commitIfLarge(b); err != nil {
				return err
			}
		}
	}
	for kg, pt := range p.parts {
		for _, seq := range pt.seqs {
			key := entryKey(p.start, seq)
			b.Delete(a.spill.uid, uint16(kg), paneState, key[:])
		}
	}
	p.parts = nil
	if err := b.Commit(); err != nil {
		return err
	}
	a.free(p)
	a.spill.n++
	return nil
}

// accsKey appends the spill key of a group's accumulators.
func accsKey(dst, start, key []byte, seq uint64) []byte {
	dst = append(append(dst, start...), key...)
	return binary.BigEndian.AppendUint64(append(dst, tagAccs), seq)
}

// distinctKey appends the spill key of a DISTINCT value of aggregate agg
// in the group of key.
func distinctKey(dst, start, key []byte, agg int, value []byte) []byte {
	dst = append(append(dst, start...), key...)
	dst = binary.AppendUvarint(append(dst, tagDistinct), uint64(agg))
	return append(dst, value...)
}

// markSpilled records that key group kg holds a spilled part of p.
func (p *pane) markSpilled(kg uint16) {
	if p.spilled == nil {
		p.spilled = map[uint16]bool{}
	}
	p.spilled[kg] = true
}

// fireSpilled emits window [ws, we), whose slices with state are cover
// and some of which are spilled, in key order: the slices' in-memory state
// is spilled too, and their entries merge in the order of their keys after
// the slice start. The entries stay until the slices expire.
func (a *Aggregate) fireSpilled(cover []*pane, ws, we int64, emit func(arrow.RecordBatch) error) error {
	var its iterHeap
	defer func() {
		for _, it := range its {
			it.Close()
		}
	}()
	for _, p := range cover {
		if err := a.spillPane(p); err != nil {
			return err
		}
		start := startKey(p.start)
		for _, kg := range slices.Sorted(maps.Keys(p.spilled)) {
			it, err := a.spill.store.NewIter(a.spill.uid, kg, spillState, start[:])
			if err != nil {
				return err
			}
			if !it.First() {
				if err := it.Close(); err != nil {
					return err
				}
				continue
			}
			its = append(its, it)
		}
	}
	heap.Init(&its)
	m := a.newMerge()
	defer m.release()
	for len(its) > 0 {
		it := its[0]
		if err := m.add(it.Key()[8:], it.Value, ws, we, emit); err != nil {
			return err
		}
		if it.Next() {
			heap.Fix(&its, 0)
			continue
		}
		if err := it.Close(); err != nil {
			return err
		}
		heap.Pop(&its)
	}
	return m.flush(ws, we, emit)
}

// expire deletes the spilled entries of pane p, whose last window has
// fired.
func (a *Aggregate) expire(p *pane) error {
	if len(p.spilled) == 0 {
		return nil
	}
	start := startKey(p.start)
	b := a.spill.batch
	for kg := range p.spilled {
		b.DeletePrefix(a.spill.uid, kg, spillState, start[:])
	}
	p.spilled = nil
	return b.Commit()
}

// iterHeap orders iterators by their current key after the slice start,
// so that a group's entries of every slice come together.
type iterHeap []*state.Iter

func (h iterHeap) Len() int           { return len(h) }
func (h iterHeap) Less(i, j int) bool { return bytes.Compare(h[i].Key()[8:], h[j].Key()[8:]) < 0 }
func (h iterHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *iterHeap) Push(x any)        { *h = append(*h, x.(*state.Iter)) }
func (h *iterHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// merge folds a spilled window's entries, in key order, into output
// batches: slots 0..BatchSize-1 of accs hold the batch's groups, slot
// BatchSize a spilled entry being merged.
type merge struct {
	a    *Aggregate
	accs []agg.Acc
	keys [][]byte
	n    int // groups in the batch
	// Per DISTINCT aggregate: the values seen and their slots, the slices'
	// groups whose values the current group takes (addFrom), and the last
	// spilled value (add): a value in several slices counts once.
	dec     []*keyDecoder
	values  []array.Builder
	slots   [][]int32
	rows    []int32
	parts   [][]valuePart
	lastVal []byte
	cur     []int
}

// valuePart is a slice's group whose DISTINCT values a merged group takes.
type valuePart struct {
	p *pane
	g int32
}

func (a *Aggregate) newMerge() *merge {
	m := &merge{a: a, accs: a.newAccs(), keys: make([][]byte, a.spec.BatchSize),
		dec: make([]*keyDecoder, len(a.spec.Aggs)), values: make([]array.Builder, len(a.spec.Aggs)), slots: make([][]int32, len(a.spec.Aggs)),
		parts: make([][]valuePart, len(a.spec.Aggs))}
	for _, ac := range m.accs {
		ac.Grow(a.spec.BatchSize + 1)
	}
	for i, ag := range a.spec.Aggs {
		if ag.Distinct {
			t := a.spec.In[ag.Arg].Type.Arrow()
			m.dec[i], _ = newKeyDecoder([]arrow.DataType{t}) // New checked the type
			m.values[i] = array.NewBuilder(a.alloc, t)
		}
	}
	return m
}

func (m *merge) release() {
	for _, b := range m.values {
		if b != nil {
			b.Release()
		}
	}
}

// add merges one spilled entry, key without the slice start.
func (m *merge) add(key []byte, value func() ([]byte, error), ws, we int64, emit func(arrow.RecordBatch) error) error {
	a := m.a
	n, err := a.keys.len(key)
	if err != nil || n >= len(key) {
		return fmt.Errorf("%w: spilled key %x", ErrCorrupt, key)
	}
	gk, rest := key[:n], key[n:]
	if m.n == 0 || !bytes.Equal(gk, m.keys[m.n-1]) {
		if m.n == a.spec.BatchSize {
			if err := m.flush(ws, we, emit); err != nil {
				return err
			}
		}
		m.keys[m.n] = append(m.keys[m.n][:0], gk...)
		for _, ac := range m.accs {
			ac.Reset(int32(m.n))
		}
		m.n++
	}
	g, tmp := int32(m.n-1), int32(a.spec.BatchSize)
	switch rest[0] {
	case tagAccs:
		if len(rest) != 9 {
			return fmt.Errorf("%w: spilled group key %x", ErrCorrupt, key)
		}
		v, err := value()
		if err != nil {
			return err
		}
		for _, ac := range m.accs {
			if v, err = ac.Get(v, tmp); err != nil {
				return err
			}
		}
		if len(v) != 0 {
			return fmt.Errorf("%w: %d trailing bytes in a spilled group", ErrCorrupt, len(v))
		}
		for i, ag := range a.spec.Aggs {
			if !ag.Distinct {
				m.accs[i].Merge(g, tmp)
			}
		}
	case tagDistinct:
		agg, n := binary.Uvarint(rest[1:])
		if n <= 0 || agg >= uint64(len(m.dec)) || m.dec[agg] == nil {
			return fmt.Errorf("%w: spilled DISTINCT value of no DISTINCT aggregate", ErrCorrupt)
		}
		// The same value of the group in another slice comes next to it.
		if bytes.Equal(key, m.lastVal) {
			return nil
		}
		m.lastVal = append(m.lastVal[:0], key...)
		if tail, err := m.dec[agg].decode(m.values[agg:agg+1], rest[1+n:]); err != nil || len(tail) != 0 {
			return fmt.Errorf("%w: spilled DISTINCT value %x", ErrCorrupt, rest)
		}
		m.slots[agg] = append(m.slots[agg], g)
	default:
		return fmt.Errorf("%w: spilled entry of unknown kind %#x", ErrCorrupt, rest[0])
	}
	return nil
}

// addFrom merges group g of slice p, whose key is key: a slice's group in
// memory. Keys come in order, so equal keys are adjacent. A DISTINCT
// aggregate takes the group's values (p.values) when its merged group is
// complete.
func (m *merge) addFrom(key []byte, p *pane, g int32, ws, we int64, emit func(arrow.RecordBatch) error) error {
	if m.n == 0 || !bytes.Equal(key, m.keys[m.n-1]) {
		m.unionValues()
		if m.n == m.a.spec.BatchSize {
			if err := m.flush(ws, we, emit); err != nil {
				return err
			}
		}
		m.keys[m.n] = append(m.keys[m.n][:0], key...)
		for _, ac := range m.accs {
			ac.Reset(int32(m.n))
		}
		m.n++
	}
	for i, ac := range m.accs {
		if m.dec[i] != nil {
			m.parts[i] = append(m.parts[i], valuePart{p: p, g: g})
			continue
		}
		ac.MergeFrom(int32(m.n-1), p.accs[i], g)
	}
	return nil
}

// unionValues adds the values of the current group's slices (m.parts) to
// its DISTINCT aggregates' values, each once: each slice's are in order,
// and a merge of them skips a value equal to the last.
func (m *merge) unionValues() {
	g := int32(m.n - 1)
	for i, parts := range m.parts {
		if len(parts) == 0 {
			continue
		}
		m.cur = append(m.cur[:0], make([]int, len(parts))...)
		for j, pt := range parts {
			m.cur[j] = int(pt.p.values[i].off[pt.g])
		}
		var last []byte
		for {
			least, lv := -1, []byte(nil)
			for j, pt := range parts {
				pv := &pt.p.values[i]
				if m.cur[j] == int(pv.off[pt.g+1]) {
					continue
				}
				v := pt.p.seen[i].KeyAt(pv.addrs[m.cur[j]])[4:]
				if least < 0 || bytes.Compare(v, lv) < 0 {
					least, lv = j, v
				}
			}
			if least < 0 {
				break
			}
			m.cur[least]++
			if last != nil && bytes.Equal(lv, last) {
				continue
			}
			last = lv
			// Values decode: they were encoded from this type.
			_, _ = m.dec[i].decode(m.values[i:i+1], lv)
			m.slots[i] = append(m.slots[i], g)
		}
		m.parts[i] = parts[:0]
	}
}

// flush computes the batch's DISTINCT aggregates from their values and
// emits the batch.
func (m *merge) flush(ws, we int64, emit func(arrow.RecordBatch) error) error {
	if m.n == 0 {
		return nil
	}
	m.unionValues()
	for i, b := range m.values {
		if b == nil {
			continue
		}
		col := b.NewArray()
		m.rows = m.rows[:0]
		for r := range m.slots[i] {
			m.rows = append(m.rows, int32(r))
		}
		m.accs[i].Update(col, m.rows, m.slots[i])
		col.Release()
		m.slots[i] = m.slots[i][:0]
	}
	chunk := make([]int32, m.n)
	for i := range chunk {
		chunk[i] = int32(i)
	}
	err := m.a.emit(ws, we, m.accs, chunk, m.a.decodedKeys(len(chunk), func(i int) []byte { return m.keys[i] }), emit)
	m.n = 0
	return err
}
