package join

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// names are the state names of the two sides' rows.
var names = [2]string{"left", "right"}

// Join is the regular join operator (exec.TwoInput). See the package
// documentation for its state and output.
type Join struct {
	spec Spec
	keyed

	batchSize int

	keyEnc, rowEnc [2]memseg.KeyEncoder
	keys, all      [2][]int
	out, cands     *rows
	residual       *expr.Program
	ectx           *expr.Ctx

	// Per input batch, in arena: each row's join key and row key, and
	// its candidates on the other side (the entries sharing its join
	// key), addressed by offsets since the arena moves as it grows.
	arena []byte
	jkeys []span // jkeys[r]: row r's join key; empty for a NULL key
	enc   []span // enc[r]: row r's join key as encoded, NULL or not
	rkeys []span // rkeys[r]: row r's row key
	cand  []candidate
	first []int // first[r]: row r's first candidate; first[n] the end
	pass  []bool
	buf   []byte
	key   []byte // recount's entry key
	val   []byte // put's value

	// A null-aware anti join's right side: its rows, and how many of
	// them have a NULL key.
	rows, nulls uint64
	scratch     []byte

	// Each side's TTL clock and sweeper (exec.TTLClock, state.Sweeper).
	clock [2]exec.TTLClock
	sweep [2]state.Sweeper
	now   int64 // the time of the row being applied
}

// span is a part of the arena.
type span struct{ off, end int }

// candidate is an entry of the other side sharing a row's join key: its
// row key and how many copies of that row the entry holds.
type candidate struct {
	span
	count uint64
}

func (j *Join) at(s span) []byte { return j.arena[s.off:s.end:s.end] }

// New checks spec and returns the operator; it is an OpSpec's
// constructor.
func New(spec Spec) (*Join, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	j := &Join{spec: spec}
	j.keys = [2][]int{spec.LeftKeys, spec.RightKeys}
	for side, sc := range []types.Schema{spec.Left, spec.Right} {
		for i := range sc {
			j.all[side] = append(j.all[side], i)
		}
	}
	if spec.Residual != nil {
		p, err := expr.Compile(spec.Residual, append(spec.Left[:len(spec.Left):len(spec.Left)], spec.Right...))
		if err != nil {
			return nil, fmt.Errorf("join condition: %w", err)
		}
		j.residual = p
	}
	return j, nil
}

// Open implements exec.Opener: it opens the state store and, on a
// restore, fills it with the subtask's key groups of the checkpoint.
func (j *Join) Open(ctx *exec.TaskContext) error {
	j.batchSize = ctx.BatchSize
	right := j.spec.Right
	if j.spec.Kind.filtering() {
		right = nil // a semi or anti join's output has no right columns
	}
	j.out = newRows(ctx.Alloc, j.spec.Out, j.spec.Left, right)
	j.ectx = &expr.Ctx{Alloc: ctx.Alloc, Now: ctx.Now}
	if j.residual != nil {
		// The pairs have both sides' columns, even a semi or anti
		// join's, whose output has the left ones only.
		both := append(j.spec.Left[:len(j.spec.Left):len(j.spec.Left)], j.spec.Right...)
		j.cands = newRows(ctx.Alloc, both, j.spec.Left, j.spec.Right)
		j.cands.only(j.spec.Residual)
	}
	j.uid, j.fingerprint = j.spec.UID, j.spec.Fingerprint()
	err := j.open(ctx, func(name string) bool {
		return name == names[0] || name == names[1] || j.spec.NullAware && name == totalsName
	})
	if err == nil {
		err = j.gauge.CountKeys(j.writes, j.uid, j.lo, j.hi, names[:]...)
		j.cache = state.NewCache(j.store, j.writes, ctx.Memory, ctx.MemoryShare, j.uid, j.lo, j.hi, names[:]...)
	}
	for side := range j.clock {
		if !j.spec.NullAware {
			j.clock[side].StateTTL = j.spec.TTL[side]
		}
		j.clock[side].Open(ctx)
		j.sweep[side] = state.Sweeper{UID: j.uid, Lo: j.lo, Hi: j.hi, Names: names[side : side+1]}
	}
	if err != nil || !j.spec.NullAware {
		return err
	}
	return j.loadTotals()
}

// Process implements exec.Operator; a two-input operator's batches come
// through ProcessInput, so a call here is a wiring bug.
func (j *Join) Process(arrow.RecordBatch, exec.Emitter) error {
	return errors.New("join: a batch without its input side")
}

// ProcessInput implements exec.TwoInput: each row, in order, updates its
// side's state and emits what it changes in the join's result.
func (j *Join) ProcessInput(s exec.Side, b arrow.RecordBatch, out exec.Emitter) error {
	side := int(s)
	if err := j.keyEnc[side].Reset(b, j.keys[side]); err != nil {
		return err
	}
	if err := j.rowEnc[side].Reset(b, j.all[side]); err != nil {
		return err
	}
	if err := j.clock[side].Bind(b); err != nil {
		return err
	}
	if j.clock[side].TimeCol < 0 && j.clock[side].TTL.On() {
		if err := j.sweepBoth(j.clock[side].SweepTime()); err != nil {
			return err
		}
	}
	n := int(b.NumRows())
	j.sweep[side].Wrote(n)
	if err := j.probe(side, b, n); err != nil {
		return err
	}
	if err := j.filter(side, n); err != nil {
		return err
	}
	for r := range n {
		if err := j.apply(side, exec.KindOf(b, r), r, out); err != nil {
			return err
		}
	}
	if err := j.out.flush(out); err != nil {
		return err
	}
	j.gauge.Measure()
	return j.writes.Commit()
}

// probe encodes each row's keys and collects its candidates. The other
// side's entries do not change while this side's batch is processed,
// only their match counts, which apply reads afresh.
func (j *Join) probe(side int, b arrow.RecordBatch, n int) error {
	j.arena, j.jkeys, j.rkeys, j.enc = j.arena[:0], j.jkeys[:0], j.rkeys[:0], j.enc[:0]
	j.cand, j.first = j.cand[:0], j.first[:0]
	other := 1 - side
	ttl, own := j.clock[other].TTL, j.clock[side].TTL
	for r := range n {
		now := j.clock[side].At(r)
		j.first = append(j.first, len(j.cand))
		k := span{off: len(j.arena)}
		j.arena = j.keyEnc[side].Append(j.arena, r)
		k.end = len(j.arena)
		j.arena = j.rowEnc[side].Append(j.arena, r)
		j.rkeys = append(j.rkeys, span{off: k.end, end: len(j.arena)})
		j.enc = append(j.enc, k)
		if nullKey(b, j.keys[side], r) {
			j.jkeys = append(j.jkeys, span{})
			continue
		}
		j.jkeys = append(j.jkeys, k)
		jk := j.at(k)
		kg := j.kg(jk)
		err := j.cache.Scan(kg, other, jk, func(key, value []byte) error {
			rest, _, live, err := ttl.ReadPair(value, now, own)
			if err != nil || !live {
				return err
			}
			count, _, err := counts(rest)
			if err != nil {
				return err
			}
			c := candidate{span: span{off: len(j.arena)}, count: count}
			j.arena = append(j.arena, key[len(jk):]...)
			c.end = len(j.arena)
			j.cand = append(j.cand, c)
			return nil
		})
		if err != nil {
			return err
		}
	}
	j.first = append(j.first, len(j.cand))
	return nil
}

// nullKey reports whether a key column of row r is NULL: such a row
// equals no row of the other side.
func nullKey(b arrow.RecordBatch, keys []int, r int) bool {
	for _, k := range keys {
		if b.Column(k).IsNull(r) {
			return true
		}
	}
	return false
}

// filter evaluates the residual condition over every (row, candidate)
// pair at once; without one every candidate matches.
func (j *Join) filter(side, n int) error {
	j.pass = j.pass[:0]
	for range j.cand {
		j.pass = append(j.pass, true)
	}
	if j.residual == nil || len(j.cand) == 0 {
		return nil
	}
	for r := range n {
		for c := j.first[r]; c < j.first[r+1]; c++ {
			mine, theirs := j.at(j.rkeys[r]), j.at(j.cand[c].span)
			left, right := mine, theirs
			if side == 1 {
				left, right = theirs, mine
			}
			if err := j.cands.add(exec.Insert, left, right); err != nil {
				return err
			}
		}
	}
	b := j.cands.batch()
	defer b.Release()
	mask, err := j.residual.Eval(j.ectx, b)
	if err != nil {
		return fmt.Errorf("join condition: %w", err)
	}
	defer mask.Release()
	m := mask.(*array.Boolean)
	for i := range j.pass {
		j.pass[i] = m.IsValid(i) && m.Value(i)
	}
	return nil
}

// apply is one row's effect, as Flink's StreamingJoinOperator: an
// insertion (+I, +U) is stored and joined with its matches, a retraction
// (-U, -D) removed and its joined rows retracted; an outer side's rows
// without a match are emitted NULL-padded, and retracted when they first
// get one, and emitted padded again when they lose their last.
func (j *Join) apply(side int, kind exec.RowKind, r int, out exec.Emitter) error {
	j.now = j.clock[side].At(r)
	if j.spec.NullAware {
		return j.nullAware(side, kind, r, out)
	}
	mine := j.at(j.rkeys[r])
	outer, otherOuter := j.spec.Kind.outer(side), j.spec.Kind.outer(1-side)
	accumulate := !kind.Retracts()
	if j.jkeys[r] == (span{}) {
		// A NULL key matches nothing and is not kept: only an outer
		// side shows it, padded, and takes it back the same way; an
		// anti join's left side shows it as it comes.
		if j.spec.Kind == Anti && side == 0 {
			return j.emit(side, kind, mine, nil, 1, out)
		}
		if outer {
			k := exec.Insert
			if !accumulate {
				k = exec.Delete
			}
			return j.emit(side, k, mine, nil, 1, out)
		}
		return nil
	}
	jk := j.at(j.jkeys[r])
	kg := j.kg(jk)
	j.buf = append(append(j.buf[:0], jk...), mine...)
	own := j.buf
	count, _, at, ok, exists, err := j.get(side, kg, own, len(jk))
	if err != nil {
		return err
	}
	if !accumulate && !ok {
		// A retraction of a row never stored, or expired: nothing of it
		// is in the state to take back.
		return nil
	}
	j.count(accumulate, exists, count)
	matches := uint64(0)
	for c := j.first[r]; c < j.first[r+1]; c++ {
		if j.pass[c] {
			matches += j.cand[c].count
		}
	}
	if err := j.write(side, kg, own, len(jk), accumulate, at, count, matches); err != nil {
		return err
	}
	if j.spec.Kind.filtering() {
		return j.semi(side, kind, kg, jk, mine, r, matches, out)
	}
	if matches == 0 {
		if outer {
			k := exec.Insert
			if !accumulate {
				k = exec.Delete
			}
			return j.emit(side, k, mine, nil, 1, out)
		}
		return j.commitSome()
	}
	outKind := kind
	if outer {
		outKind = exec.Insert
		if !accumulate {
			outKind = exec.Delete
		}
	}
	for c := j.first[r]; c < j.first[r+1]; c++ {
		if !j.pass[c] {
			continue
		}
		theirs := j.at(j.cand[c].span)
		if otherOuter && accumulate {
			if err := j.match(side, kg, jk, theirs, 1, out); err != nil {
				return err
			}
		}
		if err := j.emit(side, outKind, mine, theirs, j.cand[c].count, out); err != nil {
			return err
		}
		if otherOuter && !accumulate {
			if err := j.match(side, kg, jk, theirs, -1, out); err != nil {
				return err
			}
		}
	}
	return j.commitSome()
}

// semi is a row's effect on a semi or anti join, after its side's state
// took it: a left row with a match (a semi join's) or without one (an
// anti join's) is emitted (or retracted) once, with its kind; a right row
// changes the match counts of the left rows it matches, and a left row
// gaining its first match is emitted by a semi join and retracted by an
// anti join, one losing its last the other way round.
func (j *Join) semi(side int, kind exec.RowKind, kg uint16, jk, mine []byte, r int, matches uint64, out exec.Emitter) error {
	first, last := exec.Insert, exec.Delete
	if j.spec.Kind == Anti {
		first, last = exec.Delete, exec.Insert
	}
	if side == 0 {
		if (matches > 0) == (j.spec.Kind == Semi) {
			if err := j.emit(0, kind, mine, nil, 1, out); err != nil {
				return err
			}
		}
		return j.commitSome()
	}
	delta := 1
	if kind.Retracts() {
		delta = -1
	}
	for c := j.first[r]; c < j.first[r+1]; c++ {
		if !j.pass[c] {
			continue
		}
		if err := j.recount(side, kg, jk, j.at(j.cand[c].span), delta, first, last, true, out); err != nil {
			return err
		}
	}
	return j.commitSome()
}

// match changes by delta the match count of the other side's entry
// theirs, which is outer: when it gains its first match its NULL-padded
// rows are retracted, when it loses its last they are emitted again.
func (j *Join) match(side int, kg uint16, jk, theirs []byte, delta int, out exec.Emitter) error {
	return j.recount(side, kg, jk, theirs, delta, exec.Delete, exec.Insert, true, out)
}

// recount changes by delta the match count of the other side's entry
// theirs: if show, gaining its first match emits its row (alone, the
// other side's columns NULL) as first, losing its last emits it as last.
func (j *Join) recount(side int, kg uint16, jk, theirs []byte, delta int, first, last exec.RowKind, show bool, out exec.Emitter) error {
	other := 1 - side
	j.key = append(append(j.key[:0], jk...), theirs...)
	key := j.key
	count, degree, at, ok, _, err := j.get(other, kg, key, len(jk))
	if err != nil || !ok {
		return err
	}
	switch {
	case !show:
	case delta > 0 && degree == 0:
		if err := j.emit(other, first, theirs, nil, count, out); err != nil {
			return err
		}
	case delta < 0 && degree == 1:
		if err := j.emit(other, last, theirs, nil, count, out); err != nil {
			return err
		}
	}
	if delta < 0 && degree == 0 {
		return fmt.Errorf("%w: join match count below zero", memseg.ErrCorrupt)
	}
	return j.cache.Set(kg, other, key, len(jk), j.put(other, at, count, uint64(int64(degree)+int64(delta))))
}

// write writes side's entry own (its join key the first plen bytes)
// after a row added (accumulate) or took back a copy of it: count copies
// before, matches rows of the other side matching it.
func (j *Join) write(side int, kg uint16, own []byte, plen int, accumulate bool, at int64, count, matches uint64) error {
	switch {
	case accumulate:
		return j.cache.Set(kg, side, own, plen, j.put(side, at, count+1, matches))
	case count > 1:
		return j.cache.Set(kg, side, own, plen, j.put(side, at, count-1, matches))
	}
	return j.cache.Delete(kg, side, own, plen)
}

// get reads side's entry key: its counts, the time it was last written,
// whether it is live (exists and has not expired at the applied row's
// time), and whether it exists, expired or not.
func (j *Join) get(side int, kg uint16, key []byte, plen int) (count, degree uint64, at int64, live, exists bool, err error) {
	v, exists, err := j.cache.Get(kg, side, key, plen)
	if err != nil || !exists {
		return 0, 0, j.now, false, exists, err
	}
	rest, at, live, err := j.clock[side].TTL.Read(v, j.now)
	if err != nil || !live {
		return 0, 0, j.now, false, true, err
	}
	count, degree, err = counts(rest)
	return count, degree, at, err == nil, true, err
}

// count keeps the subtask's count of entries (exec.StateGauge): a row
// accumulated into no entry adds one, the last copy of a row taken back
// removes it.
func (j *Join) count(accumulate, exists bool, count uint64) {
	switch {
	case accumulate && !exists:
		j.gauge.Keys(1)
	case !accumulate && count <= 1:
		j.gauge.Keys(-1)
	}
}

// put is the value of side's entry written at the applied row's time, or
// at, the time of its last write, if that is later (a row can come out
// of event-time order): an entry lives ttl after the latest time that
// wrote it, as Flink's OnCreateAndWrite.
func (j *Join) put(side int, at int64, count, degree uint64) []byte {
	j.val = putCounts(j.clock[side].TTL.Stamp(j.val[:0], max(at, j.now)), count, degree)
	return j.val
}

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the combined watermark (the earliest time a row still to
// come can have) sweeps a key group of each side's expired rows.
func (j *Join) OnWatermark(wm int64, _ exec.Emitter) error {
	due := false
	for side := range j.clock {
		due = j.clock[side].Watermark(wm) || due
	}
	if !due {
		return nil
	}
	return j.sweepBoth(wm)
}

// sweepBoth sweeps a key group of each side's state at time now.
func (j *Join) sweepBoth(now int64) error {
	for side := range j.sweep {
		n, err := j.sweep[side].SweepCache(j.clock[side].TTL, j.cache, now)
		if err != nil {
			return err
		}
		j.gauge.Keys(-int64(n))
	}
	return j.commitSome()
}

// emit adds times copies of the joined row of side's row mine and the
// other side's row theirs (nil: NULL-padded).
func (j *Join) emit(side int, k exec.RowKind, mine, theirs []byte, times uint64, out exec.Emitter) error {
	left, right := mine, theirs
	if side == 1 {
		left, right = theirs, mine
	}
	for range times {
		if err := j.out.add(k, left, right); err != nil {
			return err
		}
		if j.out.n >= j.batchSize {
			if err := j.out.flush(out); err != nil {
				return err
			}
		}
	}
	return nil
}

// counts decodes an entry's value: how many copies of the row it holds,
// and how many rows of the other side match it.
func counts(v []byte) (count, degree uint64, err error) {
	count, n := binary.Uvarint(v)
	if n <= 0 {
		return 0, 0, fmt.Errorf("%w: join entry value %x", memseg.ErrCorrupt, v)
	}
	degree, m := binary.Uvarint(v[n:])
	if m <= 0 || n+m != len(v) {
		return 0, 0, fmt.Errorf("%w: join entry value %x", memseg.ErrCorrupt, v)
	}
	return count, degree, nil
}

func putCounts(dst []byte, count, degree uint64) []byte {
	return binary.AppendUvarint(binary.AppendUvarint(dst, count), degree)
}

// Snapshot implements exec.Snapshotter.
func (j *Join) Snapshot(id int64) (exec.OperatorSnapshot, error) { return j.snapshot(id) }

// Close implements exec.Closer.
func (j *Join) Close() error {
	for _, r := range []*rows{j.out, j.cands} {
		if r != nil {
			r.release()
		}
	}
	return j.close()
}
