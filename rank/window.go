package rank

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// WindowSpec describes a window Top-N: of each window's rows, partitioned
// further by Partition, the first Limit in Order.
type WindowSpec struct {
	// UID identifies the operator's checkpointed rows.
	UID string
	In  types.Schema
	// WindowEnd is the window_end column: rows with the same one form a
	// window, which fires when the watermark reaches window_end - 1.
	WindowEnd int
	// Partition are further partition columns (window_start is implied).
	Partition []int
	Order     []SortKey
	// Limit is the number of rows kept per window and partition; 0 keeps
	// them all (ORDER BY without LIMIT).
	Limit int64
	// RowNum appends the row's number within its partition, 1..Limit, as
	// a BIGINT NOT NULL column named RowName ("rownum" if empty).
	RowNum  bool
	RowName string
	// SpillDir holds the sort runs of windows larger than managed memory;
	// "" is the system's temporary directory.
	SpillDir string
}

// Out is the schema of the rows a Top-N emits.
func (s *WindowSpec) Out() types.Schema {
	out := append(types.Schema{}, s.In...)
	if s.RowNum {
		name := s.RowName
		if name == "" {
			name = "rownum"
		}
		out = append(out, types.Field{Name: name, Type: types.TBigInt.WithNotNull(true)})
	}
	return out
}

// Fingerprint identifies the format of the rows a Top-N checkpoints: a
// restore refuses rows written for other columns or another order.
func (s *WindowSpec) Fingerprint() string {
	var b bytes.Buffer
	for _, f := range s.In {
		fmt.Fprintf(&b, "%v;", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(&b, "end %d; part %v; order %v", s.WindowEnd, s.Partition, s.Order)
	return fmt.Sprintf("topn;%016x", memseg.Hash(b.Bytes()))
}

// WindowTopN is a window Top-N. It buffers each window's rows, keyed by
// window_end, and when the watermark reaches window_end - 1 sorts them and
// emits the first Limit of each partition, in order. It runs at
// parallelism 1 behind a Global edge, because a window's first rows are
// first among all of the window's rows.
//
// The rows of every pending window are normalized keys (see topnKey) in
// one memseg.Sorter, from the task's managed memory: window_end leads the
// key, so the windows that fire come out first, and a window larger than
// the budget spills sorted runs to disk and merges them. Usually every
// pending window fires at once (a window aggregate upstream emits a
// window's rows just before the watermark that fires it); when later
// windows are pending too, their rows, which come out last, go into a
// fresh sorter, through a temporary file (restFile) so that the old
// sorter's merge may use every segment there is.
//
// With checkpoints, the rows buffered at a barrier are also in a Pebble
// store (key window_end and a sequence number, value the sort key), which
// Snapshot snapshots. Rows can be buffered at a barrier: they arrive from
// several upstream subtasks, and rows of a window TVF arrive over time.
// Arriving rows are logged in managed memory and written to the store at
// the next barrier (or when the log fills), unless their window has fired
// by then, so a window that comes and goes between two barriers costs the
// store nothing; a fired window's rows that were written are deleted with
// one range deletion.
type WindowTopN struct {
	spec    WindowSpec
	key     *topnKey
	alloc   memory.Allocator
	batch   int
	mem     *memseg.Manager
	metrics *exec.Metrics
	sub     *exec.SubtaskMetrics

	sorter *memseg.Sorter
	// pending are the window ends with buffered rows.
	pending []int64
	wm      int64
	buf     []byte
	spare   [][]byte // segments held back, see spareSegs
	// runs counts the sort runs spilled to disk, for tests.
	runs int

	// Checkpointed rows; nil store when the job does not checkpoint.
	store  *state.Store
	writes *state.Batch
	// log holds the rows that arrived since the last write to the store:
	// rows whose window fires before the next barrier never reach it.
	log    *memseg.SortBuffer
	unsent int    // writes not yet committed
	seq    uint64 // the next store key's sequence number
	maxPar int
	closed bool
}

// NewWindowTopN checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewWindowTopN(spec WindowSpec) (*WindowTopN, error) {
	if spec.Limit < 0 {
		return nil, fmt.Errorf("top-n: limit %d", spec.Limit)
	}
	k, err := newTopNKey(&spec)
	if err != nil {
		return nil, err
	}
	return &WindowTopN{spec: spec, key: k, wm: types.MinWatermark}, nil
}

// Open implements Opener.
func (t *WindowTopN) Open(ctx *exec.TaskContext) error {
	t.alloc, t.batch, t.metrics, t.sub = ctx.Alloc, ctx.BatchSize, ctx.Metrics, ctx.Counters()
	if t.batch <= 0 {
		t.batch = 4096
	}
	if t.alloc == nil {
		t.alloc = memory.DefaultAllocator
	}
	if t.metrics == nil {
		t.metrics = &exec.Metrics{}
	}
	t.mem = ctx.Memory
	if t.mem == nil {
		m, err := memseg.NewManager(0, 0)
		if err != nil {
			return err
		}
		t.mem = m
	}
	t.holdSpare()
	if ctx.Checkpoint != nil {
		return t.openState(ctx)
	}
	return nil
}

// Process implements Operator: it buffers the rows of b. A row whose
// window has fired is late; sources drop those before they get here, so
// this is a safety net, counted like the window aggregate's.
func (t *WindowTopN) Process(b arrow.RecordBatch, _ exec.Emitter) error {
	ends, ok := b.Column(t.spec.WindowEnd).(*array.Timestamp)
	if !ok {
		return fmt.Errorf("top-n: window_end column is %s", b.Column(t.spec.WindowEnd).DataType())
	}
	if err := t.key.Bind(b); err != nil {
		return err
	}
	var late int64
	last := types.MinWatermark
	for i, e := range ends.TimestampValues() {
		end := int64(e)
		if ends.IsNull(i) {
			return errors.New("top-n: a row without window_end")
		}
		if end-1 <= t.wm {
			late++
			continue
		}
		if end != last {
			last = end
			t.pend(end)
		}
		t.buf = t.key.Append(t.buf[:0], i)
		if err := t.add(t.buf); err != nil {
			return err
		}
		if t.store != nil {
			if err := t.logRow(t.buf); err != nil {
				return err
			}
		}
	}
	if late > 0 {
		t.metrics.LateRows.Add(late)
		t.sub.LateRows.Add(late)
	}
	return nil
}

// pend records that window end has rows.
func (t *WindowTopN) pend(end int64) {
	if i, found := slices.BinarySearch(t.pending, end); !found {
		t.pending = slices.Insert(t.pending, i, end)
	}
}

// add buffers one key, in a new sorter if there is none.
func (t *WindowTopN) add(key []byte) error {
	if t.sorter == nil {
		s, err := t.newSorter()
		if err != nil {
			return fmt.Errorf("top-n: %w", err)
		}
		t.sorter = s
	}
	err := t.sorter.Add(key, nil)
	if errors.Is(err, memseg.ErrNoMemory) && len(t.spare) > 0 {
		// Other operators hold the rest of the managed memory: the spare
		// segments let the sorter take its first row, and it spills
		// runs as it fills.
		t.freeSpare()
		err = t.sorter.Add(key, nil)
	}
	if err != nil {
		return fmt.Errorf("top-n: buffering a row: %w", err)
	}
	return nil
}

func (t *WindowTopN) newSorter() (*memseg.Sorter, error) {
	t.holdSpare()
	s, err := memseg.NewSorter(t.mem, t.key.Layout(), t.spec.SpillDir)
	if errors.Is(err, memseg.ErrNoMemory) && len(t.spare) > 0 {
		t.freeSpare()
		s, err = memseg.NewSorter(t.mem, t.key.Layout(), t.spec.SpillDir)
	}
	return s, err
}

// WindowSegments is the fewest segments of managed memory a Top-N subtask
// works with: its spare segments and room to log rows besides.
const WindowSegments = 8

// spareSegs is how many segments a Top-N holds back from the managed
// memory it shares with other operators: what a sorter needs to take its
// first row (a run buffer, an index and a record segment). They are taken
// at Open and after every fire, and given back when a sorter cannot start
// without them because other operators hold all the rest. A sorter that
// has started spills runs when it fills, so it never needs more.
const spareSegs = 3

// holdSpare takes spare segments from the manager, as many as it has.
func (t *WindowTopN) holdSpare() {
	for len(t.spare) < spareSegs {
		s, err := t.mem.Alloc()
		if err != nil {
			return
		}
		t.spare = append(t.spare, s)
	}
}

func (t *WindowTopN) freeSpare() {
	for i, s := range t.spare {
		t.mem.Free(s)
		t.spare[i] = nil
	}
	t.spare = t.spare[:0]
}

// OnWatermark implements WatermarkHandler: it fires the windows whose
// last millisecond wm reaches.
func (t *WindowTopN) OnWatermark(wm int64, out exec.Emitter) error {
	if wm <= t.wm {
		return nil
	}
	t.wm = wm
	if len(t.pending) == 0 || t.pending[0]-1 > wm {
		return nil
	}
	return t.fire(out)
}

// fire emits every pending window that the watermark has reached, each
// partition's first Limit rows in order, and keeps the rest.
func (t *WindowTopN) fire(out exec.Emitter) error {
	s := t.sorter
	t.sorter = nil
	if s == nil {
		return errors.New("top-n: windows pending without rows")
	}
	defer s.Close()
	t.runs += s.Runs()
	it, err := s.Iter()
	if err != nil {
		return fmt.Errorf("top-n: %w", err)
	}
	e := t.emitter(out)
	defer e.release()
	var rest *restFile
	defer rest.close()
	for it.Next() {
		key := it.Key()
		end, err := windowEnd(key)
		if err != nil {
			return err
		}
		if end-1 > t.wm {
			// A later window's row: every row after it is too.
			if rest == nil {
				if rest, err = newRestFile(t.spec.SpillDir); err != nil {
					return err
				}
			}
			if err := rest.add(key); err != nil {
				return err
			}
			continue
		}
		if err := e.row(key); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("top-n: %w", err)
	}
	if err := e.flush(); err != nil {
		return err
	}
	n := 0
	for n < len(t.pending) && t.pending[n]-1 <= t.wm {
		if t.store != nil {
			t.forget(t.pending[n])
		}
		n++
	}
	t.pending = append(t.pending[:0], t.pending[n:]...)
	s.Close()
	if rest != nil {
		if err := rest.each(t.add); err != nil {
			return err
		}
	}
	t.holdSpare()
	return nil
}

// topnEmitter turns sorted keys into output batches (changes, whose
// rows are all insertions).
type topnEmitter struct {
	t     *WindowTopN
	out   exec.Emitter
	c     *changes
	part  []byte // the current partition
	count int64  // rows of the current partition so far
}

func (t *WindowTopN) emitter(out exec.Emitter) *topnEmitter {
	return &topnEmitter{t: t, out: out, c: newChanges(t.alloc, t.key, t.spec.In, t.spec.Out(), t.batch)}
}

// row emits key's row if it is among the first Limit of its partition.
func (e *topnEmitter) row(key []byte) error {
	n, err := e.t.key.Partition(key)
	if err != nil {
		return err
	}
	if !bytes.Equal(key[:n], e.part) {
		e.part = append(e.part[:0], key[:n]...)
		e.count = 0
	}
	e.count++
	if lim := e.t.spec.Limit; lim > 0 && e.count > lim {
		return nil
	}
	return e.c.add(exec.Insert, key, e.count, e.out)
}

func (e *topnEmitter) flush() error { return e.c.flush(e.out) }

func (e *topnEmitter) release() { e.c.release() }

// Close implements Closer: it gives back the managed memory, removes any
// sort runs and closes the store. It may be called more than once.
func (t *WindowTopN) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	if t.sorter != nil {
		t.sorter.Close()
		t.sorter = nil
	}
	if t.mem != nil {
		t.freeSpare()
	}
	t.pending = nil
	if t.log != nil {
		t.log.Release()
		t.log = nil
	}
	if t.store == nil {
		return nil
	}
	err := t.store.Close()
	t.store = nil
	return err
}
