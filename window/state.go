package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/strandsql/strand/memseg"
)

// Checkpointed state. A window aggregate keeps its live state in memory,
// and what did not fit in the state store already (spill.go). At each
// checkpoint it writes, for every window, the part of the window that
// belongs to a key group in which some group changed since the previous
// checkpoint: one entry per (window, key group), under state name "p",
//
//	key:   window start, 8 bytes big-endian with the sign bit flipped
//	value: uvarint(groups) { uvarint(len key) key uvarint(len state) state }
//	       uvarint(distinct values) { uvarint(aggregate) uvarint(group) uvarint(len value) value }
//
// where key is the group's normalized key (whose hash picks the key group),
// state the group's accumulators (acc.put, in aggregate order), and group
// a distinct value's group as an ordinal within the entry. A fired
// window's entries are deleted. Writing whole key-group parts keeps checkpoints incremental
// at key-group granularity while costing one sequential encoding per group
// and a few hundred entries for the store, however many groups changed.
const paneState = "p"

// A hopping or cumulating window's slice outlives the windows that have
// fired: the watermark up to which they have is state too, or a restore
// would fire them again. Flush writes it into every key group of the
// subtask (StoreProgress), under state name "w" with key progressKey, as a
// varint; a restore takes the least it finds (all are equal after an
// aligned checkpoint).
const progressState = "w"

var progressKey = []byte{0}

// StoreProgress makes Flush write the watermark of the aggregate's windows
// into key groups lo..hi (inclusive) when its windows slide.
func (a *Aggregate) StoreProgress(lo, hi int) { a.kgLo, a.kgHi = lo, hi }

// errState reports checkpointed or spilled window state that does not decode.
var errState = errors.New("window: malformed checkpointed state")

// Track makes the aggregate remember what changes between checkpoints. It
// must be called before the first Add.
func (a *Aggregate) Track() { a.track = true }

// KeyGroup returns the key group of an encoded group key.
type KeyGroup func(key []byte) uint16

// Writer receives the writes of a Flush: a state.Batch or a state.Sorted.
type Writer interface {
	Set(uid string, kg uint16, name string, key, value []byte)
	Delete(uid string, kg uint16, name string, key []byte)
}

// Flush writes to b, under the uid and in the key groups UseStore gave,
// the key-group parts of windows that changed since the last checkpoint, and deletes the stored parts of windows fired
// since then. Flushed forgets those changes once b's writes are durable in
// the checkpoint; until then a failed checkpoint's next Flush writes them
// again.
func (a *Aggregate) Flush(b Writer) {
	uid, kg := a.spill.uid, a.spill.kg
	if a.spec.Window.Slides() && a.kgHi >= a.kgLo {
		v := binary.AppendVarint(nil, a.wm)
		for k := a.kgLo; k <= a.kgHi; k++ {
			b.Set(uid, uint16(k), progressState, progressKey, v)
		}
	}
	for _, p := range a.fired {
		key := startKey(p.start)
		for g := range p.stored {
			b.Delete(uid, g, paneState, key[:])
		}
	}
	for _, p := range a.panes {
		if len(p.dirtyList) == 0 {
			continue
		}
		for g := len(p.kgs); g < len(p.addrs); g++ {
			p.kgs = append(p.kgs, kg(p.groups.KeyAt(p.addrs[g])))
		}
		dirty := map[uint16][]int32{}
		for _, g := range p.dirtyList {
			dirty[p.kgs[g]] = nil
		}
		for g, k := range p.kgs {
			if members, ok := dirty[k]; ok {
				dirty[k] = append(members, int32(g))
			}
		}
		key := startKey(p.start)
		if p.stored == nil {
			p.stored = map[uint16]bool{}
		}
		distinct := a.distinctByKG(p, dirty)
		for k, members := range dirty {
			// Set copies the value, so one buffer serves every part.
			a.part = a.encodePart(a.part[:0], p, members, distinct[k])
			b.Set(uid, k, paneState, key[:], a.part)
			p.stored[k] = true
		}
	}
}

// Flushed records that the last Flush's writes are part of a complete
// snapshot: the changes it wrote need not be written again.
func (a *Aggregate) Flushed() {
	a.fired = a.fired[:0]
	for _, p := range a.panes {
		for _, g := range p.dirtyList {
			p.dirty[g] = false
		}
		p.dirtyList = p.dirtyList[:0]
	}
}

// distinctValue is one value a DISTINCT aggregate has seen in a group.
type distinctValue struct {
	agg   int
	group int32
	value []byte
}

// distinctByKG lists the DISTINCT values of the groups in the dirty key
// groups.
func (a *Aggregate) distinctByKG(p *pane, dirty map[uint16][]int32) map[uint16][]distinctValue {
	out := map[uint16][]distinctValue{}
	for agg, seen := range p.seen {
		if seen == nil {
			continue
		}
		for it := seen.Iter(); it.Next(); {
			g := binary.BigEndian.Uint32(it.Key())
			k := p.kgs[g]
			if _, ok := dirty[k]; ok {
				out[k] = append(out[k], distinctValue{agg: agg, group: int32(g), value: it.Key()[4:]})
			}
		}
	}
	return out
}

// encodePart appends the encoding of groups (and their DISTINCT values) of
// pane p.
func (a *Aggregate) encodePart(dst []byte, p *pane, groups []int32, distinct []distinctValue) []byte {
	var ordinal map[int32]int // only DISTINCT values need it
	if len(distinct) > 0 {
		ordinal = make(map[int32]int, len(groups))
		for i, g := range groups {
			ordinal[g] = i
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(groups)))
	for _, g := range groups {
		key := p.groups.KeyAt(p.addrs[g])
		dst = binary.AppendUvarint(dst, uint64(len(key)))
		dst = append(dst, key...)
		// The state's length goes before it: encode after a one-byte
		// guess and move the state if its length needs more bytes.
		at := len(dst)
		dst = append(dst, 0)
		for _, ac := range p.accs {
			dst = ac.Put(dst, g)
		}
		n := len(dst) - at - 1
		if n < 0x80 {
			dst[at] = byte(n)
			continue
		}
		var lenBuf [binary.MaxVarintLen64]byte
		w := binary.PutUvarint(lenBuf[:], uint64(n))
		dst = append(dst, lenBuf[:w-1]...)
		copy(dst[at+w:], dst[at+1:at+1+n])
		copy(dst[at:], lenBuf[:w])
	}
	dst = binary.AppendUvarint(dst, uint64(len(distinct)))
	for _, d := range distinct {
		dst = binary.AppendUvarint(dst, uint64(d.agg))
		dst = binary.AppendUvarint(dst, uint64(ordinal[d.group]))
		dst = binary.AppendUvarint(dst, uint64(len(d.value)))
		dst = append(dst, d.value...)
	}
	return dst
}

// Load restores one entry of the aggregate's checkpointed state, read
// from key group kg. Parts of windows ("p") go to memory, spilling like
// Add when the budget runs out, and become dirty: the local store starts
// empty, so the next checkpoint writes them again. Spilled entries ("s")
// go to the spill store. Restored must follow the last Load.
func (a *Aggregate) Load(kg uint16, name string, key, value []byte) error {
	switch {
	case name == spillState && len(key) > 8:
		b, err := a.storeBatch()
		if err != nil {
			return err
		}
		a.pane(int64(binary.BigEndian.Uint64(key) ^ 1<<63)).markSpilled(kg)
		b.Set(a.spill.uid, kg, spillState, key, value)
		return a.commitIfLarge(b)
	case name == paneState && len(key) == 8:
		return a.loadPart(kg, int64(binary.BigEndian.Uint64(key)^1<<63), value)
	case name == progressState && bytes.Equal(key, progressKey):
		wm, n := binary.Varint(value)
		if n <= 0 || n != len(value) {
			return fmt.Errorf("%w: malformed window progress", errState)
		}
		if !a.progressed || wm < a.restoredWM {
			a.restoredWM, a.progressed = wm, true
		}
		return nil
	}
	return fmt.Errorf("%w: unknown state %q", errState, name)
}

// Restored finishes a restore.
func (a *Aggregate) Restored() error {
	if a.progressed {
		a.wm = a.restoredWM
	}
	if a.spill.batch == nil {
		return nil
	}
	return a.spill.batch.Commit()
}

// loadPart restores a window part that Flush wrote.
func (a *Aggregate) loadPart(kg uint16, start int64, value []byte) error {
	r := reader{b: value}
	n := r.uvarint()
	if n > uint64(len(value)) {
		return fmt.Errorf("%w: malformed window part", errState)
	}
	keys, states := make([][]byte, 0, n), make([][]byte, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		keys = append(keys, r.bytes())
		states = append(states, r.bytes())
	}
	type dv struct {
		agg   int
		group uint64
		value []byte
	}
	var dvs []dv
	nd := r.uvarint()
	for i := uint64(0); i < nd && r.err == nil; i++ {
		agg := r.uvarint()
		if r.err == nil && agg >= uint64(len(a.spec.Aggs)) {
			return fmt.Errorf("%w: DISTINCT value of a missing aggregate", errState)
		}
		d := dv{agg: int(agg), group: r.uvarint(), value: r.bytes()}
		if r.err == nil && (!a.spec.Aggs[d.agg].Distinct || d.group >= n) {
			return fmt.Errorf("%w: DISTINCT value of a missing group", errState)
		}
		dvs = append(dvs, d)
	}
	if r.err != nil || len(r.b) != 0 {
		return fmt.Errorf("%w: malformed window part", errState)
	}
	p := a.pane(start)
	// groups[i] is key i's group in memory, or -1 once the part goes to
	// the store instead.
	groups := make([]int32, len(keys))
	spilled := false
	for i, key := range keys {
		if !spilled {
			g, err := a.loadGroup(p, key, states[i])
			if err != nil && !errors.Is(err, memseg.ErrNoMemory) {
				return err
			}
			if err == nil {
				groups[i] = g
				if !a.charge(p) {
					continue
				}
			}
			// Out of memory: what is in memory (this group too, if it got
			// in) goes to the store, and so does the rest of the part.
			if err := a.spillAll(); err != nil {
				return err
			}
			spilled = true
			if err == nil {
				continue
			}
		}
		groups[i] = -1
		if err := a.spillGroup(p, kg, key, states[i]); err != nil {
			return err
		}
	}
	for _, d := range dvs {
		if !spilled {
			k := binary.BigEndian.AppendUint32(a.key[:0], uint32(groups[d.group]))
			a.key = append(k, d.value...)
			_, _, _, err := p.seen[d.agg].Insert(a.key, memseg.Hash(a.key))
			if err == nil {
				continue
			}
			if err := a.spillAll(); err != nil {
				return err
			}
			spilled = true
		}
		if err := a.spillDistinct(p, kg, keys[d.group], d.agg, d.value); err != nil {
			return err
		}
	}
	return nil
}

// loadGroup adds a group with its checkpointed state to pane p's memory.
func (a *Aggregate) loadGroup(p *pane, key, st []byte) (int32, error) {
	if len(p.addrs) == p.cap {
		if err := a.grow(p); err != nil {
			return 0, err
		}
	}
	addr, acc, inserted, err := p.groups.Insert(key, memseg.Hash(key))
	if err != nil {
		return 0, err
	}
	if !inserted {
		return 0, fmt.Errorf("%w: group stored twice", errState)
	}
	g := int32(len(p.addrs))
	binary.LittleEndian.PutUint32(acc, uint32(g))
	p.addrs = append(p.addrs, addr)
	p.order, p.keys = nil, nil
	rest := st
	for _, ac := range p.accs {
		if rest, err = ac.Get(rest, g); err != nil {
			return 0, err
		}
	}
	if len(rest) != 0 {
		return 0, fmt.Errorf("%w: %d trailing bytes", errState, len(rest))
	}
	if a.track {
		p.dirty[g] = true
		p.dirtyList = append(p.dirtyList, g)
	}
	return g, nil
}

// spillGroup writes a checkpointed group straight to the spill store.
func (a *Aggregate) spillGroup(p *pane, kg uint16, key, st []byte) error {
	b, err := a.storeBatch()
	if err != nil {
		return err
	}
	start := startKey(p.start)
	a.part = accsKey(a.part[:0], start[:], key, a.spill.seq)
	a.spill.seq++
	b.Set(a.spill.uid, kg, spillState, a.part, st)
	p.markSpilled(kg)
	return a.commitIfLarge(b)
}

// spillDistinct writes a checkpointed DISTINCT value straight to the
// spill store.
func (a *Aggregate) spillDistinct(p *pane, kg uint16, key []byte, agg int, value []byte) error {
	b, err := a.storeBatch()
	if err != nil {
		return err
	}
	start := startKey(p.start)
	a.part = distinctKey(a.part[:0], start[:], key, agg, value)
	b.Set(a.spill.uid, kg, spillState, a.part, nil)
	return a.commitIfLarge(b)
}

// startKey is the key of window start: big-endian with the sign bit
// flipped, so that windows sort in time order.
func startKey(start int64) [8]byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(start)^1<<63)
	return k
}

// reader decodes a window part, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errState
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = errState
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// Fingerprint identifies the aggregate's state schema: a restore refuses
// state written by an aggregate with other keys, aggregates or window.
func (s *Spec) Fingerprint() string {
	var b bytes.Buffer
	if w := s.Window; w.Kind == Tumble {
		fmt.Fprintf(&b, "tumble %d %d;", w.Size, w.Offset) // as before there were other kinds
	} else {
		fmt.Fprintf(&b, "%v %d %d %d;", w.Kind, w.Size, w.Slide, w.Offset)
	}
	for _, k := range s.Keys {
		fmt.Fprintf(&b, "key %v;", s.In[k].Type.Plain().Nullable())
	}
	for _, ag := range s.Aggs {
		in := "*"
		if ag.Arg >= 0 {
			in = s.In[ag.Arg].Type.Plain().Nullable().String()
		}
		fmt.Fprintf(&b, "agg %v(%s) distinct=%v filter=%v -> %v;", ag.Kind, in, ag.Distinct, ag.Filter >= 0, ag.Out)
	}
	if s.ByEnd {
		b.WriteString("by window_end;")
	}
	// A DISTINCT aggregate's index was one byte: it is a uvarint now, the
	// same byte below 128. State of a query with DISTINCT aggregates from
	// the 129th on has the new format only.
	version := "parts2"
	for i, ag := range s.Aggs {
		if ag.Distinct && i >= 0x80 {
			version = "parts3"
		}
	}
	return fmt.Sprintf("%s;%016x", version, memseg.Hash(b.Bytes()))
}
