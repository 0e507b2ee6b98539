package window

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// sessionFires is the lateness rule of session windows (Assigner.Fires):
// a row of time ts is late once the watermark has passed ts, that is when
// ts < watermark. A session fires when the watermark passes its end
// (watermark > end), so a session that has fired ends before every row
// that is not late, and such a row can neither join nor touch it: what
// fires is final whatever order rows and watermarks arrive in.
func sessionFires(ts int64) int64 { return ts + 1 }

// Sessions is a session window aggregate (Spec.Window.Kind Session, the gap
// in Window.Size). It is driven by one goroutine.
//
// Per key (the grouping columns), a row of time ts opens the session [ts,
// ts+gap); sessions of a key that overlap or touch (one ends where the
// other starts, as Flink's TimeWindow.intersects) merge into one, their
// accumulators merged. A session [start, end) fires when the watermark
// passes end, and is emitted with its key, start and end and its
// aggregates.
//
// Layout: a memseg.HashTable maps a key's normalized key to a key number;
// each key number heads a list of its sessions in start order (they never
// overlap, so also in end order). A session is a slot in typed columns
// (start, end, next, owner, generation) and in the accumulators (agg.Acc,
// one slot per session); a DISTINCT aggregate also keeps the session's
// values (session_distinct.go). A batch is folded in two passes: the first
// places each row in its session, merging sessions as rows bridge them;
// the second folds the merged sessions' earlier state into the sessions
// that took them in and then updates the accumulators a column at a time,
// each row into the session its own merged into.
//
// Firing: a min-heap of timers (session_timer.go) orders the sessions by
// end, so that a watermark visits the sessions that end before it and
// none of the others. Memory: the columns, the heap and the tables'
// segments are charged to the memory budget; when it runs out every key's
// sessions move to the state store (session_spill.go), whence a key comes
// back when a row of it arrives, and a session fires straight from the
// store when its end is passed.
type Sessions struct {
	spec   Spec
	gap    int64
	alloc  memory.Allocator
	schema *arrow.Schema
	mem    *memseg.Manager
	keys   *keyDecoder
	wm     int64

	// table maps keys to key numbers (4 bytes, little-endian); per key
	// number, addrs is its entry and head its first session or -1.
	table *memseg.HashTable
	addrs []uint64
	head  []int32
	// dirty and stored are per key number: its sessions changed since the
	// last Flush, and the state store holds an entry of it.
	dirty     []bool
	stored    []bool
	dirtyList []int32
	dead      int // keys without sessions

	// Per session slot. gen counts the slot's reuses: a timer names the
	// session of its slot and generation.
	start, end []int64
	next       []int32
	owner      []int32
	fwd        []int32 // during Add: the session a merged one went into, or -1
	gen        []uint32
	accs       []agg.Acc
	free       []int32
	cap        int // slots the columns have room for
	keyCap     int
	charged    int

	// timers holds one live entry per session, by end (session_timer.go);
	// timersCharged is what its room is charged.
	timers        []timer
	timersCharged int
	// dist is per aggregate: its DISTINCT values, nil if it is not one.
	dist     []*distinct
	distinct bool

	track bool
	spill sessionSpill

	// Scratch reused across batches.
	enc       memseg.KeyEncoder
	key, prev []byte
	rows      []int32
	slots     []int32
	fRows     []int32
	fSlots    []int32
	dRows     [][]int32 // per DISTINCT aggregate: rows whose value is new
	dSlots    [][]int32
	merges    [][2]int32
	fired     []int32
	part      []byte
	out       *sessionOut
}

// Per key number and per session slot, the bytes the columns take.
const (
	sessionKeyBytes  = 8 + 4 + 1 + 1
	sessionSlotBytes = 8 + 8 + 4 + 4 + 4 + 4
)

// NewSessions returns an empty session aggregate. It takes its memory from
// a manager of the default budget until UseMemory gives it another.
func NewSessions(spec Spec, alloc memory.Allocator) (*Sessions, error) {
	if spec.Window.Kind != Session || spec.Window.Size <= 0 {
		return nil, fmt.Errorf("session gap must be positive, got %d ms", spec.Window.Size)
	}
	if spec.TimeCol < 0 || spec.ByEnd {
		return nil, fmt.Errorf("session windows are event-time windows over their input's rows")
	}
	if spec.BatchSize <= 0 {
		spec.BatchSize = 4096
	}
	s := &Sessions{spec: spec, gap: spec.Window.Size, alloc: alloc, schema: spec.Out().Arrow(), wm: types.MinWatermark}
	var kt []arrow.DataType
	for _, k := range spec.Keys {
		t := spec.In[k].Type.Arrow()
		if _, err := memseg.TypeOf(t); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", spec.In[k].Name, err)
		}
		kt = append(kt, t)
	}
	var err error
	if s.accs, err = s.newAccs(); err != nil {
		return nil, err
	}
	if s.keys, err = newKeyDecoder(kt); err != nil {
		return nil, err
	}
	if s.mem, err = memseg.NewManager(memseg.DefaultBudget, memseg.DefaultSegmentSize); err != nil {
		return nil, err
	}
	s.dist = make([]*distinct, len(spec.Aggs))
	s.dRows, s.dSlots = make([][]int32, len(spec.Aggs)), make([][]int32, len(spec.Aggs))
	for i, ag := range spec.Aggs {
		if ag.Distinct {
			if s.dist[i], err = newDistinct(s.mem, spec.In[ag.Arg].Type.Arrow(), alloc); err != nil {
				return nil, err
			}
			s.distinct = true
		}
	}
	s.table = memseg.NewHashTable(s.mem, 4)
	s.spill.reset()
	return s, nil
}

// newAccs returns an accumulator per aggregate, without slots.
func (s *Sessions) newAccs() ([]agg.Acc, error) {
	accs := make([]agg.Acc, len(s.spec.Aggs))
	for i, ag := range s.spec.Aggs {
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = s.spec.In[ag.Arg].Type
		}
		ac, err := agg.New(ag, in)
		if err != nil {
			return nil, err
		}
		accs[i] = ac
	}
	return accs, nil
}

// UseMemory makes the aggregate keep its state in m's budget. It must be
// called before the first Add.
func (s *Sessions) UseMemory(m *memseg.Manager) {
	s.table.Release()
	s.mem = m
	s.table = memseg.NewHashTable(m, 4)
	for _, d := range s.dist {
		if d != nil {
			d.use(m)
		}
	}
}

// Release gives the aggregate's managed memory back. The aggregate must
// not be used afterwards.
func (s *Sessions) Release() {
	s.table.Release()
	for _, d := range s.dist {
		if d != nil {
			d.values.Release()
		}
	}
	s.mem.Unreserve(s.charged)
	s.charged = 0
}

// Pending returns the number of sessions in memory.
func (s *Sessions) Pending() int { return len(s.start) - len(s.free) }

// Add folds a batch into the sessions of its rows' keys. It returns the
// number of rows dropped as late (their time is before the watermark) or
// with a NULL event time. When the memory budget runs out, the rows placed
// so far are folded, every key's sessions are spilled, and the batch goes
// on.
func (s *Sessions) Add(b arrow.RecordBatch) (dropped int64, err error) {
	if err := s.enc.Reset(b, s.spec.Keys); err != nil {
		return 0, err
	}
	for i, d := range s.dist {
		if d != nil {
			if err := d.enc.ResetArrays(b.Column(s.spec.Aggs[i].Arg)); err != nil {
				return 0, err
			}
		}
	}
	n := int(b.NumRows())
	// A chunk of rows is placed, then folded. One that fails at its
	// first row had its rows placed take the memory its first row's
	// DISTINCT values needed: the next tries one row, then twice as many.
	limit := n
	for from := 0; from < n; {
		empty := s.table.Len() == 0
		to := min(n, from+limit)
		stop, late, err := s.placeRows(b, from, to)
		dropped += late
		if err != nil && !errors.Is(err, memseg.ErrNoMemory) {
			return dropped, err
		}
		full := err != nil
		if done := s.fold(b); done < len(s.rows) {
			stop, full = int(s.rows[done]), true
		}
		over := s.chargeHeap() != nil
		switch {
		case !full && !over:
			from, limit = to, min(n, 2*limit)
			continue
		case full && stop == from && empty && limit == 1:
			// The row's key and its sessions do not fit in memory alone:
			// the row goes into the key's entry in the store.
			if err := s.spillAll(); err != nil {
				return dropped, err
			}
			if err := s.placeAlone(b, from); err != nil {
				return dropped, err
			}
			from++
			continue
		case full && stop == from:
			limit = 1
		}
		if err := s.spillAll(); err != nil {
			return dropped, err
		}
		if full {
			from = stop
		} else {
			from = to
		}
	}
	return dropped, s.spill.commit()
}

// placeRows places rows from..to-1 in their sessions (place), recording
// in s.rows and s.slots the rows and the sessions they went to. It stops
// at the first row whose key or session does not fit in memory and
// returns its index (to when all fit) with ErrNoMemory.
func (s *Sessions) placeRows(b arrow.RecordBatch, from, to int) (stop int, dropped int64, err error) {
	ts := b.Column(s.spec.TimeCol).(*array.Timestamp)
	tv := ts.TimestampValues()
	s.rows, s.slots, s.merges = s.rows[:0], s.slots[:0], s.merges[:0]
	k, hasKey := int32(-1), false
	// One BIGINT key without NULLs is compared by value and encoded
	// without a call per row.
	ints := s.intKey(b)
	var prevInt int64
	for i := from; i < to; i++ {
		t := int64(tv[i])
		if ts.IsNull(i) || t < s.wm {
			dropped++
			continue
		}
		// Skewed keys often repeat the previous row's: no hashing then.
		switch {
		case ints != nil:
			if v := ints[i]; !hasKey || v != prevInt {
				s.key = memseg.AppendInt64(s.key[:0], v, memseg.Order{})
				if k, err = s.keyOf(s.key); err != nil {
					return i, dropped, err
				}
				prevInt, hasKey = v, true
			}
		default:
			s.key = s.enc.Append(s.key[:0], i)
			if !hasKey || !bytes.Equal(s.key, s.prev) {
				if k, err = s.keyOf(s.key); err != nil {
					return i, dropped, err
				}
				s.key, s.prev, hasKey = s.prev, s.key, true
			}
		}
		slot, err := s.place(k, t)
		if err != nil {
			return i, dropped, err
		}
		s.rows = append(s.rows, int32(i))
		s.slots = append(s.slots, slot)
	}
	return to, dropped, nil
}

// fold applies what placeRows recorded: the merged sessions' state goes
// into the sessions that took them in, then every row's values into its
// session. It returns how many of s.rows it folded: fewer than all when a
// DISTINCT value did not fit in memory, at the row it stopped at, which
// left nothing behind.
func (s *Sessions) fold(b arrow.RecordBatch) int {
	for j, sl := range s.slots {
		s.slots[j] = s.root(sl)
	}
	for _, m := range s.merges {
		s.mergeInto(s.root(m[0]), m[1])
	}
	for _, m := range s.merges {
		s.release(m[1])
	}
	s.merges = s.merges[:0]
	n := len(s.rows)
	if s.distinct {
		n = s.distinctRows(b)
	}
	rows, slots := s.rows[:n], s.slots[:n]
	for i, ag := range s.spec.Aggs {
		var col arrow.Array
		if ag.Kind != agg.CountStar {
			col = b.Column(ag.Arg)
		}
		if s.dist[i] != nil {
			s.accs[i].Update(col, s.dRows[i], s.dSlots[i])
			continue
		}
		rs, ss := s.filtered(ag, b, rows, slots)
		s.accs[i].Update(col, rs, ss)
	}
	return n
}

// mergeInto folds session from's state into session into's.
func (s *Sessions) mergeInto(into, from int32) {
	for i, ac := range s.accs {
		if d := s.dist[i]; d != nil {
			d.merge(ac, into, from)
			continue
		}
		ac.Merge(into, from)
	}
}

// intKey returns the values of b's key column when it is the only one, a
// BIGINT, and has no NULLs.
func (s *Sessions) intKey(b arrow.RecordBatch) []int64 {
	if len(s.spec.Keys) != 1 {
		return nil
	}
	if c, ok := b.Column(s.spec.Keys[0]).(*array.Int64); ok && c.NullN() == 0 {
		return c.Int64Values()
	}
	return nil
}

// filtered returns the rows and slots of rows whose FILTER column is TRUE:
// all of them without a FILTER.
func (s *Sessions) filtered(ag agg.Call, b arrow.RecordBatch, rows, slots []int32) ([]int32, []int32) {
	if ag.Filter < 0 {
		return rows, slots
	}
	f := b.Column(ag.Filter).(*array.Boolean)
	s.fRows, s.fSlots = s.fRows[:0], s.fSlots[:0]
	for i, r := range rows {
		if f.IsValid(int(r)) && f.Value(int(r)) {
			s.fRows = append(s.fRows, r)
			s.fSlots = append(s.fSlots, slots[i])
		}
	}
	return s.fRows, s.fSlots
}

// root follows merges to the session that holds slot's rows now.
func (s *Sessions) root(slot int32) int32 {
	for s.fwd[slot] >= 0 {
		slot = s.fwd[slot]
	}
	return slot
}

// keyOf returns the key number of key, made if new: with the sessions the
// store holds of it if it was spilled.
func (s *Sessions) keyOf(key []byte) (int32, error) {
	if len(s.addrs) == s.keyCap {
		if err := s.growKeys(); err != nil {
			return 0, err
		}
	}
	addr, acc, inserted, err := s.table.Insert(key, memseg.Hash(key))
	if err != nil {
		return 0, err
	}
	if !inserted {
		return int32(binary.LittleEndian.Uint32(acc)), nil
	}
	k := int32(len(s.addrs))
	binary.LittleEndian.PutUint32(acc, uint32(k))
	s.addrs = append(s.addrs, addr)
	s.head = append(s.head, -1)
	s.dirty = append(s.dirty, false)
	s.stored = append(s.stored, false)
	s.dead++
	if s.spill.keys > 0 {
		if err := s.unspill(k, key); err != nil {
			return 0, err
		}
	}
	return k, nil
}

// place puts a row of time t of key k into its session: a new one, or
// the one it overlaps or touches, which grows to cover [t, t+gap) and
// takes in the sessions after it that it now touches (recorded in
// s.merges; their slots stay until the batch is folded).
func (s *Sessions) place(k int32, t int64) (int32, error) {
	lo, hi := t, t+s.gap
	prev, cur := int32(-1), s.head[k]
	for cur >= 0 && s.end[cur] < lo {
		prev, cur = cur, s.next[cur]
	}
	if cur < 0 || s.start[cur] > hi {
		n, err := s.newSlot()
		if err != nil {
			return 0, err
		}
		s.touch(k)
		s.start[n], s.end[n], s.next[n], s.owner[n] = lo, hi, cur, k
		if prev < 0 {
			if s.head[k] < 0 {
				s.dead--
			}
			s.head[k] = n
		} else {
			s.next[prev] = n
		}
		s.pushTimer(n)
		return n, nil
	}
	s.touch(k)
	s.start[cur] = min(s.start[cur], lo)
	s.end[cur] = max(s.end[cur], hi)
	for nx := s.next[cur]; nx >= 0 && s.start[nx] <= s.end[cur]; nx = s.next[cur] {
		s.end[cur] = max(s.end[cur], s.end[nx])
		s.next[cur] = s.next[nx]
		s.fwd[nx] = cur
		s.merges = append(s.merges, [2]int32{cur, nx})
	}
	return cur, nil
}

// touch marks key k's sessions changed.
func (s *Sessions) touch(k int32) {
	if s.track && !s.dirty[k] {
		s.dirty[k] = true
		s.dirtyList = append(s.dirtyList, k)
	}
}

// newSlot returns an empty session slot, a free one or a new one, with a
// set of its own for each DISTINCT aggregate. It returns ErrNoMemory, and
// changes nothing, when the budget cannot take it.
func (s *Sessions) newSlot() (int32, error) {
	if err := s.roomForTimers(1); err != nil {
		return 0, err
	}
	for _, d := range s.dist {
		if d != nil && len(d.next) == d.setCap {
			if err := s.growSets(d, 1); err != nil {
				return 0, err
			}
		}
	}
	var slot int32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		if len(s.start) == s.cap {
			if err := s.growSlots(1); err != nil {
				return 0, err
			}
		}
		slot = int32(len(s.start))
		s.start = append(s.start, 0)
		s.end = append(s.end, 0)
		s.next = append(s.next, -1)
		s.owner = append(s.owner, -1)
		s.fwd = append(s.fwd, -1)
		s.gen = append(s.gen, 0)
		for _, d := range s.dist {
			if d != nil {
				d.first, d.last = append(d.first, -1), append(d.last, -1)
			}
		}
	}
	for _, d := range s.dist {
		if d != nil {
			d.newSet(slot)
		}
	}
	return slot, nil
}

// release empties slot and frees it.
func (s *Sessions) release(slot int32) {
	for i, ac := range s.accs {
		ac.Reset(slot)
		if d := s.dist[i]; d != nil {
			d.release(slot)
		}
	}
	s.fwd[slot], s.next[slot], s.owner[slot] = -1, -1, -1
	s.gen[slot]++
	s.free = append(s.free, slot)
}

// growSlots makes room for need more sessions at least, charging the
// budget: twice as many as there are, or only those needed when the
// budget has no room for more.
func (s *Sessions) growSlots(need int) error {
	n := max(16, 2*s.cap, s.cap+need)
	if err := s.reserve((n - s.cap) * s.slotBytes()); err != nil {
		n = s.cap + need
		if err := s.reserve(need * s.slotBytes()); err != nil {
			return err
		}
	}
	s.cap = n
	for _, ac := range s.accs {
		ac.Grow(n)
	}
	s.start, s.end = slices.Grow(s.start, n-len(s.start)), slices.Grow(s.end, n-len(s.end))
	s.next, s.owner, s.fwd = slices.Grow(s.next, n-len(s.next)), slices.Grow(s.owner, n-len(s.owner)), slices.Grow(s.fwd, n-len(s.fwd))
	s.gen = slices.Grow(s.gen, n-len(s.gen))
	for _, d := range s.dist {
		if d != nil {
			d.first, d.last = slices.Grow(d.first, n-len(d.first)), slices.Grow(d.last, n-len(d.last))
		}
	}
	return nil
}

// growKeys makes room for more key numbers, charging the budget.
func (s *Sessions) growKeys() error {
	n, err := s.grow(s.keyCap, 1, sessionKeyBytes)
	s.keyCap = n
	return err
}

// growSets makes room for need more sets of d's values at least,
// charging the budget.
func (s *Sessions) growSets(d *distinct, need int) error {
	n, err := s.grow(d.setCap, need, setBytes)
	if err == nil {
		d.grow(n)
	}
	return err
}

// grow charges the budget for room for need more items of size bytes
// beyond have at least: twice have, or need when that does not fit. It
// returns the new room (have if nothing fits).
func (s *Sessions) grow(have, need, size int) (int, error) {
	n := max(16, 2*have, have+need)
	if err := s.reserve((n - have) * size); err == nil {
		return n, nil
	}
	if err := s.reserve(need * size); err != nil {
		return have, err
	}
	return have + need, nil
}

func (s *Sessions) slotBytes() int {
	n := sessionSlotBytes
	for i, ac := range s.accs {
		n += ac.Size()
		if s.dist[i] != nil {
			n += slotSetBytes
		}
	}
	return n
}

// heap is what the accumulators hold outside their columns.
func (s *Sessions) heap() int {
	n := 0
	for _, ac := range s.accs {
		n += ac.Heap()
	}
	return n
}

// reserve charges n bytes to the budget, or returns ErrNoMemory.
func (s *Sessions) reserve(n int) error {
	if err := s.mem.Reserve(n); err != nil {
		return err
	}
	s.charged += n
	return nil
}

// chargeHeap brings the charge for the accumulators' heap values (the
// strings of MIN and MAX) up to date.
func (s *Sessions) chargeHeap() error {
	need := s.cap*s.slotBytes() + s.keyCap*sessionKeyBytes + s.heap() + s.timersCharged
	for _, d := range s.dist {
		if d != nil {
			need += d.setCap * setBytes
		}
	}
	if need > s.charged {
		return s.reserve(need - s.charged)
	}
	return nil
}

// Advance moves the watermark to wm and emits every session that ends
// before it, in the order of their ends and, for equal ends, of their
// keys, in batches of at most BatchSize rows. Their state is freed. It
// visits the sessions that fire, in memory and spilled, and no others.
func (s *Sessions) Advance(wm int64, emit func(arrow.RecordBatch) error) error {
	return s.advance(wm, emit, nil)
}

// Fire is Advance for sessions without aggregates: it calls fn with the
// normalized key, start and end of each session that fires, in the same
// order, instead of emitting batches.
func (s *Sessions) Fire(wm int64, fn func(key []byte, start, end int64) error) error {
	return s.advance(wm, nil, fn)
}

func (s *Sessions) advance(wm int64, emit func(arrow.RecordBatch) error, each func(key []byte, start, end int64) error) error {
	if wm <= s.wm {
		return nil
	}
	s.wm = wm
	s.fired = s.fired[:0]
	for len(s.timers) > 0 && s.timers[0].end < wm {
		t := s.popTimer()
		switch {
		case s.gen[t.slot] != t.gen:
			// The session merged into another, or fired.
		case s.end[t.slot] >= wm:
			// It grew since the timer was set.
			s.pushTimer(t.slot)
		default:
			s.fired = append(s.fired, t.slot)
		}
	}
	due, err := s.dueSpilled(wm)
	if err != nil {
		return err
	}
	if len(s.fired) == 0 && due == nil {
		return nil
	}
	for _, slot := range s.fired {
		k := s.owner[slot]
		if s.head[k] != slot {
			continue // gone with an earlier session of its key
		}
		cur := slot
		for cur >= 0 && s.end[cur] < wm {
			cur = s.next[cur]
		}
		s.head[k] = cur
		s.touch(k)
		if cur < 0 {
			s.dead++
		}
	}
	slices.SortFunc(s.fired, func(x, y int32) int {
		if c := s.end[x] - s.end[y]; c != 0 {
			if c < 0 {
				return -1
			}
			return 1
		}
		return bytes.Compare(s.keyOfSlot(x), s.keyOfSlot(y))
	})
	if err := s.emitFired(due, emit, each); err != nil {
		return err
	}
	for _, slot := range s.fired {
		s.release(slot)
	}
	if err := s.spill.commit(); err != nil {
		return err
	}
	if err := s.compact(); err != nil {
		return err
	}
	return s.collect()
}

// keyOfSlot is the key of the session in slot.
func (s *Sessions) keyOfSlot(slot int32) []byte { return s.table.KeyAt(s.addrs[s.owner[slot]]) }

// emitFired emits the fired sessions, s.fired in memory and due in the
// store, merged in the order of their ends and keys.
func (s *Sessions) emitFired(due *dueSessions, emit func(arrow.RecordBatch) error, each func(key []byte, start, end int64) error) error {
	if due != nil {
		defer due.close()
	}
	if s.out == nil {
		out, err := s.newOut()
		if err != nil {
			return err
		}
		s.out = out
	}
	o := s.out
	o.emit, o.each = emit, each
	i := 0
	for {
		dEnd, dKey, dOK := due.peek()
		if i < len(s.fired) {
			slot := s.fired[i]
			if !dOK || s.end[slot] < dEnd || s.end[slot] == dEnd && bytes.Compare(s.keyOfSlot(slot), dKey) < 0 {
				o.addSlot(slot, s.start[slot], s.end[slot], s.keyOfSlot(slot))
				i++
				if err := o.flushIfFull(); err != nil {
					return err
				}
				continue
			}
		} else if !dOK {
			break
		}
		if err := s.fireSpilled(due, o); err != nil {
			return err
		}
		if err := o.flushIfFull(); err != nil {
			return err
		}
	}
	return o.flush()
}

// compact rebuilds the key table without the keys that have no sessions
// (and no change a Flush must still write), once they are most of it:
// a key whose sessions have all fired would otherwise keep its entry.
func (s *Sessions) compact() error {
	if s.dead < 1024 || 2*s.dead < len(s.addrs) {
		return nil
	}
	old := s.table
	s.table = memseg.NewHashTable(s.mem, 4)
	var addrs []uint64
	var head []int32
	var dirty, stored []bool
	for k, h := range s.head {
		if h < 0 && !s.dirty[k] && !s.stored[k] {
			continue
		}
		key := old.KeyAt(s.addrs[k])
		addr, acc, _, err := s.table.Insert(key, memseg.Hash(key))
		if err != nil {
			// Nothing has changed yet: the aggregate goes on with the old
			// table, and spills it all.
			s.table.Release()
			s.table = old
			return s.spillAll()
		}
		binary.LittleEndian.PutUint32(acc, uint32(len(addrs)))
		addrs, head = append(addrs, addr), append(head, h)
		dirty, stored = append(dirty, s.dirty[k]), append(stored, s.stored[k])
	}
	s.dirtyList = s.dirtyList[:0]
	for n, h := range head {
		for cur := h; cur >= 0; cur = s.next[cur] {
			s.owner[cur] = int32(n)
		}
		if dirty[n] {
			s.dirtyList = append(s.dirtyList, int32(n))
		}
	}
	old.Release()
	s.addrs, s.head, s.dirty, s.stored = addrs, head, dirty, stored
	s.dead = 0
	for _, h := range head {
		if h < 0 {
			s.dead++
		}
	}
	return nil
}

// sessionOut builds output batches of fired sessions: those in memory
// (their slots) and those fired from the store (their accumulators
// decoded into scratch slots), in the order they are added.
type sessionOut struct {
	s       *Sessions
	emit    func(arrow.RecordBatch) error
	each    func(key []byte, start, end int64) error // instead of emit
	slots   []int32                                  // a session's slot, or -1-i for scratch slot i
	starts  []int64
	ends    []int64
	keyEnds []int
	keyBuf  []byte
	scratch []agg.Acc
	nScr    int
	chunk   []int32
}

func (s *Sessions) newOut() (*sessionOut, error) {
	scratch, err := s.newAccs()
	if err != nil {
		return nil, err
	}
	for _, ac := range scratch {
		ac.Grow(s.spec.BatchSize)
	}
	return &sessionOut{s: s, scratch: scratch}, nil
}

func (o *sessionOut) addSlot(slot int32, start, end int64, key []byte) {
	o.slots = append(o.slots, slot)
	o.starts, o.ends = append(o.starts, start), append(o.ends, end)
	o.keyBuf = append(o.keyBuf, key...)
	o.keyEnds = append(o.keyEnds, len(o.keyBuf))
}

// addState adds a session whose accumulators are st (Acc.Put, in
// aggregate order), and returns what follows them in st.
func (o *sessionOut) addState(start, end int64, key, st []byte) ([]byte, error) {
	i := int32(o.nScr)
	for _, ac := range o.scratch {
		ac.Reset(i)
		var err error
		if st, err = ac.Get(st, i); err != nil {
			return nil, err
		}
	}
	o.nScr++
	o.addSlot(-1-i, start, end, key)
	return st, nil
}

func (o *sessionOut) flushIfFull() error {
	if len(o.slots) < o.s.spec.BatchSize {
		return nil
	}
	return o.flush()
}

// flush emits the sessions added since the last flush as one batch.
func (o *sessionOut) flush() error {
	if len(o.slots) == 0 {
		return nil
	}
	if o.each != nil {
		return o.flushEach()
	}
	s := o.s
	bld := array.NewRecordBuilder(s.alloc, s.schema)
	defer bld.Release()
	nk := len(s.spec.Keys)
	kb := make([]array.Builder, nk)
	for i := range kb {
		kb[i] = bld.Field(i)
	}
	sb, eb := bld.Field(nk).(*array.TimestampBuilder), bld.Field(nk+1).(*array.TimestampBuilder)
	from := 0
	for i := range o.slots {
		if _, err := s.keys.decode(kb, o.keyBuf[from:o.keyEnds[i]]); err != nil {
			return err
		}
		from = o.keyEnds[i]
		sb.Append(arrow.Timestamp(o.starts[i]))
		eb.Append(arrow.Timestamp(o.ends[i]))
	}
	// The accumulators append a run of sessions of one kind at a time.
	for a := range s.accs {
		for lo := 0; lo < len(o.slots); {
			mem := o.slots[lo] >= 0
			o.chunk = o.chunk[:0]
			hi := lo
			for ; hi < len(o.slots) && (o.slots[hi] >= 0) == mem; hi++ {
				if mem {
					o.chunk = append(o.chunk, o.slots[hi])
				} else {
					o.chunk = append(o.chunk, -1-o.slots[hi])
				}
			}
			ac := s.accs[a]
			if !mem {
				ac = o.scratch[a]
			}
			if err := ac.AppendTo(bld.Field(nk+2+a), o.chunk); err != nil {
				return err
			}
			lo = hi
		}
	}
	o.reset()
	return o.emit(bld.NewRecordBatch())
}

// flushEach calls o.each with each session added since the last flush.
func (o *sessionOut) flushEach() error {
	from := 0
	for i := range o.slots {
		if err := o.each(o.keyBuf[from:o.keyEnds[i]], o.starts[i], o.ends[i]); err != nil {
			return err
		}
		from = o.keyEnds[i]
	}
	o.reset()
	return nil
}

func (o *sessionOut) reset() {
	o.slots, o.starts, o.ends, o.keyEnds, o.keyBuf = o.slots[:0], o.starts[:0], o.ends[:0], o.keyEnds[:0], o.keyBuf[:0]
	o.nScr = 0
}
