package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Spec describes a window aggregate.
type Spec struct {
	Window Assigner
	// In is the input schema.
	In types.Schema
	// TimeCol is the event-time column the window is assigned by, or -1
	// when rows are assigned by processing time (AddAt).
	TimeCol int
	// ByEnd makes TimeCol each row's window_end instead: rows a window
	// TVF assigned already, one per window (a view or subquery of a
	// window TVF). Each window is a pane of its own, keyed by its end.
	ByEnd bool
	// Keys are the grouping columns besides the window.
	Keys []int
	Aggs []agg.Call
	// BatchSize bounds the rows of an output batch.
	BatchSize int
}

// Out returns the output schema: the key columns, window_start and
// window_end, then one column per aggregate named $agg0, $agg1, ... (a
// name no SQL column can clash with).
func (s *Spec) Out() types.Schema {
	var out types.Schema
	for _, k := range s.Keys {
		out = append(out, types.Field{Name: s.In[k].Name, Type: s.In[k].Type.Plain()})
	}
	out = append(out,
		types.Field{Name: "window_start", Type: types.TTimestamp.WithNotNull(true)},
		types.Field{Name: "window_end", Type: types.TTimestamp.WithNotNull(true)})
	for i, a := range s.Aggs {
		out = append(out, types.Field{Name: fmt.Sprintf("$agg%d", i), Type: a.Out})
	}
	return out
}

// MinSegments is the fewest segments of managed memory the aggregate can
// hold a window in: two per hash table (buckets and entries; one table
// for the groups and one per DISTINCT aggregate), and two for the
// columns. With fewer, its first row may not fit.
func (s *Spec) MinSegments() int {
	n := 2 + 2
	for _, a := range s.Aggs {
		if a.Distinct {
			n += 2
		}
	}
	return n
}

// ErrMemory is returned when a single batch's new groups do not fit in
// the memory budget even with every window spilled.
var ErrMemory = errors.New("window state does not fit in memory.managed.size")

// Aggregate is a fixed-window aggregate (tumbling, hopping, cumulating).
// It is driven by one goroutine.
//
// State is kept per slice (Assigner): a pane is one slice, and a window
// that is one slice (every tumbling window) fires straight from its pane.
// Each pane's groups live in a memseg.HashTable from the group's
// normalized key to a group number; the accumulators are columns (typed
// slices, one slot per group number) so that an update is a tight loop per
// aggregate over a batch. The tables' segments and the columns are both
// charged to the memory budget. When a new group does not fit, every
// window's in-memory state is spilled to the state store (spill.go) and the
// batch goes on into empty tables; a window with spilled state fires by
// merging its spilled parts in key order.
type Aggregate struct {
	spec   Spec
	alloc  memory.Allocator
	schema *arrow.Schema
	panes  map[int64]*pane
	wm     int64
	mem    *memseg.Manager
	keys   *keyDecoder
	// groupBytes is what a group's column slots take, accBytes what its
	// accumulators' slots take of it.
	groupBytes, accBytes int

	// track is set when the aggregate checkpoints: it then remembers what
	// changed since the last Flush. fired are the windows fired since the
	// last Flush, whose stored state Flush deletes.
	track bool
	fired []*pane
	// kgLo..kgHi are the key groups Flush writes the progress into
	// (StoreProgress); restoredWM is the least progress Load has read.
	kgLo, kgHi int
	restoredWM int64
	progressed bool
	part       []byte // Flush's encoding buffer
	// flushes numbers the entries Flush writes; since counts the Flushes
	// that wrote entries since the last rewrite; drops are the parts
	// whose older entries the last Flush deleted (Flushed forgets them);
	// flush is Flush's scratch, loading Load's (state.go).
	flushes uint64
	since   int
	drops   []drop
	flush   flushScratch
	loading loading

	spill spill

	// merged and cursors are fireMerged's, slider fireSlices', kept
	// across windows; sliders counts the sliders made (their generations).
	merged  *merge
	cursors []cursor
	slider  *slider
	sliders uint64

	// intKeys says the aggregate groups by one integer-like column: its
	// panes have IntTables (groups.go). hint is the groups of the last
	// window fired, which the tables of new ones are sized for.
	intKeys bool
	hint    int
	// distincts says some aggregate is DISTINCT; spares is the memory of
	// fired windows kept for the next ones (spare.go).
	distincts bool
	spares    []*spare
	// spareBytes is what the spares hold: their charges and tables.
	spareBytes int

	// Scratch reused across batches: all is the rows 0, 1, 2, ...;
	// rows and hashes the rows addTo folds and their key hashes (nil
	// when not given), hashBuf holds hashes of some rows of a batch; us,
	// hs and wide are lookupInts', pairs and pairTmp keyOrder's.
	all       []int32
	which     []int32
	byPane    []int32
	at, next  []int
	hashes    []uint64
	hashBuf   []uint64
	us, hs    []uint64
	wide      []int64
	pairs     []intPair
	pairTmp   []intPair
	kbuf      []byte
	valid     []bool
	fill      []arrow.Timestamp
	enc       memseg.KeyEncoder
	dEnc      []memseg.KeyEncoder // per DISTINCT aggregate: its argument
	key, prev []byte
	dkey      []byte
	rows      []int32
	groups    []int32
	fRows     []int32
	fGroups   []int32
	dRows     [][]int32 // per aggregate: rows whose DISTINCT value is new
	dGroups   [][]int32
	starts    []int64
	order     []int32
}

// pane is the state of one window.
type pane struct {
	start int64
	// groups maps a group's key to its number (4 bytes, little-endian);
	// addrs[g] is group g's entry, which holds its key. An aggregate
	// keyed by one integer-like column has ints instead, from the key's
	// value bytes to its number, with the values in ikeys, and the NULL
	// key's group in null, -1 if none (groups.go).
	groups *memseg.HashTable
	addrs  []uint64
	ints   *memseg.IntTable
	ikeys  []uint64
	null   int32
	// hashes are the hashes of ikeys, and slots the groups' slots in the
	// slider of generation slotGen, once a window of several slices has
	// needed them (slide.go); a new group clears them.
	hashes  []uint64
	slots   []int32
	slotGen uint64
	accs    []agg.Acc
	// order and keys cache the groups in key order, and their keys (in
	// the table's memory), once a window of several slices has needed
	// them; a new group clears them.
	order []int32
	keys  [][]byte
	// seen holds, per DISTINCT aggregate, the (group number, value) pairs
	// seen, values as normalized keys. values caches them in key order,
	// per group, once a window of several slices has needed them, its
	// memory (valuesBytes) charged to the budget.
	seen        []*memseg.HashTable
	values      []paneValues
	valuesBytes int
	// valuesGroups is the number of groups when values was cached: a
	// group made since (the integer path makes groups in bulk) makes it
	// stale.
	valuesGroups int
	// cap is the groups the columns have room for; charged the bytes of
	// the budget the columns and the accumulators' heap values hold.
	cap, charged int

	// Checkpoint bookkeeping (state.go): groups changed since the last
	// Flushed (dirty has bit g set for group g; Flush lists them, in
	// group order, in dirtyList), each group's key group
	// (recorded as the group is made, once UseStore has given the key
	// groups: spill.go), per key group what the state store holds of the
	// window, of which the first joined groups are members, and per
	// DISTINCT aggregate the position in seen up to which the store holds
	// its values.
	//
	// fold marks every row's group, so the marking is as cheap as it can
	// be made (BenchmarkAddTracked; in q12e's profile it was 2.6% of the
	// CPU with checkpoints every 1 s). A bit per group, so that it stays
	// in cache: a byte per group, stored without a test, cost q12e less
	// but 1M groups missed the cache on it (+5 ns a row). Tested before
	// it is set: an unconditional set makes the rows of a hot key wait for
	// each other's stores (q12e's marking took twice as long). And no
	// list in fold: Flush lists the marked groups.
	dirty     []uint64
	dirtyList []int32
	kgs       []uint16
	parts     []part
	joined    int
	marks     []uint64
	// spilled are the key groups with a part of the window spilled to the
	// store.
	spilled map[uint16]bool
}

// New returns an empty aggregate. It takes its memory from a manager of
// the default budget until UseMemory gives it another.
func New(spec Spec, alloc memory.Allocator) (*Aggregate, error) {
	if spec.Window.Kind == Tumble && spec.Window.Slide == 0 {
		spec.Window.Slide = spec.Window.Size
	}
	if err := spec.Window.Check(); err != nil {
		return nil, err
	}
	if spec.TimeCol < 0 && spec.Window.Kind != Tumble {
		return nil, fmt.Errorf("processing-time windows are tumbling only")
	}
	if spec.BatchSize <= 0 {
		spec.BatchSize = 4096
	}
	a := &Aggregate{spec: spec, alloc: alloc, schema: spec.Out().Arrow(), panes: map[int64]*pane{}, wm: types.MinWatermark,
		dRows: make([][]int32, len(spec.Aggs)), dGroups: make([][]int32, len(spec.Aggs)), dEnc: make([]memseg.KeyEncoder, len(spec.Aggs)), kgHi: -1}
	for _, ag := range spec.Aggs {
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = spec.In[ag.Arg].Type
		}
		ac, err := agg.New(ag, in)
		if err != nil {
			return nil, err
		}
		a.accBytes += ac.Size()
	}
	a.groupBytes = 8 + 1 + 2 + 4 + a.accBytes // addrs or ikeys, dirty, kgs, part members, accumulators
	var kt []arrow.DataType
	for _, k := range spec.Keys {
		t := spec.In[k].Type.Arrow()
		if _, err := memseg.TypeOf(t); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", spec.In[k].Name, err)
		}
		kt = append(kt, t)
	}
	for _, ag := range spec.Aggs {
		a.distincts = a.distincts || ag.Distinct
	}
	// DISTINCT values are kept per (group, value) in the seen tables and
	// merged across slices by key (fireMerged): an integer key's table and
	// the slider, which merge accumulators by slot, would count a value of
	// two slices twice.
	a.intKeys = intKeyed(&spec) && !a.distincts
	var err error
	if a.keys, err = newKeyDecoder(kt); err != nil {
		return nil, err
	}
	a.mem, err = memseg.NewManager(memseg.DefaultBudget, memseg.DefaultSegmentSize)
	return a, err
}

// UseMemory makes the aggregate keep its state in m's budget. It must be
// called before the first Add.
func (a *Aggregate) UseMemory(m *memseg.Manager) { a.mem = m }

// Release gives the aggregate's managed memory back. The aggregate must
// not be used afterwards.
func (a *Aggregate) Release() {
	for _, p := range a.panes {
		a.free(p)
	}
	a.trimSlider(true)
	a.dropSpares()
	a.panes = map[int64]*pane{}
}

// newAccs makes the aggregate's accumulators on the Go heap: the
// slider's and a spill merge's, one each, made once.
func (a *Aggregate) newAccs() []agg.Acc { return a.accsIn(nil) }

// paneAccs makes a pane's accumulators, whose large columns are blocks of
// the aggregate's Manager (agg.NewIn), which free gives back.
func (a *Aggregate) paneAccs() []agg.Acc { return a.accsIn(a.mem) }

// accsIn makes the aggregate's accumulators with their large columns in
// m's blocks, or on the heap with m nil.
func (a *Aggregate) accsIn(m *memseg.Manager) []agg.Acc {
	accs := make([]agg.Acc, len(a.spec.Aggs))
	for i, ag := range a.spec.Aggs {
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = a.spec.In[ag.Arg].Type
		}
		accs[i], _ = agg.NewIn(ag, in, m) // New checked every aggregate
	}
	return accs
}

func (a *Aggregate) newPane(start int64) *pane {
	p := &pane{start: start, null: -1}
	last := a.expected()
	hint := last + last/8
	switch {
	case a.reuse(p):
		hint = last
	case a.intKeys:
		p.ints = memseg.NewIntTable(a.mem)
		p.ints.Expect(hint)
	default:
		p.groups = memseg.NewHashTable(a.mem, 4)
		p.groups.Expect(hint)
	}
	if p.accs == nil {
		p.accs = a.paneAccs()
	}
	if hint > p.cap {
		// Columns for as many groups as expected, if the budget has
		// room: else they grow as groups come.
		_ = a.growTo(p, hint)
	}
	for _, ag := range a.spec.Aggs {
		var seen *memseg.HashTable
		if ag.Distinct {
			seen = memseg.NewHashTable(a.mem, 0)
		}
		p.seen = append(p.seen, seen)
	}
	return p
}

// free gives back pane p's memory and leaves it empty, its spilled and
// stored parts untouched: which entries the store holds stays known.
func (a *Aggregate) free(p *pane) {
	switch {
	case p.ints != nil:
		p.ints.Reset()
	case p.groups != nil:
		p.groups.Reset()
	}
	for _, s := range p.seen {
		if s != nil {
			s.Reset()
		}
	}
	a.mem.Unreserve(p.charged + p.valuesBytes)
	p.values, p.valuesBytes = nil, 0
	for _, ac := range p.accs {
		agg.Release(ac)
	}
	p.accs = a.paneAccs()
	p.addrs, p.ikeys, p.dirty, p.dirtyList, p.kgs, p.marks = nil, nil, nil, nil, nil, nil
	p.changed()
	p.null, p.joined = -1, 0
	for i := range p.parts {
		p.parts[i].members = nil
	}
	p.cap, p.charged = 0, 0
}

// Add folds a batch into the windows its rows belong to. It returns the
// number of rows dropped as late (their window has fired already) or with
// a NULL event time.
func (a *Aggregate) Add(b arrow.RecordBatch) (dropped int64, err error) {
	return a.AddRows(b, nil, nil)
}

// AddRows is Add of the rows sel of b, in that order (every row when sel
// is nil): a hash exchange's share of a batch that it shares with other
// receivers. hashes, when not nil, are the rows' key hashes, hashes[i]
// that of row sel[i] (of row i without sel): memseg.Hash of the row's
// normalized key over Spec.Keys, the hash that picked the row's key group
// in the exchange, which the aggregate then does not compute again. Its
// group tables hash keys with the same function whether or not the
// caller passes hashes.
func (a *Aggregate) AddRows(b arrow.RecordBatch, sel []int32, hashes []uint64) (dropped int64, err error) {
	ts := b.Column(a.spec.TimeCol).(*array.Timestamp)
	tv := ts.TimestampValues()
	if err := a.enc.Reset(b, a.spec.Keys); err != nil {
		return 0, err
	}
	all := sel == nil
	if all {
		sel = a.iota(int(b.NumRows()))
	}
	// Most batches fall into one window; rows are grouped by window start
	// so each pane sees one contiguous update.
	a.starts = a.starts[:0]
	if s, ok := a.oneWindow(ts, sel, all); ok {
		// The whole batch is in window s: no per-row window arithmetic.
		if a.fires(s) <= a.wm {
			return int64(len(sel)), nil
		}
		a.rows, a.hashes = append(a.rows[:0], sel...), hashes
		return 0, a.addTo(s, b)
	}
	// Each row's pane, as an index into a.starts (-1: dropped), computed
	// once per run of rows in one slice; then the rows (and hashes) in
	// order of their panes, a counting sort.
	which := slices.Grow(a.which[:0], len(sel))[:len(sel)]
	a.which = which
	lo, hi, w := int64(1), int64(0), int32(-1) // rows in [lo, hi) go to w
	for i, r := range sel {
		if ts.IsNull(int(r)) {
			dropped++
			which[i] = -1
			continue
		}
		if v := int64(tv[r]); v < lo || v >= hi {
			s := a.paneOf(v)
			lo, hi = s, s+1
			if !a.spec.ByEnd {
				hi = s + a.spec.Window.SliceSize()
			}
			w = int32(slices.Index(a.starts, s))
			switch {
			case a.fires(s) <= a.wm:
				w = -1
			case w < 0:
				w = int32(len(a.starts))
				a.starts = append(a.starts, s)
			}
		}
		which[i] = w
		if w < 0 {
			dropped++
		}
	}
	at := append(a.at[:0], make([]int, len(a.starts)+1)...)
	a.at = at
	for _, w := range which {
		if w >= 0 {
			at[w+1]++
		}
	}
	for j := range a.starts {
		at[j+1] += at[j]
	}
	kept := at[len(a.starts)]
	byPane := slices.Grow(a.byPane[:0], kept)[:kept]
	a.byPane = byPane
	var hashBy []uint64
	if hashes != nil {
		hashBy = slices.Grow(a.hashBuf[:0], kept)[:kept]
		a.hashBuf = hashBy
	}
	next := append(a.next[:0], at...)
	a.next = next
	for i, r := range sel {
		if w := which[i]; w >= 0 {
			byPane[next[w]] = r
			if hashBy != nil {
				hashBy[next[w]] = hashes[i]
			}
			next[w]++
		}
	}
	for j, s := range a.starts {
		a.rows, a.hashes = append(a.rows[:0], byPane[at[j]:at[j+1]]...), nil
		if hashBy != nil {
			a.hashes = hashBy[at[j]:at[j+1]]
		}
		if err := a.addTo(s, b); err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// iota returns the rows 0..n-1.
func (a *Aggregate) iota(n int) []int32 {
	for len(a.all) < n {
		a.all = append(a.all, int32(len(a.all)))
	}
	return a.all[:n]
}

// oneWindow reports whether every row of sel is in one window, and which:
// no NULLs, and the least and greatest times share a window start. all
// says sel is every row of ts.
func (a *Aggregate) oneWindow(ts *array.Timestamp, sel []int32, all bool) (int64, bool) {
	tv := ts.TimestampValues()
	if ts.NullN() > 0 || len(sel) == 0 {
		return 0, false
	}
	// Every row of the batch in one window puts sel's there too: when sel
	// is most of the rows (a filter's), a scan of the whole column is
	// cheaper than one through sel. A hash exchange's share at p=2 is
	// about half the rows, and each receiver scanning all of them did the
	// whole batch's scan once per receiver.
	if all || 4*len(sel) >= 3*len(tv) {
		lo, hi := timeSpan(tv)
		if s := a.paneOf(int64(lo)); a.paneOf(int64(hi)) == s || all {
			return s, a.paneOf(int64(hi)) == s
		}
	}
	lo, hi := timeSpanOf(tv, sel)
	s := a.paneOf(int64(lo))
	return s, a.paneOf(int64(hi)) == s
}

// paneOf is the key of the pane a row of time ts goes to: its slice's
// start, or with ByEnd its window's end.
func (a *Aggregate) paneOf(ts int64) int64 {
	if a.spec.ByEnd {
		return ts
	}
	return a.spec.Window.Start(ts)
}

// fires is the watermark at which the first window of pane s fires.
func (a *Aggregate) fires(s int64) int64 {
	if a.spec.ByEnd {
		return s - 1
	}
	return a.spec.Window.Fires(s)
}

// pane returns the state of the window starting at s, made if new.
func (a *Aggregate) pane(s int64) *pane {
	p := a.panes[s]
	if p == nil {
		p = a.newPane(s)
		a.panes[s] = p
	}
	return p
}

// AddAt folds a whole batch into the window holding processing time now:
// a processing-time window assigns rows by the clock when they arrive, not
// by a column. It returns the number of rows dropped because that window
// has fired already (none when now only grows and the watermark passed to
// Advance stays below it).
func (a *Aggregate) AddAt(b arrow.RecordBatch, now int64) (dropped int64, err error) {
	return a.AddRowsAt(b, nil, nil, now)
}

// AddRowsAt is AddAt of the rows sel of b, whose key hashes are hashes,
// as for AddRows.
func (a *Aggregate) AddRowsAt(b arrow.RecordBatch, sel []int32, hashes []uint64, now int64) (dropped int64, err error) {
	if sel == nil {
		sel = a.iota(int(b.NumRows()))
	}
	s := a.spec.Window.Start(now)
	if a.spec.Window.Fires(s) <= a.wm {
		return int64(len(sel)), nil
	}
	if err := a.enc.Reset(b, a.spec.Keys); err != nil {
		return 0, err
	}
	a.rows, a.hashes = append(a.rows[:0], sel...), hashes
	return 0, a.addTo(s, b)
}

// addTo folds the rows in a.rows of b into the window starting at s,
// spilling every window's state whenever the budget runs out. a.hashes
// are their key hashes, or nil.
func (a *Aggregate) addTo(s int64, b arrow.RecordBatch) error {
	rows, hashes := a.rows, a.hashes
	for len(rows) > 0 {
		p := a.pane(s)
		empty := a.empty()
		done, err := a.fold(p, b, rows, hashes)
		if err != nil {
			return err
		}
		rows = rows[done:]
		if hashes != nil {
			hashes = hashes[done:]
		}
		over := a.charge(p)
		if len(rows) == 0 && !over {
			return nil
		}
		if done == 0 && empty {
			return fmt.Errorf("%w: one row's group needs more than its %d bytes", ErrMemory, a.mem.Budget())
		}
		if err := a.spillAll(); err != nil {
			return err
		}
	}
	return nil
}

// empty reports whether no window holds anything in memory.
func (a *Aggregate) empty() bool {
	for _, p := range a.panes {
		if p.len() > 0 {
			return false
		}
	}
	return true
}

// chargeFor makes pane p's charge what columns of groups slots and its
// accumulators' heap values take, if that is more than it holds.
func (a *Aggregate) chargeFor(p *pane, groups int) error {
	need := groups * a.groupBytes
	for _, ac := range p.accs {
		need += ac.Heap()
	}
	if need > p.charged {
		if err := a.mem.Reserve(need - p.charged); err != nil {
			return err
		}
		p.charged = need
	}
	return nil
}

// charge brings pane p's charge for its accumulators' heap values up to
// date, and reports whether the budget is exceeded: such values (strings
// of MIN and MAX) are known only after the update that keeps them.
func (a *Aggregate) charge(p *pane) (over bool) {
	return a.chargeFor(p, p.cap) != nil
}

// fold folds rows of b into pane p; hashes, if not nil, are their key
// hashes. It returns how many of the rows, from the first, it folded:
// fewer than all when the budget cannot take their groups or DISTINCT
// values.
func (a *Aggregate) fold(p *pane, b arrow.RecordBatch, rows []int32, hashes []uint64) (int, error) {
	n, err := a.lookup(p, b, rows, hashes)
	if err != nil {
		return 0, err
	}
	rows, groups := rows[:n], a.groups[:n]
	if a.track {
		dirty := p.dirty
		for _, g := range groups {
			if w, bit := g>>6, uint64(1)<<(g&63); dirty[w]&bit == 0 {
				dirty[w] |= bit
			}
		}
	}
	for i, ag := range a.spec.Aggs {
		var col arrow.Array
		if ag.Kind != agg.CountStar {
			col = b.Column(ag.Arg)
		}
		if ag.Distinct {
			p.accs[i].Update(col, a.dRows[i], a.dGroups[i])
			continue
		}
		rs, gs := a.filtered(ag, b, rows, groups)
		p.accs[i].Update(col, rs, gs)
	}
	return n, nil
}

// filtered returns the rows (and their groups) whose FILTER column is
// TRUE: all of them without a FILTER.
func (a *Aggregate) filtered(ag agg.Call, b arrow.RecordBatch, rows, groups []int32) ([]int32, []int32) {
	if ag.Filter < 0 {
		return rows, groups
	}
	f := b.Column(ag.Filter).(*array.Boolean)
	a.fRows, a.fGroups = a.fRows[:0], a.fGroups[:0]
	for i, r := range rows {
		if f.IsValid(int(r)) && f.Value(int(r)) {
			a.fRows = append(a.fRows, r)
			a.fGroups = append(a.fGroups, groups[i])
		}
	}
	return a.fRows, a.fGroups
}

// lookup sets a.groups to the group of each of rows (whose key hashes are
// hashes, or nil to compute them), making groups for
// new keys, and for each DISTINCT aggregate sets a.dRows and a.dGroups to
// the rows whose value is new to their group, marking it seen. It returns
// how many rows, from the first, it did that for: fewer than all when the
// budget cannot take a row's group or DISTINCT values. The row it stopped
// at may have left its group or some values behind, as if it had no
// rows: a spill follows, and the row comes back after it.
func (a *Aggregate) lookup(p *pane, b arrow.RecordBatch, rows []int32, hashes []uint64) (int, error) {
	a.groups = a.groups[:0]
	distinct := false
	for i, ag := range a.spec.Aggs {
		a.dRows[i], a.dGroups[i] = a.dRows[i][:0], a.dGroups[i][:0]
		if ag.Distinct {
			distinct = true
			if err := a.dEnc[i].ResetArrays(b.Column(ag.Arg)); err != nil {
				return 0, err
			}
		}
	}
	// Skewed keys often repeat the previous row's (a window without keys
	// always does): no hashing then.
	g, ok := int32(-1), true
	if len(a.spec.Keys) == 0 && !distinct && len(rows) > 0 {
		// One group per window.
		a.key = a.key[:0]
		if g, ok = a.group(p, memseg.Hash(a.key)); !ok {
			return 0, nil
		}
		a.groups = slices.Grow(a.groups[:0], len(rows))[:len(rows)]
		for i := range a.groups {
			a.groups[i] = g
		}
		return len(rows), nil
	}
	if p.ints != nil {
		return a.lookupInts(p, b, rows, hashes, distinct)
	}
	for i, r := range rows {
		a.key = a.enc.Append(a.key[:0], int(r))
		if g < 0 || !bytes.Equal(a.key, a.prev) {
			var h uint64
			if hashes != nil {
				h = hashes[i]
			} else {
				h = memseg.Hash(a.key)
			}
			if g, ok = a.group(p, h); !ok {
				return i, nil
			}
			a.key, a.prev = a.prev, a.key
		}
		if distinct && !a.distinct(p, b, r, g) {
			return i, nil
		}
		a.groups = append(a.groups, g)
	}
	return len(rows), nil
}

// group returns the group of key a.key, whose hash is hash, in pane p,
// made if new; false if the budget has no room for it.
func (a *Aggregate) group(p *pane, hash uint64) (int32, bool) {
	g, inserted, err := a.groupOf(p, a.key, hash)
	if inserted {
		a.forgetValues(p)
	}
	return g, err == nil
}

// distinct marks row r's values of the DISTINCT aggregates seen in group
// g, adding r to a.dRows of those to which its value is new. NULL values
// and rows the FILTER drops are skipped: aggregates ignore them anyway. It
// reports false when the budget cannot take a value.
func (a *Aggregate) distinct(p *pane, b arrow.RecordBatch, r, g int32) bool {
	for i, ag := range a.spec.Aggs {
		if !ag.Distinct || b.Column(ag.Arg).IsNull(int(r)) {
			continue
		}
		if ag.Filter >= 0 {
			f := b.Column(ag.Filter).(*array.Boolean)
			if !f.IsValid(int(r)) || !f.Value(int(r)) {
				continue
			}
		}
		k := binary.BigEndian.AppendUint32(a.dkey[:0], uint32(g))
		k = a.dEnc[i].Append(k, int(r))
		a.dkey = k
		_, _, inserted, err := p.seen[i].Insert(k, memseg.Hash(k))
		if err != nil {
			// The row comes back after a spill: the values it left in
			// seen are harmless (they are spilled too, and a spilled
			// window's DISTINCT aggregates are computed from its values),
			// but it must not be counted now.
			for j := range i {
				if n := len(a.dRows[j]); n > 0 && a.dRows[j][n-1] == r {
					a.dRows[j], a.dGroups[j] = a.dRows[j][:n-1], a.dGroups[j][:n-1]
				}
			}
			return false
		}
		if inserted {
			a.dRows[i] = append(a.dRows[i], r)
			a.dGroups[i] = append(a.dGroups[i], g)
			a.forgetValues(p)
		}
	}
	return true
}

// grow makes room in p's columns for more groups, charging the budget:
// doubling, by a quarter for big columns, or by a few groups when the
// budget has no room for more.
func (a *Aggregate) grow(p *pane) error {
	n := max(16, 2*p.cap)
	if p.cap >= 1<<16 {
		n = p.cap + p.cap/4
	}
	if err := a.growTo(p, n); err != nil {
		// As many groups as the budget has room for, up to 16.
		free := (a.mem.Budget() - a.mem.Used()) / int64(a.groupBytes)
		return a.growTo(p, p.cap+int(max(1, min(16, free))))
	}
	return nil
}

// growTo makes room in p's columns for n groups, charging the budget.
func (a *Aggregate) growTo(p *pane, n int) error {
	if err := a.chargeFor(p, n); err != nil {
		return err
	}
	p.cap = n
	if p.ints != nil {
		p.ikeys = slices.Grow(p.ikeys, n-len(p.ikeys))
	} else {
		p.addrs = slices.Grow(p.addrs, n-len(p.addrs))
	}
	if a.spill.maxPar != 0 {
		p.kgs = slices.Grow(p.kgs, n-len(p.kgs))
	}
	for _, ac := range p.accs {
		ac.Grow(n)
	}
	if a.track {
		p.dirty = agg.Grow(p.dirty, (n+63)/64)
	}
	return nil
}

// Advance moves the watermark to wm and emits every window that fires, in
// the order of their ends, each in key order, in batches of at most
// BatchSize rows. A window [start, end) fires when wm reaches end-1; a
// slice's state is freed once the last window covering it has fired.
func (a *Aggregate) Advance(wm int64, emit func(arrow.RecordBatch) error) error {
	if wm <= a.wm {
		return nil
	}
	prev := a.wm
	a.wm = wm
	if a.spec.ByEnd {
		return a.advanceByEnd(emit)
	}
	defer a.trimSlider(false)
	w := a.spec.Window
	starts := slices.Sorted(maps.Keys(a.panes))
	var ends []int64
	for _, s := range starts {
		lo, hi := w.firstEnd(s), w.lastEnd(s)
		if prev != types.MinWatermark && lo-1 <= prev {
			lo = align(prev+1, w.step(), w.Offset) + w.step() // the first end past prev+1
		}
		if hi-1 > wm {
			hi = align(wm+1, w.step(), w.Offset)
		}
		for e := lo; e <= hi; e += w.step() {
			ends = append(ends, e)
		}
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	var cover []*pane
	for _, e := range ends {
		ws := w.windowStart(e)
		i, _ := slices.BinarySearch(starts, ws)
		cover = cover[:0]
		for ; i < len(starts) && starts[i] < e; i++ {
			cover = append(cover, a.panes[starts[i]])
		}
		if err := a.fire(cover, ws, e, emit); err != nil {
			return err
		}
	}
	for _, s := range starts {
		if w.lastEnd(s)-1 > wm {
			continue
		}
		p := a.panes[s]
		if err := a.expire(p); err != nil {
			return err
		}
		delete(a.panes, s)
		a.hint = p.len()
		a.retire(p)
		if a.track {
			a.fired = append(a.fired, p)
		}
	}
	return nil
}

// advanceByEnd fires the panes of windows ending at or before a.wm + 1,
// each a window of its own, in the order of their ends.
func (a *Aggregate) advanceByEnd(emit func(arrow.RecordBatch) error) error {
	for _, e := range slices.Sorted(maps.Keys(a.panes)) {
		if e-1 > a.wm {
			break
		}
		p := a.panes[e]
		if err := a.fire([]*pane{p}, a.spec.Window.windowStart(e), e, emit); err != nil {
			return err
		}
		if err := a.expire(p); err != nil {
			return err
		}
		delete(a.panes, e)
		a.hint = p.len()
		a.retire(p)
		if a.track {
			a.fired = append(a.fired, p)
		}
	}
	return nil
}

// fire emits the window [ws, we), whose slices with state are cover, in
// key order: straight from a slice's pane if it is the only one, else by
// merging the slices' groups in key order, in memory, or in the store when
// some are spilled.
func (a *Aggregate) fire(cover []*pane, ws, we int64, emit func(arrow.RecordBatch) error) error {
	for _, p := range cover {
		if len(p.spilled) > 0 {
			return a.fireSpilled(cover, ws, we, emit)
		}
	}
	if len(cover) == 1 {
		return a.emitPane(cover[0], ws, we, emit)
	}
	for _, p := range cover {
		if err := a.valueOrder(p); err != nil {
			// No memory to order the slices' DISTINCT values: they merge
			// through the store instead.
			return a.fireSpilled(cover, ws, we, emit)
		}
	}
	return a.fireMerged(cover, ws, we, emit)
}

// emitPane emits pane p's groups in key order as window [ws, we).
func (a *Aggregate) emitPane(p *pane, ws, we int64, emit func(arrow.RecordBatch) error) error {
	order := a.keyOrder(p)
	for lo := 0; lo < len(order); lo += a.spec.BatchSize {
		chunk := order[lo:min(lo+a.spec.BatchSize, len(order))]
		keys := a.paneKeys(p, chunk)
		if err := a.emit(ws, we, p.accs, chunk, keys, emit); err != nil {
			return err
		}
	}
	return nil
}

// fireMerged emits window [ws, we) by merging the groups of its slices,
// all in memory, in key order: each slice's groups are sorted once (a
// slice takes no rows once its first window has fired, so the order
// holds for its later windows), and a k-way merge folds equal keys into
// one output group. No hashing: the cost of a window is its slices'
// groups. A DISTINCT aggregate is computed from the union of its group's
// values in each slice (valueOrder), so that a value seen in two slices
// of the window counts once.
func (a *Aggregate) fireMerged(cover []*pane, ws, we int64, emit func(arrow.RecordBatch) error) error {
	if cover[0].ints != nil {
		if ok, err := a.fireSlices(cover, ws, we, emit); ok || err != nil {
			return err
		}
		return a.fireSpilled(cover, ws, we, emit)
	}
	cur := a.cursors[:0]
	for _, p := range cover {
		if p.order == nil {
			p.order = slices.Clone(a.keyOrder(p))
			p.keys = make([][]byte, len(p.order))
			for i, g := range p.order {
				p.keys[i] = p.groups.KeyAt(p.addrs[g])
			}
		}
		if len(p.order) > 0 {
			cur = append(cur, cursor{p: p, key: p.keys[0]})
		}
	}
	a.cursors = cur
	if a.merged == nil {
		a.merged = a.newMerge() // kept across windows: never released
	}
	m := a.merged
	// A window covers few slices (size/slide): the least key is found by
	// a scan, cheaper than a heap at that size.
	for len(cur) > 0 {
		least := 0
		for i := 1; i < len(cur); i++ {
			if bytes.Compare(cur[i].key, cur[least].key) < 0 {
				least = i
			}
		}
		c := &cur[least]
		if err := m.addFrom(c.key, c.p, c.p.order[c.i], ws, we, emit); err != nil {
			return err
		}
		if c.i++; c.i == len(c.p.order) {
			cur[least] = cur[len(cur)-1]
			cur = cur[:len(cur)-1]
			continue
		}
		c.key = c.p.keys[c.i]
	}
	return m.flush(ws, we, emit)
}

// cursor is a position in a slice's groups in key order.
type cursor struct {
	p   *pane
	i   int
	key []byte
}

// emit builds and emits one output batch of window [ws, we): the groups
// chunk of accs, whose key columns keys appends to the columns' builders.
func (a *Aggregate) emit(ws, we int64, accs []agg.Acc, chunk []int32, keys func(kb []array.Builder) error, emit func(arrow.RecordBatch) error) error {
	bld := array.NewRecordBuilder(a.alloc, a.schema)
	defer bld.Release()
	nk := len(a.spec.Keys)
	if err := keys(bld.Fields()[:nk]); err != nil {
		return err
	}
	// window_start and window_end: copies of one value, appended in bulk.
	fill := slices.Grow(a.fill[:0], len(chunk))[:len(chunk)]
	a.fill = fill
	for i := range fill {
		fill[i] = arrow.Timestamp(ws)
	}
	bld.Field(nk).(*array.TimestampBuilder).AppendValues(fill, nil)
	for i := range fill {
		fill[i] = arrow.Timestamp(we)
	}
	bld.Field(nk+1).(*array.TimestampBuilder).AppendValues(fill, nil)
	for i, ac := range accs {
		if err := ac.AppendTo(bld.Field(nk+2+i), chunk); err != nil {
			return err
		}
	}
	return emit(bld.NewRecordBatch())
}

// Pending returns the number of windows holding state.
func (a *Aggregate) Pending() int { return len(a.panes) }

// paneValues are a slice's values of one DISTINCT aggregate in key order:
// group g's are the table entries addrs[off[g]:off[g+1]], by value.
type paneValues struct {
	off   []int32
	addrs []uint64
}

// valueOrder caches pane p's DISTINCT values in key order (the seen
// tables' keys are group number then value, so a sorted walk gives each
// group's values in order), charging the budget for them.
func (a *Aggregate) valueOrder(p *pane) error {
	if p.values != nil {
		if p.valuesGroups == p.len() {
			return nil
		}
		a.forgetValues(p)
	}
	values := make([]paneValues, len(p.seen))
	charged := 0
	for i, seen := range p.seen {
		if seen == nil {
			continue
		}
		n := 4*(p.len()+1) + 8*seen.Len()
		if err := a.mem.Reserve(n); err != nil {
			a.mem.Unreserve(charged)
			return err
		}
		charged += n
		it, err := seen.Sorted(nil)
		if err != nil {
			a.mem.Unreserve(charged)
			return err
		}
		pv := paneValues{off: make([]int32, p.len()+1), addrs: make([]uint64, 0, seen.Len())}
		for it.Next() {
			pv.off[binary.BigEndian.Uint32(it.Key())+1]++
			pv.addrs = append(pv.addrs, it.Addr())
		}
		it.Close()
		for g := range p.len() {
			pv.off[g+1] += pv.off[g]
		}
		values[i] = pv
	}
	p.values, p.valuesBytes, p.valuesGroups = values, charged, p.len()
	return nil
}

// forgetValues drops p's cache of DISTINCT values, which changed.
func (a *Aggregate) forgetValues(p *pane) {
	if p.values != nil {
		a.mem.Unreserve(p.valuesBytes)
		p.values, p.valuesBytes = nil, 0
	}
}
