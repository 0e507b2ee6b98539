package window

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// Spec describes a window aggregate.
type Spec struct {
	Window Tumble
	// In is the input schema.
	In types.Schema
	// TimeCol is the event-time column the window is assigned by, or -1
	// when rows are assigned by processing time (AddAt).
	TimeCol int
	// Keys are the grouping columns besides the window.
	Keys []int
	Aggs []Agg
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

// Aggregate is a tumbling-window aggregate. It is driven by one goroutine.
type Aggregate struct {
	spec   Spec
	alloc  memory.Allocator
	schema *arrow.Schema
	panes  map[int64]*pane
	wm     int64
	// intKey is set when the only key is a BIGINT column: groups are then
	// found by value (pane.ints), and by encoded key only for NULL.
	intKey bool
	// track is set when the aggregate checkpoints: it then remembers what
	// changed since the last Flush. fired are the windows fired since the
	// last Flush, whose stored state Flush deletes.
	track bool
	fired []*pane
	part  []byte // Flush's encoding buffer

	// sorted orders a firing window's groups by key: a radix sort of key
	// prefixes in managed memory (nil without a memory manager).
	sorted *memseg.SortBuffer
	order  []int32

	// Scratch reused across batches.
	enc         memseg.KeyEncoder
	distinctEnc memseg.KeyEncoder
	key         []byte
	rows        []int32
	groups      []int32
	fRows       []int32
	fGroups     []int32
	starts      []int64
}

// pane is the state of one window: its groups' keys and accumulators.
type pane struct {
	start int64
	index map[string]int32
	// ints indexes the non-NULL groups by value when the only key is a
	// BIGINT (Aggregate.intKey): a lookup without hashing and comparing
	// key bytes. It covers p.keys[:indexed]; groups restored from a
	// checkpoint (Load fills index) are added before the next lookup.
	ints    map[int64]int32
	indexed int
	keys    [][]byte // encoded key per group, for ordering
	vals    []acc    // key columns, kept as "first value" accumulators
	accs    []acc
	seen    []map[string]struct{} // per DISTINCT aggregate: group+value seen

	// Checkpoint bookkeeping: groups changed since the last Flush, each
	// group's key group (filled by Flush), and the key groups whose part
	// of the window the state store holds.
	dirty     []bool
	dirtyList []int32
	kgs       []uint16
	stored    map[uint16]bool
}

// New returns an empty aggregate.
func New(spec Spec, alloc memory.Allocator) (*Aggregate, error) {
	if spec.Window.Size <= 0 {
		return nil, fmt.Errorf("window size must be positive, got %d ms", spec.Window.Size)
	}
	if spec.BatchSize <= 0 {
		spec.BatchSize = 4096
	}
	for _, a := range spec.Aggs {
		if a.Kind != CountStar {
			if _, err := newAcc(a, spec.In[a.Arg].Type); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range spec.Keys {
		if _, err := newExtreme(spec.In[k].Type, false); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", spec.In[k].Name, err)
		}
	}
	intKey := len(spec.Keys) == 1 && spec.In[spec.Keys[0]].Type.Kind == types.BigInt
	return &Aggregate{spec: spec, alloc: alloc, schema: spec.Out().Arrow(), panes: map[int64]*pane{}, wm: types.MinWatermark, intKey: intKey}, nil
}

func (a *Aggregate) newPane(start int64) *pane {
	p := &pane{start: start, index: map[string]int32{}}
	if a.intKey {
		p.ints = map[int64]int32{}
	}
	for _, k := range a.spec.Keys {
		v, _ := newExtreme(a.spec.In[k].Type, false)
		p.vals = append(p.vals, v)
	}
	for _, ag := range a.spec.Aggs {
		var ac acc
		if ag.Kind == CountStar {
			ac = &countAcc{}
		} else {
			ac, _ = newAcc(ag, a.spec.In[ag.Arg].Type)
		}
		p.accs = append(p.accs, ac)
		if ag.Distinct {
			p.seen = append(p.seen, map[string]struct{}{})
		} else {
			p.seen = append(p.seen, nil)
		}
	}
	return p
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
		if s+a.spec.Window.Size-1 <= a.wm {
			return int64(n), nil
		}
		a.rows = a.rows[:0]
		for i := 0; i < n; i++ {
			a.rows = append(a.rows, int32(i))
		}
		return 0, a.addTo(a.pane(s), b)
	}
	for i := 0; i < n; i++ {
		if ts.IsNull(i) {
			dropped++
			continue
		}
		s := a.spec.Window.Start(int64(tv[i]))
		if s+a.spec.Window.Size-1 <= a.wm {
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
			if ts.IsValid(i) && a.spec.Window.Start(int64(tv[i])) == s {
				a.rows = append(a.rows, int32(i))
			}
		}
		if err := a.addTo(a.pane(s), b); err != nil {
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
	s := a.spec.Window.Start(int64(lo))
	return s, a.spec.Window.Start(int64(hi)) == s
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
	if s+a.spec.Window.Size-1 <= a.wm {
		return int64(n), nil
	}
	if err := a.enc.Reset(b, a.spec.Keys); err != nil {
		return 0, err
	}
	a.rows = a.rows[:0]
	for i := 0; i < n; i++ {
		a.rows = append(a.rows, int32(i))
	}
	return 0, a.addTo(a.pane(s), b)
}

// lookup sets a.groups to the group of each row in a.rows of b, making
// groups for new keys, and returns the rows and groups it made.
func (a *Aggregate) lookup(p *pane, b arrow.RecordBatch) (newRows, newGroups []int32) {
	a.groups = a.groups[:0]
	if len(a.spec.Keys) == 0 && len(a.rows) > 0 {
		// One group per window.
		g, ok := int32(0), len(p.keys) > 0
		if !ok {
			g = a.newGroup(p, 0)
			p.index[""] = g
			newRows, newGroups = append(newRows, a.rows[0]), append(newGroups, g)
		}
		for range a.rows {
			a.groups = append(a.groups, g)
		}
		return newRows, newGroups
	}
	var ints *array.Int64
	if a.intKey {
		ints = b.Column(a.spec.Keys[0]).(*array.Int64)
		a.indexInts(p)
	}
	// Skewed keys often repeat the previous row's (a window without keys
	// always does): no map lookup then. gi and prev are the previous
	// BIGINT row's group and value, gs the previous other row's group.
	gi, gs, prev := int32(-1), int32(-1), int64(0)
	for _, r := range a.rows {
		if ints != nil && ints.IsValid(int(r)) {
			if v := ints.Value(int(r)); gi < 0 || v != prev {
				var ok bool
				if gi, ok = p.ints[v]; !ok {
					gi = a.newGroup(p, int(r))
					p.ints[v] = gi
					p.indexed++
					newRows, newGroups = append(newRows, r), append(newGroups, gi)
				}
				prev = v
			}
			a.groups = append(a.groups, gi)
			continue
		}
		a.key = a.enc.Append(a.key[:0], int(r))
		if gs < 0 || !bytes.Equal(a.key, p.keys[gs]) {
			var ok bool
			if gs, ok = p.index[string(a.key)]; !ok {
				gs = a.newGroup(p, int(r))
				p.index[string(p.keys[gs])] = gs
				if a.intKey {
					p.indexed++
				}
				newRows, newGroups = append(newRows, r), append(newGroups, gs)
			}
		}
		a.groups = append(a.groups, gs)
	}
	return newRows, newGroups
}

// newGroup adds row r's key to pane p as a new group.
func (a *Aggregate) newGroup(p *pane, r int) int32 {
	a.key = a.enc.Append(a.key[:0], r)
	p.keys = append(p.keys, bytes.Clone(a.key))
	return int32(len(p.keys) - 1)
}

// indexInts adds to p.ints the groups made without it: those restored
// from a checkpoint.
func (a *Aggregate) indexInts(p *pane) {
	for ; p.indexed < len(p.keys); p.indexed++ {
		v, null, _, err := memseg.DecodeInt64(p.keys[p.indexed], memseg.Order{})
		if err == nil && !null {
			p.ints[v] = int32(p.indexed)
		}
	}
}

// addTo folds the rows in a.rows of b into pane p.
func (a *Aggregate) addTo(p *pane, b arrow.RecordBatch) error {
	newRows, newGroups := a.lookup(p, b)
	if len(newRows) > 0 {
		ng := len(p.keys)
		p.dirty = growTo(p.dirty, ng)
		for i, v := range p.vals {
			v.grow(ng)
			v.update(b.Column(a.spec.Keys[i]), newRows, newGroups)
		}
		for _, ac := range p.accs {
			ac.grow(ng)
		}
	}
	for _, g := range a.groups {
		if a.track && !p.dirty[g] {
			p.dirty[g] = true
			p.dirtyList = append(p.dirtyList, g)
		}
	}
	for i, ag := range a.spec.Aggs {
		rows, groups := a.rows, a.groups
		if ag.Filter >= 0 {
			rows, groups = a.filter(b.Column(ag.Filter).(*array.Boolean), rows, groups)
		}
		var col arrow.Array
		if ag.Kind != CountStar {
			col = b.Column(ag.Arg)
		}
		if ag.Distinct {
			var err error
			if rows, groups, err = a.distinct(p, i, col, rows, groups); err != nil {
				return err
			}
		}
		p.accs[i].update(col, rows, groups)
	}
	return nil
}

// filter keeps the rows whose FILTER column is TRUE.
func (a *Aggregate) filter(f *array.Boolean, rows, groups []int32) ([]int32, []int32) {
	a.fRows, a.fGroups = a.fRows[:0], a.fGroups[:0]
	for i, r := range rows {
		if f.IsValid(int(r)) && f.Value(int(r)) {
			a.fRows = append(a.fRows, r)
			a.fGroups = append(a.fGroups, groups[i])
		}
	}
	return a.fRows, a.fGroups
}

// distinct keeps the first row of each (group, value) not seen before.
// NULL arguments are skipped: aggregates ignore them anyway.
func (a *Aggregate) distinct(p *pane, agg int, col arrow.Array, rows, groups []int32) ([]int32, []int32, error) {
	seen := p.seen[agg]
	if err := a.distinctEnc.ResetArrays(col); err != nil {
		return nil, nil, err
	}
	var outRows, outGroups []int32
	for i, r := range rows {
		if col.IsNull(int(r)) {
			continue
		}
		k := memseg.AppendInt64(a.key[:0], int64(groups[i]), memseg.Order{})
		k = a.distinctEnc.Append(k, int(r))
		a.key = k
		if _, ok := seen[string(k)]; ok {
			continue
		}
		seen[string(k)] = struct{}{}
		outRows = append(outRows, r)
		outGroups = append(outGroups, groups[i])
	}
	return outRows, outGroups, nil
}

// Advance moves the watermark to wm and emits every window that fires, in
// window order, each in key order, in batches of at most BatchSize rows.
func (a *Aggregate) Advance(wm int64, emit func(arrow.RecordBatch) error) error {
	if wm <= a.wm {
		return nil
	}
	a.wm = wm
	var due []int64
	for s := range a.panes {
		if s+a.spec.Window.Size-1 <= wm {
			due = append(due, s)
		}
	}
	slices.Sort(due)
	for _, s := range due {
		p := a.panes[s]
		delete(a.panes, s)
		if a.track {
			a.fired = append(a.fired, p)
		}
		if err := a.fire(p, emit); err != nil {
			return err
		}
	}
	return nil
}

// UseMemory lets the aggregate sort firing windows in segments of m.
func (a *Aggregate) UseMemory(m *memseg.Manager) error {
	sb, err := memseg.NewSortBuffer(m, nil)
	if err != nil {
		return err
	}
	a.sorted = sb
	return nil
}

// Release gives the aggregate's managed memory back.
func (a *Aggregate) Release() {
	if a.sorted != nil {
		a.sorted.Release()
	}
}

// keyOrder returns p's groups in key order.
func (a *Aggregate) keyOrder(p *pane) []int32 {
	order := a.order[:0]
	if a.sorted != nil {
		a.sorted.Reset()
		var g [4]byte
		ok := true
		for i, k := range p.keys {
			binary.LittleEndian.PutUint32(g[:], uint32(i))
			if a.sorted.Add(k, g[:]) != nil {
				ok = false // out of managed memory: sort on the heap
				break
			}
		}
		if ok {
			a.sorted.Sort()
			for it := a.sorted.Iter(); it.Next(); {
				order = append(order, int32(binary.LittleEndian.Uint32(it.Value())))
			}
			a.sorted.Reset()
			a.order = order
			return order
		}
		a.sorted.Reset()
	}
	for i := range p.keys {
		order = append(order, int32(i))
	}
	sort.Slice(order, func(i, j int) bool { return bytes.Compare(p.keys[order[i]], p.keys[order[j]]) < 0 })
	a.order = order
	return order
}

func (a *Aggregate) fire(p *pane, emit func(arrow.RecordBatch) error) error {
	order := a.keyOrder(p)
	for lo := 0; lo < len(order); lo += a.spec.BatchSize {
		chunk := order[lo:min(lo+a.spec.BatchSize, len(order))]
		bld := array.NewRecordBuilder(a.alloc, a.schema)
		col := 0
		for _, v := range p.vals {
			v.appendTo(bld.Field(col), chunk)
			col++
		}
		ws, we := bld.Field(col).(*array.TimestampBuilder), bld.Field(col+1).(*array.TimestampBuilder)
		for range chunk {
			ws.Append(arrow.Timestamp(p.start))
			we.Append(arrow.Timestamp(p.start + a.spec.Window.Size))
		}
		col += 2
		for _, ac := range p.accs {
			ac.appendTo(bld.Field(col), chunk)
			col++
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

// Pending returns the number of windows holding state.
func (a *Aggregate) Pending() int { return len(a.panes) }
