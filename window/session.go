package window

import (
	"bytes"
	"encoding/binary"
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
// (start, end, next, owner) and in the accumulators (agg.Acc, one slot per
// session). A batch is folded in two passes: the first places each row in
// its session, merging sessions as rows bridge them; the second updates
// the accumulators a column at a time, each row into the session its own
// merged into, and then folds the merged sessions' earlier state in. The
// columns and the table's segments are charged to the memory budget;
// sessions do not spill: a state that does not fit fails with ErrMemory.
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

	// Per session slot.
	start, end []int64
	next       []int32
	owner      []int32
	fwd        []int32 // during Add: the session a merged one went into, or -1
	accs       []agg.Acc
	free       []int32
	cap        int // slots the columns have room for
	keyCap     int
	charged    int
	// minEnd is at most the least end of any session: no session fires
	// until the watermark passes it.
	minEnd int64

	track bool
	uid   string
	kg    KeyGroup

	// Scratch reused across batches.
	enc       memseg.KeyEncoder
	key, prev []byte
	rows      []int32
	slots     []int32
	fRows     []int32
	fSlots    []int32
	merges    [][2]int32
	fired     []int32
	part      []byte
}

// Per key number and per session slot, the bytes the columns take.
const (
	sessionKeyBytes  = 8 + 4 + 1 + 1
	sessionSlotBytes = 8 + 8 + 4 + 4 + 4
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
	s := &Sessions{spec: spec, gap: spec.Window.Size, alloc: alloc, schema: spec.Out().Arrow(), wm: types.MinWatermark, minEnd: types.MaxWatermark}
	var kt []arrow.DataType
	for _, k := range spec.Keys {
		t := spec.In[k].Type.Arrow()
		if _, err := memseg.TypeOf(t); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", spec.In[k].Name, err)
		}
		kt = append(kt, t)
	}
	for _, ag := range spec.Aggs {
		if ag.Distinct {
			return nil, fmt.Errorf("DISTINCT aggregates in SESSION windows are not supported")
		}
		var in types.Type
		if ag.Kind != agg.CountStar {
			in = spec.In[ag.Arg].Type
		}
		ac, err := agg.New(ag, in)
		if err != nil {
			return nil, err
		}
		s.accs = append(s.accs, ac)
	}
	var err error
	if s.keys, err = newKeyDecoder(kt); err != nil {
		return nil, err
	}
	if s.mem, err = memseg.NewManager(memseg.DefaultBudget, memseg.DefaultSegmentSize); err != nil {
		return nil, err
	}
	s.table = memseg.NewHashTable(s.mem, 4)
	return s, nil
}

// UseMemory makes the aggregate keep its state in m's budget. It must be
// called before the first Add.
func (s *Sessions) UseMemory(m *memseg.Manager) {
	s.table.Release()
	s.mem = m
	s.table = memseg.NewHashTable(m, 4)
}

// Release gives the aggregate's managed memory back. The aggregate must
// not be used afterwards.
func (s *Sessions) Release() {
	s.table.Release()
	s.mem.Unreserve(s.charged)
	s.charged = 0
}

// Pending returns the number of sessions holding state.
func (s *Sessions) Pending() int { return len(s.start) - len(s.free) }

// Add folds a batch into the sessions of its rows' keys. It returns the
// number of rows dropped as late (their time is before the watermark) or
// with a NULL event time.
func (s *Sessions) Add(b arrow.RecordBatch) (dropped int64, err error) {
	ts := b.Column(s.spec.TimeCol).(*array.Timestamp)
	tv := ts.TimestampValues()
	if err := s.enc.Reset(b, s.spec.Keys); err != nil {
		return 0, err
	}
	s.rows, s.slots, s.merges = s.rows[:0], s.slots[:0], s.merges[:0]
	k, hasKey := int32(-1), false
	// One BIGINT key without NULLs is compared by value and encoded
	// without a call per row.
	ints := s.intKey(b)
	var prevInt int64
	for i := range tv {
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
					return dropped, err
				}
				prevInt, hasKey = v, true
			}
		default:
			s.key = s.enc.Append(s.key[:0], i)
			if !hasKey || !bytes.Equal(s.key, s.prev) {
				if k, err = s.keyOf(s.key); err != nil {
					return dropped, err
				}
				s.key, s.prev, hasKey = s.prev, s.key, true
			}
		}
		slot, err := s.place(k, t)
		if err != nil {
			return dropped, err
		}
		s.rows = append(s.rows, int32(i))
		s.slots = append(s.slots, slot)
	}
	// Each row goes to the session its own was merged into.
	for j, sl := range s.slots {
		s.slots[j] = s.root(sl)
	}
	for i, ag := range s.spec.Aggs {
		var col arrow.Array
		if ag.Kind != agg.CountStar {
			col = b.Column(ag.Arg)
		}
		rows, slots := s.filtered(ag, b)
		s.accs[i].Update(col, rows, slots)
	}
	// Merged sessions' state from before the batch goes into the session
	// that took them in; their slots are free from now on.
	for _, m := range s.merges {
		into, from := s.root(m[0]), m[1]
		for _, ac := range s.accs {
			ac.Merge(into, from)
		}
	}
	for _, m := range s.merges {
		s.release(m[1])
	}
	return dropped, s.chargeHeap()
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

// filtered returns the rows and slots of s.rows whose FILTER column is
// TRUE: all of them without a FILTER.
func (s *Sessions) filtered(ag agg.Call, b arrow.RecordBatch) ([]int32, []int32) {
	if ag.Filter < 0 {
		return s.rows, s.slots
	}
	f := b.Column(ag.Filter).(*array.Boolean)
	s.fRows, s.fSlots = s.fRows[:0], s.fSlots[:0]
	for i, r := range s.rows {
		if f.IsValid(int(r)) && f.Value(int(r)) {
			s.fRows = append(s.fRows, r)
			s.fSlots = append(s.fSlots, s.slots[i])
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

// keyOf returns the key number of key, made if new.
func (s *Sessions) keyOf(key []byte) (int32, error) {
	if len(s.addrs) == s.keyCap {
		if err := s.growKeys(); err != nil {
			return 0, err
		}
	}
	addr, acc, inserted, err := s.table.Insert(key, memseg.Hash(key))
	if err != nil {
		return 0, s.noMemory(err)
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
	s.touch(k)
	if cur < 0 || s.start[cur] > hi {
		n, err := s.newSlot()
		if err != nil {
			return 0, err
		}
		s.start[n], s.end[n], s.next[n], s.owner[n] = lo, hi, cur, k
		if prev < 0 {
			if s.head[k] < 0 {
				s.dead--
			}
			s.head[k] = n
		} else {
			s.next[prev] = n
		}
		s.minEnd = min(s.minEnd, hi)
		return n, nil
	}
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

// newSlot returns an empty session slot: a free one or a new one.
func (s *Sessions) newSlot() (int32, error) {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot, nil
	}
	if len(s.start) == s.cap {
		if err := s.growSlots(); err != nil {
			return 0, err
		}
	}
	slot := int32(len(s.start))
	s.start = append(s.start, 0)
	s.end = append(s.end, 0)
	s.next = append(s.next, -1)
	s.owner = append(s.owner, -1)
	s.fwd = append(s.fwd, -1)
	return slot, nil
}

// release empties slot and frees it.
func (s *Sessions) release(slot int32) {
	for _, ac := range s.accs {
		ac.Reset(slot)
	}
	s.fwd[slot], s.next[slot], s.owner[slot] = -1, -1, -1
	s.free = append(s.free, slot)
}

// growSlots makes room for more sessions, charging the budget.
func (s *Sessions) growSlots() error {
	n := max(16, 2*s.cap)
	if err := s.reserve((n - s.cap) * s.slotBytes()); err != nil {
		return err
	}
	s.cap = n
	for _, ac := range s.accs {
		ac.Grow(n)
	}
	s.start, s.end = slices.Grow(s.start, n-len(s.start)), slices.Grow(s.end, n-len(s.end))
	s.next, s.owner, s.fwd = slices.Grow(s.next, n-len(s.next)), slices.Grow(s.owner, n-len(s.owner)), slices.Grow(s.fwd, n-len(s.fwd))
	return nil
}

// growKeys makes room for more key numbers, charging the budget.
func (s *Sessions) growKeys() error {
	n := max(16, 2*s.keyCap)
	if err := s.reserve((n - s.keyCap) * sessionKeyBytes); err != nil {
		return err
	}
	s.keyCap = n
	return nil
}

func (s *Sessions) slotBytes() int {
	n := sessionSlotBytes
	for _, ac := range s.accs {
		n += ac.Size()
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

func (s *Sessions) reserve(n int) error {
	if err := s.mem.Reserve(n); err != nil {
		return s.noMemory(err)
	}
	s.charged += n
	return nil
}

// chargeHeap brings the charge for the accumulators' heap values (the
// strings of MIN and MAX) up to date.
func (s *Sessions) chargeHeap() error {
	need := s.cap*s.slotBytes() + s.keyCap*sessionKeyBytes + s.heap()
	if need > s.charged {
		return s.reserve(need - s.charged)
	}
	return nil
}

func (s *Sessions) noMemory(err error) error {
	return fmt.Errorf("%w (%d bytes; session windows do not spill): %w", ErrMemory, s.mem.Budget(), err)
}

// Advance moves the watermark to wm and emits every session that ends
// before it, in the order of their ends and, for equal ends, of their
// keys, in batches of at most BatchSize rows. Their state is freed.
func (s *Sessions) Advance(wm int64, emit func(arrow.RecordBatch) error) error {
	if wm <= s.wm {
		return nil
	}
	s.wm = wm
	if s.minEnd >= wm {
		return nil
	}
	s.fired = s.fired[:0]
	least := int64(types.MaxWatermark)
	for k, h := range s.head {
		if h < 0 {
			continue
		}
		cur := h
		for cur >= 0 && s.end[cur] < wm {
			s.fired = append(s.fired, cur)
			cur = s.next[cur]
		}
		if cur != h {
			s.head[k] = cur
			s.touch(int32(k))
			if cur < 0 {
				s.dead++
			}
		}
		if cur >= 0 {
			least = min(least, s.end[cur])
		}
	}
	s.minEnd = least
	slices.SortFunc(s.fired, func(x, y int32) int {
		if c := s.end[x] - s.end[y]; c != 0 {
			if c < 0 {
				return -1
			}
			return 1
		}
		return bytes.Compare(s.table.KeyAt(s.addrs[s.owner[x]]), s.table.KeyAt(s.addrs[s.owner[y]]))
	})
	for lo := 0; lo < len(s.fired); lo += s.spec.BatchSize {
		if err := s.emit(s.fired[lo:min(lo+s.spec.BatchSize, len(s.fired))], emit); err != nil {
			return err
		}
	}
	for _, slot := range s.fired {
		s.release(slot)
	}
	return s.compact()
}

// emit builds and emits one output batch of the sessions in chunk.
func (s *Sessions) emit(chunk []int32, emit func(arrow.RecordBatch) error) error {
	bld := array.NewRecordBuilder(s.alloc, s.schema)
	defer bld.Release()
	nk := len(s.spec.Keys)
	kb := make([]array.Builder, nk)
	for i := range kb {
		kb[i] = bld.Field(i)
	}
	sb, eb := bld.Field(nk).(*array.TimestampBuilder), bld.Field(nk+1).(*array.TimestampBuilder)
	for _, slot := range chunk {
		if _, err := s.keys.decode(kb, s.table.KeyAt(s.addrs[s.owner[slot]])); err != nil {
			return err
		}
		sb.Append(arrow.Timestamp(s.start[slot]))
		eb.Append(arrow.Timestamp(s.end[slot]))
	}
	for i, ac := range s.accs {
		if err := ac.AppendTo(bld.Field(nk+2+i), chunk); err != nil {
			return err
		}
	}
	return emit(bld.NewRecordBatch())
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
		if h < 0 && !s.dirty[k] {
			continue
		}
		key := old.KeyAt(s.addrs[k])
		addr, acc, _, err := s.table.Insert(key, memseg.Hash(key))
		if err != nil {
			// Nothing has changed yet: the aggregate goes on with the old
			// table, if the job can.
			s.table.Release()
			s.table = old
			return s.noMemory(err)
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
