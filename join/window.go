package join

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// WindowSpec is a window join: the rows of Left and Right of the same
// window (equal window_start and window_end) whose other key columns are
// equal and for which Residual is TRUE, joined when the window fires, as
// Flink's WindowJoin. Its inputs are insert-only, and so is its output.
type WindowSpec struct {
	UID         string
	Kind        Kind
	Left, Right types.Schema
	// LeftKeys and RightKeys pair every equi-join column, the window's
	// window_start and window_end among them (the pairs Start and End):
	// what the hash exchanges in front of the join route by.
	LeftKeys, RightKeys []int
	Start, End          int
	// Window describes the window (kind and sizes) for the fingerprint.
	Window   string
	Residual expr.Expr
	// Out is the output schema: Left's columns then Right's (a semi or
	// anti join's: Left's).
	Out types.Schema
}

// windowVersion versions the window join's state layout.
const windowVersion = "window-join/1"

// Fingerprint identifies the layout of the window join's state: each
// side's rows and keys, the window they are kept by, and what is joined
// when it fires (kind, residual), so a savepoint is restored only by the
// same join over windows of the same kind and size.
func (s *WindowSpec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s kind=%s window=%s start=%d end=%d\n", windowVersion, s.Kind, s.Window, s.Start, s.End)
	fmt.Fprintf(&b, "%s\n", s.regular().Fingerprint())
	return fmt.Sprintf("%016x", memseg.Hash([]byte(b.String())))
}

// regular is the join without its window, for what both kinds check.
func (s *WindowSpec) regular() *Spec {
	return &Spec{UID: s.UID, Kind: s.Kind, Left: s.Left, Right: s.Right, LeftKeys: s.LeftKeys, RightKeys: s.RightKeys, Residual: s.Residual, Out: s.Out}
}

func (s *WindowSpec) check() error {
	n := len(s.LeftKeys)
	if s.Start < 0 || s.Start >= n || s.End < 0 || s.End >= n || s.Start == s.End {
		return fmt.Errorf("join: window key pairs %d and %d of %d keys", s.Start, s.End, n)
	}
	for side, sc := range []types.Schema{s.Left, s.Right} {
		keys := [][]int{s.LeftKeys, s.RightKeys}[side]
		if len(keys) != n {
			break // regular().check says so
		}
		for _, c := range []int{keys[s.Start], keys[s.End]} {
			if !sc[c].Type.IsTimestamp() {
				return fmt.Errorf("join: window column %s of the %s side is no timestamp", sc[c].Name, exec.Side(side))
			}
		}
	}
	return s.regular().check()
}

// userKeys are keys without the window's pairs.
func (s *WindowSpec) userKeys(keys []int) []int {
	var out []int
	for i, k := range keys {
		if i != s.Start && i != s.End {
			out = append(out, k)
		}
	}
	return out
}

// State names: each side's rows by window_end | join key | side | row
// key | sequence number, with their count, and an entry per window with
// rows in a key group, which a restore reads to know the windows it
// holds. The join key is the keys but the window's, which are the same
// for every row of a window.
const (
	windowRows = "rows"
	windowList = "windows"
)

// WindowSegments is the fewest segments of managed memory a window join
// subtask works with: a window's buffer takes an index and a record
// segment, and rows of two windows pend at a time when a window's rows
// come ahead of the watermark that fires the one before.
const WindowSegments = 4

// WindowJoin is the window join operator (exec.TwoInput). See the package
// documentation for its state, its output and when it fires.
type WindowJoin struct {
	spec WindowSpec
	keyed

	batchSize int
	mem       *memseg.Manager
	metrics   *exec.Metrics
	sub       *exec.SubtaskMetrics

	// Per side: the exchange's key (every key, for the key group), the
	// join key (without the window's), and the row (every column).
	routeEnc, keyEnc, rowEnc [2]memseg.KeyEncoder
	route, keys, all         [2][]int
	ends                     [2]int
	keyTypes                 []memseg.Type // the join key's columns, for finding its end
	out, cands               *rows
	residual                 *expr.Program
	ectx                     *expr.Ctx

	// wm is the join's watermark; panes are the windows with rows, by
	// end.
	wm    int64
	panes []*pane
	buf   []byte
	rkey  []byte // a row's exchange key
	// An entry being written: its window end, key and count.
	we, ekey, count []byte
	sorted          *state.Sorted // spills, reused
	// seq numbers the entries written to the store, after an epoch above
	// every earlier run's whose state this one restored, so that equal
	// rows written at different times are different entries.
	seq uint64

	g group // the group being joined as a window fires
}

// pane is one window's rows: those in managed memory, as sort-buffer
// records key group | join key | side | row key, and which key groups
// have rows of it in the store (spilled, or there at a checkpoint).
type pane struct {
	end    int64
	mem    *memseg.SortBuffer
	stored []uint64 // a bit per key group from lo
}

func (p *pane) has(i int) bool { return p.stored != nil && p.stored[i/64]&(1<<(i%64)) != 0 }

// NewWindow checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewWindow(spec WindowSpec) (*WindowJoin, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	j := &WindowJoin{spec: spec, wm: types.MinWatermark}
	j.route = [2][]int{spec.LeftKeys, spec.RightKeys}
	j.keys = [2][]int{spec.userKeys(spec.LeftKeys), spec.userKeys(spec.RightKeys)}
	j.ends = [2]int{spec.LeftKeys[spec.End], spec.RightKeys[spec.End]}
	for side, sc := range []types.Schema{spec.Left, spec.Right} {
		for i := range sc {
			j.all[side] = append(j.all[side], i)
		}
	}
	for _, k := range j.keys[0] {
		t, _ := memseg.TypeOf(spec.Left[k].Type.Arrow())
		j.keyTypes = append(j.keyTypes, t)
	}
	var err error
	j.residual, err = spec.regular().program()
	return j, err
}

// Open implements exec.Opener: it opens the state store and, on a
// restore, fills it with the subtask's key groups of the checkpoint and
// learns which windows they hold rows of.
func (j *WindowJoin) Open(ctx *exec.TaskContext) error {
	j.batchSize = max(ctx.BatchSize, 1)
	j.metrics, j.sub = ctx.Metrics, ctx.Counters()
	if j.metrics == nil {
		j.metrics = &exec.Metrics{}
	}
	alloc := ctx.Alloc
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	j.mem = ctx.Memory
	if j.mem == nil {
		m, err := memseg.NewManager(0, 0)
		if err != nil {
			return err
		}
		j.mem = m
	}
	j.out, j.cands = j.spec.regular().outputs(alloc, j.residual != nil)
	j.ectx = &expr.Ctx{Alloc: alloc, Now: ctx.Now}
	j.uid, j.fingerprint, j.ingesting = j.spec.UID, j.spec.Fingerprint(), true
	if cp := ctx.Checkpoint; cp != nil && cp.Restore != nil {
		j.seq = uint64(cp.Restore.ID+1) << 32
	}
	if err := j.open(ctx, func(name string) bool { return name == windowRows || name == windowList }); err != nil {
		return err
	}
	return j.store.Scan(j.uid, uint16(j.lo), uint16(j.hi), windowList, func(kg uint16, _ string, key, _ []byte) error {
		end, _, rest, err := memseg.DecodeInt64(key, memseg.Order{})
		if err != nil || len(rest) != 0 {
			return fmt.Errorf("%w: window join window entry %x", memseg.ErrCorrupt, key)
		}
		j.pane(end).mark(int(kg)-j.lo, j.hi-j.lo+1)
		return nil
	})
}

// Process implements exec.Operator; batches come through ProcessInput.
func (j *WindowJoin) Process(arrow.RecordBatch, exec.Emitter) error {
	return errors.New("window join: a batch without its input side")
}

// ProcessInput implements exec.TwoInput: each row is kept in its window's
// pane until the window fires. A row whose window has fired is late: the
// sources drop those before they get here (a window aggregate's rows
// come before the watermark that fires their window), so this is a safety
// net, counted like the window aggregate's.
func (j *WindowJoin) ProcessInput(s exec.Side, b arrow.RecordBatch, _ exec.Emitter) error {
	side := int(s)
	ends, ok := b.Column(j.ends[side]).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("window join: window_end column is %s", b.Column(j.ends[side]).DataType())
	}
	if err := j.routeEnc[side].Reset(b, j.route[side]); err != nil {
		return err
	}
	if err := j.keyEnc[side].Reset(b, j.keys[side]); err != nil {
		return err
	}
	if err := j.rowEnc[side].Reset(b, j.all[side]); err != nil {
		return err
	}
	// A row with a NULL key matches nothing: only a side that shows its
	// rows without a match keeps it.
	unmatched := j.spec.Kind.outer(side) || j.spec.Kind == Anti && side == 0
	var late int64
	var p *pane
	for r := range int(b.NumRows()) {
		if kind := exec.KindOf(b, r); kind != exec.Insert {
			return fmt.Errorf("window join: input row of kind %s (it takes insertions only)", kind)
		}
		if ends.IsNull(r) {
			return errors.New("window join: a row without window_end")
		}
		end := int64(ends.Value(r))
		if end-1 <= j.wm {
			late++
			continue
		}
		if !unmatched && nullKey(b, j.keys[side], r) {
			continue
		}
		j.rkey = j.routeEnc[side].Append(j.rkey[:0], r)
		j.buf = binary.BigEndian.AppendUint16(j.buf[:0], j.kg(j.rkey))
		j.buf = j.keyEnc[side].Append(j.buf, r)
		j.buf = append(j.buf, byte(side))
		j.buf = j.rowEnc[side].Append(j.buf, r)
		if p == nil || p.end != end {
			p = j.pane(end)
		}
		if err := j.add(p, j.buf); err != nil {
			return err
		}
	}
	if late > 0 {
		j.metrics.LateRows.Add(late)
		j.sub.LateRows.Add(late)
	}
	return j.writes.Commit()
}

// pane returns the pane of the window ending at end, made if new.
func (j *WindowJoin) pane(end int64) *pane {
	i, found := slices.BinarySearchFunc(j.panes, end, func(p *pane, e int64) int {
		switch {
		case p.end < e:
			return -1
		case p.end > e:
			return 1
		}
		return 0
	})
	if !found {
		j.panes = slices.Insert(j.panes, i, &pane{end: end})
	}
	return j.panes[i]
}

// add keeps a row's record in its pane's memory. When the budget cannot
// take it, every pane's rows go to the store and the row goes in again;
// a row that fits no buffer at all goes to the store directly.
func (j *WindowJoin) add(p *pane, rec []byte) error {
	err := j.buffer(p, rec)
	if !errors.Is(err, memseg.ErrNoMemory) {
		return err
	}
	n, err := j.spill()
	if err != nil {
		return err
	}
	j.metrics.Spills.Add(n)
	j.sub.Spills.Add(n)
	if err := j.buffer(p, rec); !errors.Is(err, memseg.ErrNoMemory) {
		return err
	}
	if p.mem.Len() == 0 {
		p.mem.Release()
		p.mem = nil
	}
	j.put(p, binary.BigEndian.Uint16(rec), rec[2:], 1, j.writes)
	return j.commitSome()
}

// buffer adds a record to p's memory, made if p has none.
func (j *WindowJoin) buffer(p *pane, rec []byte) error {
	if p.mem == nil {
		buf, err := memseg.NewSortBuffer(j.mem, nil)
		if err != nil {
			return fmt.Errorf("window join: %w", err)
		}
		p.mem = buf
	}
	return p.mem.Add(rec, nil)
}

// spill writes the rows of every pane from memory to the store (when
// memory is short, and at a checkpoint), giving the memory back, and
// returns how many windows it wrote.
func (j *WindowJoin) spill() (int64, error) {
	var ps []*pane
	for _, p := range j.panes {
		if p.mem != nil {
			ps = append(ps, p)
		}
	}
	return int64(len(ps)), j.store1(ps...)
}

// store1 moves the rows of panes ps from memory to the store as ingested
// SSTs (state.Sorted): a batch would copy them through the memtable and a
// flush. The panes' records are merged into the store's key order (key
// group, then window, then row), so that an SST of spillEntries entries is
// written whenever that many are collected, each after the last: a spill
// holds little on the heap, and its SSTs do not overlap. The pending
// writes go first, so that the store applies everything in order.
func (j *WindowJoin) store1(ps ...*pane) error {
	if err := j.writes.Commit(); err != nil {
		return err
	}
	if j.sorted == nil {
		j.sorted = j.store.NewSorted()
	}
	heads := make([]*records, len(ps))
	for i, p := range ps {
		heads[i] = p.records()
		heads[i].advance()
	}
	for {
		kg, any := uint16(0), false
		for _, h := range heads {
			if h.rec != nil && (!any || h.kg() < kg) {
				kg, any = h.kg(), true
			}
		}
		if !any {
			break
		}
		for i, h := range heads {
			for ; h.rec != nil && h.kg() == kg; h.advance() {
				j.put(ps[i], kg, h.rec[2:], h.n, j.sorted)
				if j.sorted.Len() >= spillEntries {
					if err := j.sorted.Commit(); err != nil {
						return err
					}
				}
			}
		}
	}
	for _, p := range ps {
		p.mem.Release()
		p.mem = nil
	}
	if err := j.sorted.Commit(); err != nil {
		return err
	}
	return j.writes.Commit()
}

// spillEntries is the most entries an SST of a spill holds (a few MiB of
// heap while it is collected).
const spillEntries = 1 << 15

// setter is where entries go: a state.Batch or a state.Sorted.
type setter interface {
	Set(uid string, kg uint16, name string, key, value []byte)
}

// put writes to w n copies of the row rest (join key | side | row key) of
// key group kg as a new entry of its window, and lists the window in the
// key group with the pending writes.
func (j *WindowJoin) put(p *pane, kg uint16, rest []byte, n uint64, w setter) {
	j.we = memseg.AppendInt64(j.we[:0], p.end, memseg.Order{})
	if i := int(kg) - j.lo; !p.has(i) {
		p.mark(i, j.hi-j.lo+1)
		j.writes.Set(j.uid, kg, windowList, j.we, nil)
	}
	j.ekey = binary.BigEndian.AppendUint64(append(append(j.ekey[:0], j.we...), rest...), j.seq)
	j.seq++
	j.count = binary.AppendUvarint(j.count[:0], n)
	w.Set(j.uid, kg, windowRows, j.ekey, j.count)
}

// mark notes that key group lo+i has rows of p in the store.
func (p *pane) mark(i, groups int) {
	if p.stored == nil {
		p.stored = make([]uint64, (groups+63)/64)
	}
	p.stored[i/64] |= 1 << (i % 64)
}

// OnWatermark implements exec.WatermarkHandler: it fires the windows
// whose last millisecond wm reaches, in the order of their ends.
func (j *WindowJoin) OnWatermark(wm int64, out exec.Emitter) error {
	if wm <= j.wm {
		return nil
	}
	j.wm = wm
	n := 0
	for n < len(j.panes) && j.panes[n].end-1 <= wm {
		if err := j.fire(j.panes[n], out); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return nil
	}
	j.panes = append(j.panes[:0], j.panes[n:]...)
	if err := j.out.flush(out); err != nil {
		return err
	}
	return j.writes.Commit()
}

// Snapshot implements exec.Snapshotter: the rows in memory go to the
// store, which then holds every pending window.
func (j *WindowJoin) Snapshot(id int64) (exec.OperatorSnapshot, error) {
	if _, err := j.spill(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	return j.snapshot(id)
}

// Close implements exec.Closer.
func (j *WindowJoin) Close() error {
	for _, p := range j.panes {
		if p.mem != nil {
			p.mem.Release()
		}
	}
	j.panes = nil
	for _, r := range []*rows{j.out, j.cands} {
		if r != nil {
			r.release()
		}
	}
	return j.close()
}
