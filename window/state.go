package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// Checkpointed state. A window aggregate keeps its live state in memory,
// and what did not fit in the state store already (spill.go). At each
// checkpoint it writes what changed since the previous one: for every
// window and key group in which some group changed, one entry holding the
// groups that changed, under state name "p",
//
//	key:   window start, 8 bytes big-endian with the sign bit flipped | entry number, 8 bytes big-endian
//	value: uvarint(groups) { uvarint(len key) key uvarint(len state) state }
//	       uvarint(distinct values) { uvarint(aggregate) uvarint(group) uvarint(len value) value }
//
// where key is the group's normalized key (whose hash picks the key group),
// state the group's accumulators (acc.Put, in aggregate order), and group
// a distinct value's group as an ordinal within the entry. An entry holds
// the whole state of each of its groups, never a difference, so the part
// of a window in a key group is its entries read in order: a group's state
// is that of the last entry naming it, and its DISTINCT values are those
// of every entry. (A key of 8 bytes, the window start alone, is the format
// before entry numbers: the only entry of its part.)
//
// A checkpoint so costs the groups that changed, not the groups held,
// and keeps the per-key-group layout that a restore at a new
// parallelism reads. The versions that newer entries supersede are
// garbage, which a rewrite drops: a Flush that finds its entries
// holding more than compactAt versions per group, or rewriteEvery
// Flushes with changes since the last rewrite, writes every part of
// every window as one entry, deletes the older entries, and asks the
// Writer to replace all of them at once (state.Sorted.Replace: the
// store swaps one new SST in for all its files), unless the aggregate
// spilled (Flush says why). A rewrite that no complete snapshot
// followed is done again at the next Flush: its deletes may not have
// happened. The store's checkpointed state so never holds more than
// about compactAt versions of a group, nor more than rewriteEvery
// checkpoints' SSTs, and is rewritten once per rewrite: not once by the
// window compacting its parts and again by Pebble compacting the SSTs
// stacked over them, as when each part was compacted on its own (the
// SSTs of each checkpoint's changes span every key group, so Pebble
// rewrote the whole state beneath them every 64 checkpoints anyway). A
// checkpoint with 1% of 1M groups changed costs about a quarter less CPU
// that way (docs/performance.md, "Rewrites"). The price is that one
// checkpoint in rewriteEvery, or when the changes add up to the state's
// size, costs what a full one does. A fired window's entries are
// deleted.
const paneState = "p"

// compactAt is the versions per group at which Flush rewrites the state;
// rewriteEvery the Flushes with changes after which it does at the
// latest: the SSTs an ingesting store stacks over its state before Pebble
// would compact them (state.MaxIngested), so that it never does.
const (
	compactAt    = 2
	rewriteEvery = state.MaxIngested
)

// part is what the state store holds of one window in one key group.
type part struct {
	// seqs are the numbers of its entries, oldest first. The first drop
	// of them are deleted by the last Flush (a compaction) and forgotten
	// once it is durable (Flushed).
	seqs []uint64
	drop int
	// held counts the group versions its entries hold; members are the
	// window's groups in the key group.
	held    int
	members []int32
}

// drop names a part whose older entries the last Flush deleted.
type drop struct {
	p  *pane
	kg uint16
}

// flushScratch is Flush's scratch, kept across checkpoints.
type flushScratch struct {
	rewrite bool // the Flush rewrites the state
	starts  []int64
	count   []int32  // per key group: the groups its entry holds
	next    []int32  // per key group: the groups encoded so far
	bufs    [][]byte // per key group: its entry
	kept    int      // the capacity of bufs kept for the next Flush
	ord     []int32  // per group: its ordinal in its entry
	values  []distinctValue
	// perGroup is the bytes per group of the last Flush's entries, which
	// the next sizes its buffers by.
	perGroup int
	// touched keeps the loads of touch.
	touched uint64
}

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

// ErrCorrupt is wrapped by the refusal of checkpointed or spilled window
// state that does not decode (a restore that meets it meets it again on
// every restart from the same state).
var ErrCorrupt = errors.New("window: malformed checkpointed state")

// Track makes the aggregate remember what changes between checkpoints. It
// must be called before the first Add.
func (a *Aggregate) Track() { a.track = true }

// Writer receives the writes of a Flush: a state.Batch or a state.Sorted.
// Set and Delete copy what they keep of key and value: Flush reuses their
// memory for its next writes.
type Writer interface {
	Set(uid string, kg uint16, name string, key, value []byte)
	Delete(uid string, kg uint16, name string, key []byte)
}

// Replacer is a Writer that can apply a Flush that rewrites the state as
// a replacement of every entry under a state name, or under uid if name
// is "" (state.Sorted): the Flush deletes the older entries all the
// same, so a Writer that is not one stores the same state.
type Replacer interface {
	Replace(uid, name string)
}

// Flush writes to b, under the uid and in the key groups UseStore gave,
// an entry per window and key group with the groups that changed since the
// last checkpoint, or, when the stored versions call for it, every part
// in full (a rewrite), and deletes the entries of windows fired since
// then. Flushed
// forgets those changes once b's writes are durable in the checkpoint;
// until then a failed checkpoint's next Flush writes them again.
func (a *Aggregate) Flush(b Writer) {
	uid := a.spill.uid
	if a.spec.Window.Slides() && a.kgHi >= a.kgLo {
		v := binary.AppendVarint(nil, a.wm)
		for k := a.kgLo; k <= a.kgHi; k++ {
			b.Set(uid, uint16(k), progressState, progressKey, v)
		}
	}
	// The deletes of a Flush that Flushed did not follow may not have
	// happened: the entries stay known, to be deleted again, by a rewrite
	// (only a rewrite deletes), as the versions held no longer count
	// them.
	retry := len(a.drops) > 0
	for _, d := range a.drops {
		if int(d.kg) < len(d.p.parts) {
			d.p.parts[d.kg].drop = 0
		}
	}
	a.drops = a.drops[:0]
	for _, p := range a.fired {
		for kg, pt := range p.parts {
			for _, seq := range pt.seqs {
				key := entryKey(p.start, seq)
				b.Delete(uid, uint16(kg), paneState, key[:])
			}
		}
	}
	seq := a.flushes
	a.flushes++
	f := &a.flush
	f.starts = f.starts[:0]
	changed := 0
	for _, p := range a.panes {
		p.listDirty()
		if len(p.dirtyList) > 0 {
			a.join(p)
			changed += len(p.dirtyList)
		}
	}
	rewrite := retry || changed > 0 && a.rewriteDue(changed)
	f.rewrite = rewrite
	for s, p := range a.panes {
		if len(p.dirtyList) > 0 || rewrite && p.len() > 0 {
			f.starts = append(f.starts, s)
		}
	}
	switch {
	case rewrite:
		// Unless the aggregate spilled, all the store holds under uid is
		// what this Flush writes, and the store swaps it in for all its
		// files. A spilled aggregate's store also holds the groups it
		// spilled, which a replacing commit would copy, and the snapshot
		// after it upload, in full at every rewrite of the few groups
		// in memory: it deletes the older entries alone, and leaves them
		// to Pebble's compactions, as it does its spills.
		if r, ok := b.(Replacer); ok && a.spill.store == nil {
			r.Replace(uid, "")
		}
		a.since = 0
	case changed > 0:
		a.since++
	}
	slices.Sort(f.starts)
	for _, s := range f.starts {
		a.flushPane(b, a.panes[s], seq, rewrite)
	}
}

// rewriteDue reports whether a Flush that writes changed groups should
// rewrite the state: after rewriteEvery Flushes with changes, or when the
// entries would hold more than compactAt versions per group.
func (a *Aggregate) rewriteDue(changed int) bool {
	if a.since+1 >= rewriteEvery {
		return true
	}
	versions, members := changed, 0
	for _, p := range a.panes {
		for _, pt := range p.parts {
			versions += pt.held
			members += len(pt.members)
		}
	}
	return versions > compactAt*members
}

// listDirty sets p.dirtyList to p's groups changed since the last
// Flushed, in group order, from dirty: a pass over a word per 64 groups
// (16 000 words for 1M), once per pane and checkpoint.
func (p *pane) listDirty() {
	list := p.dirtyList[:0]
	for w, word := range p.dirty {
		for ; word != 0; word &= word - 1 {
			list = append(list, int32(w<<6+bits.TrailingZeros64(word)))
		}
	}
	p.dirtyList = list
}

// join makes each group of p made since the last Flush a member of the
// part of its key group, which the group's making recorded (p.kgs). The
// slices are sized before they are filled: a first checkpoint adds up to
// a million groups, which appending would copy and fault in at every
// doubling.
func (a *Aggregate) join(p *pane) {
	kgs := p.kgs[p.joined:]
	nkg := len(p.parts)
	for _, k := range kgs {
		nkg = max(nkg, int(k)+1)
	}
	if nkg > len(p.parts) {
		p.parts = append(p.parts, make([]part, nkg-len(p.parts))...)
	}
	f := &a.flush
	f.next = append(f.next[:0], make([]int32, nkg)...)
	for _, k := range kgs {
		f.next[k]++
	}
	for k, n := range f.next {
		if n > 0 {
			p.parts[k].members = slices.Grow(p.parts[k].members, int(n))
		}
	}
	for i, k := range kgs {
		p.parts[k].members = append(p.parts[k].members, int32(p.joined+i))
	}
	p.joined = len(p.kgs)
}

// flushPane writes pane p's entry numbered seq in every key group where a
// group changed, or, to rewrite, in every key group with groups, holding
// all of them.
func (a *Aggregate) flushPane(b Writer, p *pane, seq uint64, rewrite bool) {
	f := &a.flush
	nkg := len(p.parts)
	f.count = append(f.count[:0], make([]int32, nkg)...)
	if rewrite {
		for k := range p.parts {
			f.count[k] = int32(len(p.parts[k].members))
		}
	} else {
		for _, g := range p.dirtyList {
			f.count[p.kgs[g]]++
		}
	}
	a.distinctOf(p, rewrite)
	a.encodeGroups(p, rewrite)
	uid, key := a.spill.uid, entryKey(p.start, seq)
	vi := 0
	for k, n := range f.count {
		if n == 0 {
			continue
		}
		pt := &p.parts[k]
		for vi < len(f.values) && f.values[vi].kg < uint16(k) {
			vi++
		}
		vj := vi
		for vj < len(f.values) && f.values[vj].kg == uint16(k) {
			vj++
		}
		entry := a.appendDistinct(f.bufs[k], f.values[vi:vj])
		vi = vj
		// Set copies the value: the buffer serves the next Flush, unless
		// it is large or the buffers kept are (a first checkpoint's, as
		// many small entries as key groups), which would stay held.
		b.Set(uid, uint16(k), paneState, key[:], entry)
		f.bufs[k] = nil
		if c := cap(entry); c <= keptEntry && f.kept+c <= keptEntries {
			f.bufs[k], f.kept = entry[:0], f.kept+c
		}
		if rewrite {
			for _, old := range pt.seqs {
				ok := entryKey(p.start, old)
				b.Delete(uid, uint16(k), paneState, ok[:])
			}
			pt.drop, pt.held = len(pt.seqs), 0
			a.drops = append(a.drops, drop{p: p, kg: uint16(k)})
		}
		pt.held += int(n)
		pt.seqs = append(pt.seqs, seq)
	}
}

// keptEntry is the largest entry buffer a Flush keeps for the next one,
// keptEntries the most bytes all of them take: a checkpoint of 1% of 1M
// groups (COUNT and SUM, 128 key groups) keeps a quarter of that.
const (
	keptEntry   = 64 << 10
	keptEntries = 1 << 20
)

// Flushed records that the last Flush's writes are part of a complete
// snapshot: the changes it wrote need not be written again, and the
// entries it deleted are gone.
func (a *Aggregate) Flushed() {
	a.fired = a.fired[:0]
	for _, d := range a.drops {
		if int(d.kg) < len(d.p.parts) {
			pt := &d.p.parts[d.kg]
			pt.seqs = slices.Delete(pt.seqs, 0, pt.drop)
			pt.drop = 0
		}
	}
	a.drops = a.drops[:0]
	for _, p := range a.panes {
		for _, g := range p.dirtyList {
			p.dirty[g>>6] &^= 1 << (g & 63)
		}
		p.dirtyList = p.dirtyList[:0]
		for agg, seen := range p.seen {
			if seen == nil {
				continue
			}
			if p.marks == nil {
				p.marks = make([]uint64, len(p.seen))
			}
			p.marks[agg] = seen.End()
		}
	}
}

// distinctValue is one value a DISTINCT aggregate has seen in a group.
type distinctValue struct {
	agg   int
	group int32
	kg    uint16
	value []byte
}

// distinctOf sets a.flush.values to the DISTINCT values that pane p's
// entries of this Flush hold, in key-group order: those seen since the
// last Flush in the key groups that changed (their groups changed with
// them), or, to rewrite, every value.
func (a *Aggregate) distinctOf(p *pane, rewrite bool) {
	f := &a.flush
	f.values = f.values[:0]
	for agg, seen := range p.seen {
		if seen == nil {
			continue
		}
		var mark uint64
		if p.marks != nil {
			mark = p.marks[agg]
		}
		if rewrite {
			mark = 0
		}
		for it := seen.IterFrom(mark); it.Next(); {
			g := binary.BigEndian.Uint32(it.Key())
			f.values = append(f.values, distinctValue{agg: agg, group: int32(g), kg: p.kgs[g], value: it.Key()[4:]})
		}
	}
	slices.SortStableFunc(f.values, func(x, y distinctValue) int { return int(x.kg) - int(y.kg) })
}

// encodeGroups starts the entry of each key group k with groups to write
// (f.count[k] > 0) in f.bufs[k]: their number, then each group's key and
// state. The groups are those that changed, or, to rewrite, all of them.
// It visits them in group order, not key group by key group: a group's
// columns (its key, each accumulator's slots) are arrays by group number,
// and a key group's groups are spread over all of them, so visiting one
// key group after another would miss the cache at every group of a large
// window, where group order reads each column from start to end. The price is that a
// pane's entries are all in memory at once before Flush hands them to
// the Writer. Each group's ordinal in its entry goes to f.ord when a
// DISTINCT value refers to it.
func (a *Aggregate) encodeGroups(p *pane, rewrite bool) {
	f := &a.flush
	nkg := len(p.parts)
	if len(f.bufs) < nkg {
		f.bufs = append(f.bufs, make([][]byte, nkg-len(f.bufs))...)
	}
	// The first Flush guesses a key of 9 bytes and a few small
	// accumulators; later ones size by what the last wrote per group.
	per := f.perGroup
	if per == 0 {
		per = 16
	}
	total, groups := 0, 0
	for k, n := range f.count {
		if n > 0 {
			f.kept -= cap(f.bufs[k])
			f.bufs[k] = binary.AppendUvarint(slices.Grow(f.bufs[k][:0], int(n)*per), uint64(n))
			total -= len(f.bufs[k])
			groups += int(n)
		}
	}
	ordered := len(f.values) > 0
	if ordered {
		f.ord = slices.Grow(f.ord[:0], p.len())[:p.len()]
		f.next = append(f.next[:0], make([]int32, nkg)...)
	}
	put := func(g int32) {
		k := p.kgs[g]
		f.bufs[k] = a.appendGroup(f.bufs[k], p, g)
		if ordered {
			f.ord[g] = f.next[k]
			f.next[k]++
		}
	}
	if rewrite {
		for g := range int32(p.len()) {
			put(g)
		}
	} else {
		// The changed groups are scattered over the pane: touchAhead at
		// a time, each run's slots touched first.
		for gs := p.dirtyList; len(gs) > 0; {
			n := min(len(gs), touchAhead)
			f.touched += p.touch(gs[:n])
			for _, g := range gs[:n] {
				put(g)
			}
			gs = gs[n:]
		}
	}
	for k, n := range f.count {
		if n > 0 {
			total += len(f.bufs[k])
		}
	}
	if groups > 0 {
		f.perGroup = total/groups + 1
	}
}

// appendGroup appends group g of pane p as an entry holds it: its
// normalized key and its accumulators' state, each after its length.
func (a *Aggregate) appendGroup(dst []byte, p *pane, g int32) []byte {
	if p.ints != nil {
		// An integer key is 1 or 9 bytes: its length is one byte.
		at := len(dst)
		dst = p.appendKey(append(dst, 0), g)
		dst[at] = byte(len(dst) - at - 1)
	} else {
		key := p.groups.KeyAt(p.addrs[g])
		dst = binary.AppendUvarint(dst, uint64(len(key)))
		dst = append(dst, key...)
	}
	// The state's length goes before it: encode after a one-byte guess
	// and move the state if its length needs more bytes.
	at := len(dst)
	dst = append(dst, 0)
	for _, ac := range p.accs {
		dst = ac.Put(dst, g)
	}
	n := len(dst) - at - 1
	if n < 0x80 {
		dst[at] = byte(n)
		return dst
	}
	var lenBuf [binary.MaxVarintLen64]byte
	w := binary.PutUvarint(lenBuf[:], uint64(n))
	dst = append(dst, lenBuf[:w-1]...)
	copy(dst[at+w:], dst[at+1:at+1+n])
	copy(dst[at:], lenBuf[:w])
	return dst
}

// appendDistinct appends to an entry started by encodeGroups its DISTINCT
// values, whose groups' ordinals are in a.flush.ord.
func (a *Aggregate) appendDistinct(dst []byte, distinct []distinctValue) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(distinct)))
	for _, d := range distinct {
		dst = binary.AppendUvarint(dst, uint64(d.agg))
		dst = binary.AppendUvarint(dst, uint64(a.flush.ord[d.group]))
		dst = binary.AppendUvarint(dst, uint64(len(d.value)))
		dst = append(dst, d.value...)
	}
	return dst
}

// entryKey is the key of a window's entry numbered seq.
func entryKey(start int64, seq uint64) [16]byte {
	var k [16]byte
	s := startKey(start)
	copy(k[:], s[:])
	binary.BigEndian.PutUint64(k[8:], seq)
	return k
}

// Load restores one entry of the aggregate's checkpointed state, read
// from key group kg, in the order of the store's keys. Parts of windows
// ("p") go to memory, spilling like Add when the budget runs out, and
// become dirty: the local store starts empty, so the next checkpoint
// writes them again. Spilled entries ("s") go to the spill store.
// Restored must follow the last Load.
func (a *Aggregate) Load(kg uint16, name string, key, value []byte) error {
	if name == paneState && (len(key) == 8 || len(key) == 16) {
		return a.loadEntry(kg, int64(binary.BigEndian.Uint64(key)^1<<63), value)
	}
	if err := a.loadPart(); err != nil {
		return err
	}
	switch {
	case name == spillState && len(key) > 8:
		b, err := a.storeBatch()
		if err != nil {
			return err
		}
		a.pane(int64(binary.BigEndian.Uint64(key) ^ 1<<63)).markSpilled(kg)
		b.Set(a.spill.uid, kg, spillState, key, value)
		return a.commitIfLarge(b)
	case name == progressState && bytes.Equal(key, progressKey):
		wm, n := binary.Varint(value)
		if n <= 0 || n != len(value) {
			return fmt.Errorf("%w: malformed window progress", ErrCorrupt)
		}
		if !a.progressed || wm < a.restoredWM {
			a.restoredWM, a.progressed = wm, true
		}
		return nil
	}
	return fmt.Errorf("%w: unknown state %q", ErrCorrupt, name)
}

// Restored finishes a restore.
func (a *Aggregate) Restored() error {
	if err := a.loadPart(); err != nil {
		return err
	}
	if a.progressed {
		a.wm = a.restoredWM
	}
	if a.spill.batch == nil {
		return nil
	}
	return a.spill.batch.Commit()
}

// loading collects the entries of the part Load is reading: they come
// one after another, in order, and make one part.
type loading struct {
	kg      uint16
	start   int64
	entries [][]byte
}

// loadEntry collects an entry of the part of window start in key group
// kg, loading the previous part first if this one is another.
func (a *Aggregate) loadEntry(kg uint16, start int64, value []byte) error {
	l := &a.loading
	if len(l.entries) > 0 && (l.kg != kg || l.start != start) {
		if err := a.loadPart(); err != nil {
			return err
		}
	}
	l.kg, l.start = kg, start
	l.entries = append(l.entries, bytes.Clone(value))
	return nil
}

// decoded is an entry, or a part resolved from its entries: groups'
// keys and states, and DISTINCT values with their groups as indexes.
type decoded struct {
	keys, states [][]byte
	values       []decodedValue
}

type decodedValue struct {
	agg   int
	group uint64
	value []byte
}

// decode decodes an entry that Flush wrote.
func (a *Aggregate) decode(value []byte) (decoded, error) {
	r := reader{b: value}
	n := r.uvarint()
	if n > uint64(len(value)) {
		return decoded{}, fmt.Errorf("%w: malformed window part", ErrCorrupt)
	}
	d := decoded{keys: make([][]byte, 0, n), states: make([][]byte, 0, n)}
	for i := uint64(0); i < n && r.err == nil; i++ {
		d.keys = append(d.keys, r.bytes())
		d.states = append(d.states, r.bytes())
	}
	nd := r.uvarint()
	for i := uint64(0); i < nd && r.err == nil; i++ {
		agg := r.uvarint()
		if r.err == nil && agg >= uint64(len(a.spec.Aggs)) {
			return decoded{}, fmt.Errorf("%w: DISTINCT value of a missing aggregate", ErrCorrupt)
		}
		v := decodedValue{agg: int(agg), group: r.uvarint(), value: r.bytes()}
		if r.err == nil && (!a.spec.Aggs[v.agg].Distinct || v.group >= n) {
			return decoded{}, fmt.Errorf("%w: DISTINCT value of a missing group", ErrCorrupt)
		}
		d.values = append(d.values, v)
	}
	if r.err != nil || len(r.b) != 0 {
		return decoded{}, fmt.Errorf("%w: malformed window part", ErrCorrupt)
	}
	return d, nil
}

// resolve makes one part of its entries, oldest first: each group's
// state from the newest entry naming it, the DISTINCT values of all.
func (a *Aggregate) resolve(entries [][]byte) (decoded, error) {
	if len(entries) == 1 {
		return a.decode(entries[0])
	}
	var out decoded
	index := map[string]uint64{}
	for i := len(entries) - 1; i >= 0; i-- {
		d, err := a.decode(entries[i])
		if err != nil {
			return decoded{}, err
		}
		for j, key := range d.keys {
			if _, ok := index[string(key)]; !ok {
				index[string(key)] = uint64(len(out.keys))
				out.keys = append(out.keys, key)
				out.states = append(out.states, d.states[j])
			}
		}
		for _, v := range d.values {
			v.group = index[string(d.keys[v.group])]
			out.values = append(out.values, v)
		}
	}
	return out, nil
}

// loadPart loads the part that loadEntry collected, if any.
func (a *Aggregate) loadPart() error {
	l := &a.loading
	if len(l.entries) == 0 {
		return nil
	}
	d, err := a.resolve(l.entries)
	clear(l.entries)
	l.entries = l.entries[:0]
	if err != nil {
		return err
	}
	kg := l.kg
	p := a.pane(l.start)
	// groups[i] is key i's group in memory, or -1 once the part goes to
	// the store instead.
	groups := make([]int32, len(d.keys))
	spilled := false
	for i, key := range d.keys {
		if !spilled {
			g, err := a.loadGroup(p, key, d.states[i])
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
		if err := a.spillGroup(p, kg, key, d.states[i]); err != nil {
			return err
		}
	}
	for _, v := range d.values {
		if !spilled {
			k := binary.BigEndian.AppendUint32(a.key[:0], uint32(groups[v.group]))
			a.key = append(k, v.value...)
			_, _, _, err := p.seen[v.agg].Insert(a.key, memseg.Hash(a.key))
			if err == nil {
				continue
			}
			if err := a.spillAll(); err != nil {
				return err
			}
			spilled = true
		}
		if err := a.spillDistinct(p, kg, d.keys[v.group], v.agg, v.value); err != nil {
			return err
		}
	}
	return nil
}

// loadGroup adds a group with its checkpointed state to pane p's memory.
func (a *Aggregate) loadGroup(p *pane, key, st []byte) (int32, error) {
	g, inserted, err := a.groupOf(p, key, memseg.Hash(key))
	if err != nil {
		return 0, err
	}
	if !inserted {
		return 0, fmt.Errorf("%w: group stored twice", ErrCorrupt)
	}
	rest := st
	for _, ac := range p.accs {
		if rest, err = ac.Get(rest, g); err != nil {
			return 0, err
		}
	}
	if len(rest) != 0 {
		return 0, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(rest))
	}
	if a.track {
		p.dirty[g>>6] |= 1 << (g & 63)
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
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = ErrCorrupt
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// Fingerprint identifies the aggregate's state schema: a restore refuses
// state written by an aggregate with other keys, aggregates or window. It
// ends in agg.FingerprintMark of the aggregates: a FLOAT or DOUBLE SUM or
// AVG keeps exact sums, which a strand from before them must refuse.
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
	return fmt.Sprintf("%s;%016x%s", version, memseg.Hash(b.Bytes()), agg.FingerprintMark(s.Aggs, s.In))
}

// touchAhead is how many groups encodeGroups touches before it encodes
// them: enough loads in flight to cover the CPU's outstanding misses (10
// to 16 lines) several times over, few enough that the lines touched stay
// in the cache until they are encoded (6 columns of 64 groups: 384 lines).
const touchAhead = 64

// touch loads the key group, key and accumulator slots of groups, a loop
// of independent loads (agg.Toucher), and returns a value to keep.
func (p *pane) touch(groups []int32) uint64 {
	var x uint64
	for _, g := range groups {
		x += uint64(p.kgs[g])
	}
	if p.ints != nil {
		for _, g := range groups {
			x += p.ikeys[g]
		}
	} else {
		for _, g := range groups {
			x += uint64(p.addrs[g])
		}
	}
	for _, ac := range p.accs {
		if t, ok := ac.(agg.Toucher); ok {
			x += t.Touch(groups)
		}
	}
	return x
}
