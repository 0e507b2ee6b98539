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
	// groupBytes is what a group's column slots take.
	groupBytes int

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
	// flushes numbers the entries Flush writes; drops are the parts whose
	// older entries the last Flush deleted (Flushed forgets them);
	// flush is Flush's scratch, loading Load's (state.go).
	flushes uint64
	drops   []drop
	flush   flushScratch
	loading loading

	spill spill

	// merged and cursors are fireMerged's, kept across windows.
	merged  *merge
	cursors []cursor

	// Scratch reused across batches.
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
	// addrs[g] is group g's entry, which holds its key.
	groups *memseg.HashTable
	addrs  []uint64
	accs   []agg.Acc
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
	// cap is the groups the columns have room for; charged the bytes of
	// the budget the columns and the accumulators' heap values hold.
	cap, charged int

	// Checkpoint bookkeeping (state.go): groups changed since the last
	// Flush, each group's key group (filled by Flush), per key group what
	// the state store holds of the window, and per DISTINCT aggregate the
	// position in seen up to which the store holds its values.
	dirty     []bool
	dirtyList []int32
	kgs       []uint16
	parts     []part
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
	a.groupBytes = 8 + 1 + 2 + 4 // addrs, dirty, kgs, part members
	for _, ag := range spec.Aggs {
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = spec.In[ag.Arg].Type
		}
		ac, err := agg.New(ag, in)
		if err != nil {
			return nil, err
		}
		a.groupBytes += ac.Size()
	}
	var kt []arrow.DataType
	for _, k := range spec.Keys {
		t := spec.In[k].Type.Arrow()
		if _, err := memseg.TypeOf(t); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", spec.In[k].Name, err)
		}
		kt = append(kt, t)
	}
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
	a.panes = map[int64]*pane{}
}

func (a *Aggregate) newAccs() []agg.Acc {
	accs := make([]agg.Acc, len(a.spec.Aggs))
	for i, ag := range a.spec.Aggs {
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = a.spec.In[ag.Arg].Type
		}
		accs[i], _ = agg.New(ag, in) // New checked every aggregate
	}
	return accs
}

func (a *Aggregate) newPane(start int64) *pane {
	p := &pane{start: start, groups: memseg.NewHashTable(a.mem, 4), accs: a.newAccs()}
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
	p.groups.Reset()
	for _, s := range p.seen {
		if s != nil {
			s.Reset()
		}
	}
	a.mem.Unreserve(p.charged + p.valuesBytes)
	p.values, p.valuesBytes = nil, 0
	p.accs = a.newAccs()
	p.addrs, p.dirty, p.dirtyList, p.kgs, p.order, p.keys, p.marks = nil, nil, nil, nil, nil, nil, nil
	for i := range p.parts {
		p.parts[i].members = nil
	}
	p.cap, p.charged = 0, 0
}

// Add folds a batch into the windows its rows belong to. It returns the
// number of rows dropped as late (their window has fired already) or with
// a NULL event time.
func (a *Aggregate) Add(b arrow.RecordBatch) (dropped int64, err error) {
	ts := b.Column(a.spec.TimeCol).(*array.Timestamp)
	tv := ts.TimestampValues()
	if err := a.enc.Reset(b, a.spec.Keys); err != nil {
		return 0, err
	}
	// Most batches fall into one window; rows are grouped by window start
	// so each pane sees one contiguous update.
	a.starts = a.starts[:0]
	n := int(b.NumRows())
	if s, ok := a.oneWindow(ts); ok {
		// The whole batch is in window s: no per-row window arithmetic.
		if a.fires(s) <= a.wm {
			return int64(n), nil
		}
		a.rows = a.rows[:0]
		for i := 0; i < n; i++ {
			a.rows = append(a.rows, int32(i))
		}
		return 0, a.addTo(s, b)
	}
	for i := 0; i < n; i++ {
		if ts.IsNull(i) {
			dropped++
			continue
		}
		s := a.paneOf(int64(tv[i]))
		if a.fires(s) <= a.wm {
			dropped++
			continue
		}
		if !slices.Contains(a.starts, s) {
			a.starts = append(a.starts, s)
		}
	}
	for _, s := range a.starts {
		a.rows = a.rows[:0]
		for i := 0; i < n; i++ {
			if ts.IsValid(i) && a.paneOf(int64(tv[i])) == s {
				a.rows = append(a.rows, int32(i))
			}
		}
		if err := a.addTo(s, b); err != nil {
			return dropped, err
		}
	}
	return dropped, nil
}

// oneWindow reports whether every row of ts is in one window, and which:
// no NULLs, and the least and greatest times share a window start.
func (a *Aggregate) oneWindow(ts *array.Timestamp) (int64, bool) {
	tv := ts.TimestampValues()
	if ts.NullN() > 0 || len(tv) == 0 {
		return 0, false
	}
	lo, hi := tv[0], tv[0]
	for _, v := range tv[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
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
	n := int(b.NumRows())
	s := a.spec.Window.Start(now)
	if a.spec.Window.Fires(s) <= a.wm {
		return int64(n), nil
	}
	if err := a.enc.Reset(b, a.spec.Keys); err != nil {
		return 0, err
	}
	a.rows = a.rows[:0]
	for i := 0; i < n; i++ {
		a.rows = append(a.rows, int32(i))
	}
	return 0, a.addTo(s, b)
}

// addTo folds the rows in a.rows of b into the window starting at s,
// spilling every window's state whenever the budget runs out.
func (a *Aggregate) addTo(s int64, b arrow.RecordBatch) error {
	rows := a.rows
	for len(rows) > 0 {
		p := a.pane(s)
		empty := a.empty()
		done, err := a.fold(p, b, rows)
		if err != nil {
			return err
		}
		rows = rows[done:]
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
		if len(p.addrs) > 0 {
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

// fold folds rows of b into pane p. It returns how many of the rows,
// from the first, it folded: fewer than all when the budget cannot take
// their groups or DISTINCT values.
func (a *Aggregate) fold(p *pane, b arrow.RecordBatch, rows []int32) (int, error) {
	n, err := a.lookup(p, b, rows)
	if err != nil {
		return 0, err
	}
	rows, groups := rows[:n], a.groups[:n]
	if a.track {
		for _, g := range groups {
			if !p.dirty[g] {
				p.dirty[g] = true
				p.dirtyList = append(p.dirtyList, g)
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

// lookup sets a.groups to the group of each of rows, making groups for
// new keys, and for each DISTINCT aggregate sets a.dRows and a.dGroups to
// the rows whose value is new to their group, marking it seen. It returns
// how many rows, from the first, it did that for: fewer than all when the
// budget cannot take a row's group or DISTINCT values. The row it stopped
// at may have left its group or some values behind, as if it had no
// rows: a spill follows, and the row comes back after it.
func (a *Aggregate) lookup(p *pane, b arrow.RecordBatch, rows []int32) (int, error) {
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
		if g, ok = a.group(p); !ok {
			return 0, nil
		}
		for range rows {
			a.groups = append(a.groups, g)
		}
		return len(rows), nil
	}
	if ints := a.intKey(b); ints != nil {
		// One BIGINT key without NULLs: compared by value, encoded
		// without a call per row.
		var prev int64
		for i, r := range rows {
			if v := ints[r]; g < 0 || v != prev {
				a.key = memseg.AppendInt64(a.key[:0], v, memseg.Order{})
				if g, ok = a.group(p); !ok {
					return i, nil
				}
				prev = v
			}
			if distinct && !a.distinct(p, b, r, g) {
				return i, nil
			}
			a.groups = append(a.groups, g)
		}
		return len(rows), nil
	}
	for i, r := range rows {
		a.key = a.enc.Append(a.key[:0], int(r))
		if g < 0 || !bytes.Equal(a.key, a.prev) {
			if g, ok = a.group(p); !ok {
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

// intKey returns the values of b's key column when it is the only one, a
// BIGINT, and has no NULLs.
func (a *Aggregate) intKey(b arrow.RecordBatch) []int64 {
	if len(a.spec.Keys) != 1 {
		return nil
	}
	if c, ok := b.Column(a.spec.Keys[0]).(*array.Int64); ok && c.NullN() == 0 {
		return c.Int64Values()
	}
	return nil
}

// group returns the group of key a.key in pane p, made if new; false if
// the budget has no room for it.
func (a *Aggregate) group(p *pane) (int32, bool) {
	if len(p.addrs) == p.cap && a.grow(p) != nil {
		return 0, false
	}
	addr, acc, inserted, err := p.groups.Insert(a.key, memseg.Hash(a.key))
	if err != nil {
		return 0, false
	}
	if !inserted {
		return int32(binary.LittleEndian.Uint32(acc)), true
	}
	g := int32(len(p.addrs))
	binary.LittleEndian.PutUint32(acc, uint32(g))
	p.addrs = append(p.addrs, addr)
	p.order, p.keys = nil, nil
	a.forgetValues(p)
	return g, true
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
	if err := a.chargeFor(p, n); err != nil {
		// As many groups as the budget has room for, up to 16.
		free := (a.mem.Budget() - a.mem.Used()) / int64(a.groupBytes)
		n = p.cap + int(max(1, min(16, free)))
		if err := a.chargeFor(p, n); err != nil {
			return err
		}
	}
	p.cap = n
	p.addrs = slices.Grow(p.addrs, n-len(p.addrs))
	for _, ac := range p.accs {
		ac.Grow(n)
	}
	if a.track {
		p.dirty = agg.Grow(p.dirty, n)
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
		a.free(p)
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
		a.free(p)
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
		if err := a.emit(ws, we, p.accs, chunk, func(i int) []byte { return p.groups.KeyAt(p.addrs[chunk[i]]) }, emit); err != nil {
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

// keyOrder returns p's group numbers in key order: a radix sort of key
// prefixes in managed memory, or on the heap if that has no room.
func (a *Aggregate) keyOrder(p *pane) []int32 {
	order := a.order[:0]
	if it, err := p.groups.Sorted(nil); err == nil {
		for it.Next() {
			order = append(order, int32(binary.LittleEndian.Uint32(it.Acc())))
		}
		it.Close()
	} else {
		for g := range p.addrs {
			order = append(order, int32(g))
		}
		slices.SortFunc(order, func(x, y int32) int {
			return bytes.Compare(p.groups.KeyAt(p.addrs[x]), p.groups.KeyAt(p.addrs[y]))
		})
	}
	a.order = order
	return order
}

// emit builds and emits one output batch of window [ws, we): the groups
// chunk of accs, whose keys key returns.
func (a *Aggregate) emit(ws, we int64, accs []agg.Acc, chunk []int32, key func(i int) []byte, emit func(arrow.RecordBatch) error) error {
	bld := array.NewRecordBuilder(a.alloc, a.schema)
	defer bld.Release()
	nk := len(a.spec.Keys)
	kb := make([]array.Builder, nk)
	for i := range kb {
		kb[i] = bld.Field(i)
	}
	for i := range chunk {
		if _, err := a.keys.decode(kb, key(i)); err != nil {
			return err
		}
	}
	sb, eb := bld.Field(nk).(*array.TimestampBuilder), bld.Field(nk+1).(*array.TimestampBuilder)
	for range chunk {
		sb.Append(arrow.Timestamp(ws))
		eb.Append(arrow.Timestamp(we))
	}
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
		return nil
	}
	values := make([]paneValues, len(p.seen))
	charged := 0
	for i, seen := range p.seen {
		if seen == nil {
			continue
		}
		n := 4*(len(p.addrs)+1) + 8*seen.Len()
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
		pv := paneValues{off: make([]int32, len(p.addrs)+1), addrs: make([]uint64, 0, seen.Len())}
		for it.Next() {
			pv.off[binary.BigEndian.Uint32(it.Key())+1]++
			pv.addrs = append(pv.addrs, it.Addr())
		}
		it.Close()
		for g := range p.addrs {
			pv.off[g+1] += pv.off[g]
		}
		values[i] = pv
	}
	p.values, p.valuesBytes = values, charged
	return nil
}

// forgetValues drops p's cache of DISTINCT values, which changed.
func (a *Aggregate) forgetValues(p *pane) {
	if p.values != nil {
		a.mem.Unreserve(p.valuesBytes)
		p.values, p.valuesBytes = nil, 0
	}
}
