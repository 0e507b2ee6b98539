package join

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// IntervalSpec is an interval join: the rows of Left and Right whose key
// columns are equal, whose event times satisfy Lower <= lt - rt <= Upper
// (LeftTime and RightTime, milliseconds, inclusive), and for which
// Residual is TRUE, as Flink's interval join.
type IntervalSpec struct {
	UID                 string
	Kind                Kind // Inner, LeftOuter, RightOuter or FullOuter
	Left, Right         types.Schema
	LeftKeys, RightKeys []int
	LeftTime, RightTime int
	Lower, Upper        int64
	Residual            expr.Expr
	// Out is the output schema: Left's columns then Right's.
	Out types.Schema
}

// intervalVersion versions the interval join's state layout.
const intervalVersion = "interval-join/1"

// Fingerprint identifies the layout of the join's state: each side's
// rows and keys, its time columns and bounds (which decide when rows go),
// and what the match flags flag (kind, residual).
func (s *IntervalSpec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s kind=%s times=%d,%d bounds=%d,%d\n", intervalVersion, s.Kind, s.LeftTime, s.RightTime, s.Lower, s.Upper)
	fmt.Fprintf(&b, "%s\n", s.regular().Fingerprint())
	return fmt.Sprintf("%016x", memseg.Hash([]byte(b.String())))
}

// regular is the join without its bounds, for what both kinds check.
func (s *IntervalSpec) regular() *Spec {
	return &Spec{UID: s.UID, Kind: s.Kind, Left: s.Left, Right: s.Right, LeftKeys: s.LeftKeys, RightKeys: s.RightKeys, Residual: s.Residual, Out: s.Out}
}

func (s *IntervalSpec) check() error {
	if s.Kind.filtering() {
		return fmt.Errorf("join: an interval join is inner or outer, not %s", s.Kind)
	}
	if s.Lower > s.Upper {
		return fmt.Errorf("join: interval bounds %d > %d", s.Lower, s.Upper)
	}
	for side, c := range []int{s.LeftTime, s.RightTime} {
		if sc := []types.Schema{s.Left, s.Right}[side]; c < 0 || c >= len(sc) || !sc[c].Type.IsTimestamp() {
			return fmt.Errorf("join: interval time column %d of the %s side is no timestamp", c, exec.Side(side))
		}
	}
	return s.regular().check()
}

// State names: each side's rows, by join key | time | row key, and their
// times, by time | join key | row key, the order cleanup reads them in.
var (
	rowNames  = [2]string{"left", "right"}
	timeNames = [2]string{"left-time", "right-time"}
)

// timeWidth is the width of a time in a key (memseg.AppendInt64).
var timeWidth = len(memseg.AppendInt64(nil, 0, memseg.Order{}))

// errStop ends a scan early.
var errStop = errors.New("stop")

// IntervalJoin is the interval join operator (exec.TwoInput). See the
// package documentation for its state, output and watermarks.
type IntervalJoin struct {
	spec IntervalSpec
	keyed

	batchSize      int
	keyEnc, rowEnc [2]memseg.KeyEncoder
	keys, all      [2][]int
	keyTypes       [2][]memseg.Type
	times          [2]int
	out, cands     *rows
	residual       *expr.Program
	ectx           *expr.Ctx

	// wm is each side's watermark; minTime a lower bound of the times
	// of each side's stored rows, so that a watermark that frees none
	// costs no scan.
	wm, minTime [2]int64

	// Per input batch, as in Join: keys in arena, each row's candidates.
	arena []byte
	jkeys []span // empty for a NULL key or time
	rkeys []span
	tms   []int64
	cand  []ivCandidate
	first []int
	pass  []bool
	buf   []byte
	gone  [][]byte // the keys of rows a watermark frees
	scr   []byte
}

// ivCandidate is a stored row of the other side that a row may pair with:
// its state key (join key | time | row key), its copies, and whether it
// has had a match.
type ivCandidate struct {
	key     span
	count   uint64
	matched bool
}

// NewInterval checks spec and returns the operator.
func NewInterval(spec IntervalSpec) (*IntervalJoin, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	j := &IntervalJoin{spec: spec}
	j.keys = [2][]int{spec.LeftKeys, spec.RightKeys}
	j.times = [2]int{spec.LeftTime, spec.RightTime}
	for side, sc := range []types.Schema{spec.Left, spec.Right} {
		for i := range sc {
			j.all[side] = append(j.all[side], i)
		}
		for _, k := range j.keys[side] {
			t, _ := memseg.TypeOf(sc[k].Type.Arrow())
			j.keyTypes[side] = append(j.keyTypes[side], t)
		}
	}
	var err error
	j.residual, err = spec.regular().program()
	return j, err
}

// Open implements exec.Opener.
func (j *IntervalJoin) Open(ctx *exec.TaskContext) error {
	j.batchSize = ctx.BatchSize
	j.out = newRows(ctx.Alloc, j.spec.Out, j.spec.Left, j.spec.Right)
	j.ectx = &expr.Ctx{Alloc: ctx.Alloc, Now: ctx.Now}
	if j.residual != nil {
		j.cands = newRows(ctx.Alloc, j.spec.Out, j.spec.Left, j.spec.Right)
	}
	j.wm = [2]int64{types.MinWatermark, types.MinWatermark}
	// Restored rows may be of any time: the first watermark looks.
	j.minTime = [2]int64{math.MinInt64, math.MinInt64}
	j.uid, j.fingerprint = j.spec.UID, j.spec.Fingerprint()
	return j.open(ctx, func(name string) bool {
		return name == rowNames[0] || name == rowNames[1] || name == timeNames[0] || name == timeNames[1]
	})
}

// Process implements exec.Operator; batches come through ProcessInput.
func (j *IntervalJoin) Process(arrow.RecordBatch, exec.Emitter) error {
	return errors.New("interval join: a batch without its input side")
}

// add is a + b, saturating at the ends of int64.
func add(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// window is the range of the other side's times that a row of side at
// time t pairs with.
func (j *IntervalJoin) window(side int, t int64) (lo, hi int64) {
	if side == 0 { // rt in [lt - Upper, lt - Lower]
		return add(t, -j.spec.Upper), add(t, -j.spec.Lower)
	}
	return add(t, j.spec.Lower), add(t, j.spec.Upper) // lt in [rt + Lower, rt + Upper]
}

// expired reports whether a row of side at time t can pair with no row
// of the other side still to come: those are at or after the other
// side's watermark.
func (j *IntervalJoin) expired(side int, t int64) bool {
	_, hi := j.window(side, t)
	return hi < j.wm[1-side]
}

// ProcessInput implements exec.TwoInput: each row pairs with the other
// side's stored rows in its window, and is stored while rows to come may
// still pair with it.
func (j *IntervalJoin) ProcessInput(s exec.Side, b arrow.RecordBatch, out exec.Emitter) error {
	side := int(s)
	if err := j.keyEnc[side].Reset(b, j.keys[side]); err != nil {
		return err
	}
	if err := j.rowEnc[side].Reset(b, j.all[side]); err != nil {
		return err
	}
	n := int(b.NumRows())
	if err := j.probe(side, b, n); err != nil {
		return err
	}
	if err := j.filter(side, n); err != nil {
		return err
	}
	for r := range n {
		if kind := exec.KindOf(b, r); kind != exec.Insert {
			return fmt.Errorf("interval join: input row of kind %s (it takes insertions only)", kind)
		}
		if err := j.apply(side, r, out); err != nil {
			return err
		}
	}
	if err := j.out.flush(out); err != nil {
		return err
	}
	return j.writes.Commit()
}

// probe encodes each row's keys and collects the other side's rows of its
// key whose time is in its window.
func (j *IntervalJoin) probe(side int, b arrow.RecordBatch, n int) error {
	j.arena, j.jkeys, j.rkeys, j.tms = j.arena[:0], j.jkeys[:0], j.rkeys[:0], j.tms[:0]
	j.cand, j.first = j.cand[:0], j.first[:0]
	ts := b.Column(j.times[side]).(*array.Timestamp)
	for r := range n {
		j.first = append(j.first, len(j.cand))
		k := span{off: len(j.arena)}
		j.arena = j.keyEnc[side].Append(j.arena, r)
		k.end = len(j.arena)
		j.arena = j.rowEnc[side].Append(j.arena, r)
		j.rkeys = append(j.rkeys, span{off: k.end, end: len(j.arena)})
		j.tms = append(j.tms, int64(ts.Value(r)))
		if ts.IsNull(r) || nullKey(b, j.keys[side], r) {
			j.jkeys = append(j.jkeys, span{})
			continue
		}
		j.jkeys = append(j.jkeys, k)
		jk := j.at(k)
		lo, hi := j.window(side, j.tms[r])
		err := j.writes.ScanPrefix(j.uid, j.kg(jk), rowNames[1-side], jk, func(key, value []byte) error {
			t, _, _, err := memseg.DecodeInt64(key[len(jk):], memseg.Order{})
			switch {
			case err != nil:
				return err
			case t < lo:
				return nil
			case t > hi:
				return errStop
			}
			count, matched, err := counts(value)
			if err != nil {
				return err
			}
			c := ivCandidate{key: span{off: len(j.arena)}, count: count, matched: matched > 0}
			j.arena = append(j.arena, key...)
			c.key.end = len(j.arena)
			j.cand = append(j.cand, c)
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	j.first = append(j.first, len(j.cand))
	return nil
}

func (j *IntervalJoin) at(s span) []byte { return j.arena[s.off:s.end:s.end] }

// theirs is a candidate's row key: its state key after the join key and
// the time.
func (j *IntervalJoin) theirs(c ivCandidate, jk []byte) []byte {
	return j.at(c.key)[len(jk)+timeWidth:]
}

// filter evaluates the residual condition over every (row, candidate)
// pair at once.
func (j *IntervalJoin) filter(side, n int) error {
	j.pass = j.pass[:0]
	for range j.cand {
		j.pass = append(j.pass, true)
	}
	if j.residual == nil || len(j.cand) == 0 {
		return nil
	}
	for r := range n {
		jk := j.at(j.jkeys[r])
		for c := j.first[r]; c < j.first[r+1]; c++ {
			left, right := j.at(j.rkeys[r]), j.theirs(j.cand[c], jk)
			if side == 1 {
				left, right = right, left
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

// apply emits row r's pairs, flags the other side's rows it matched (an
// outer side's, which are padded when they go unmatched), and stores it,
// unless no row still to come can pair with it: then an outer side's
// unmatched row is padded at once.
func (j *IntervalJoin) apply(side, r int, out exec.Emitter) error {
	mine := j.at(j.rkeys[r])
	outer, otherOuter := j.spec.Kind.outer(side), j.spec.Kind.outer(1-side)
	if j.jkeys[r] == (span{}) {
		if outer {
			return j.emit(side, mine, nil, 1, out)
		}
		return nil
	}
	jk := j.at(j.jkeys[r])
	kg := j.kg(jk)
	matched := false
	for c := j.first[r]; c < j.first[r+1]; c++ {
		if !j.pass[c] {
			continue
		}
		matched = true
		cand := &j.cand[c]
		if err := j.emit(side, mine, j.theirs(*cand, jk), cand.count, out); err != nil {
			return err
		}
		if otherOuter && !cand.matched {
			cand.matched = true
			j.writes.Set(j.uid, kg, rowNames[1-side], j.at(cand.key), putCounts(nil, cand.count, 1))
		}
	}
	t := j.tms[r]
	if j.expired(side, t) {
		if outer && !matched {
			return j.emit(side, mine, nil, 1, out)
		}
		return j.commitSome()
	}
	tk := memseg.AppendInt64(nil, t, memseg.Order{})
	j.buf = append(append(append(j.buf[:0], jk...), tk...), mine...)
	v, ok, err := j.writes.Get(j.uid, kg, rowNames[side], j.buf)
	if err != nil {
		return err
	}
	count, flag := uint64(0), uint64(0)
	if ok {
		if count, flag, err = counts(v); err != nil {
			return err
		}
	} else {
		j.scr = append(append(append(j.scr[:0], tk...), jk...), mine...)
		j.writes.Set(j.uid, kg, timeNames[side], j.scr, nil)
	}
	if matched {
		flag = 1
	}
	j.writes.Set(j.uid, kg, rowNames[side], j.buf, putCounts(nil, count+1, flag))
	j.minTime[side] = min(j.minTime[side], t)
	return j.commitSome()
}

// emit adds times copies of the joined row of side's row mine and the
// other side's row theirs (nil: NULL-padded).
func (j *IntervalJoin) emit(side int, mine, theirs []byte, times uint64, out exec.Emitter) error {
	left, right := mine, theirs
	if side == 1 {
		left, right = theirs, mine
	}
	return j.out.repeat(exec.Insert, left, right, times, j.batchSize, out)
}

// OnInputWatermark implements exec.InputWatermarkHandler: side's
// watermark frees the other side's rows that no row of side still to come
// can pair with, padding an outer side's unmatched ones.
func (j *IntervalJoin) OnInputWatermark(s exec.Side, wm int64, out exec.Emitter) error {
	side := int(s)
	j.wm[side] = wm
	other := 1 - side
	// A row of other at time t is expired once its window's end is
	// before wm: t + Upper < wm for a right row, t - Lower < wm for a
	// left one.
	var bound int64
	if other == 0 {
		bound = add(wm, j.spec.Lower)
	} else {
		bound = add(wm, -j.spec.Upper)
	}
	if bound <= j.minTime[other] {
		return nil
	}
	next := int64(math.MaxInt64)
	for kg := j.lo; kg <= j.hi; kg++ {
		j.gone = j.gone[:0]
		err := j.writes.ScanPrefix(j.uid, uint16(kg), timeNames[other], nil, func(key, _ []byte) error {
			t, _, _, err := memseg.DecodeInt64(key, memseg.Order{})
			if err != nil {
				return err
			}
			if t >= bound {
				next = min(next, t)
				return errStop
			}
			j.gone = append(j.gone, append([]byte(nil), key...))
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		for _, ik := range j.gone {
			if err := j.free(other, uint16(kg), ik, out); err != nil {
				return err
			}
		}
	}
	j.minTime[other] = next
	if err := j.out.flush(out); err != nil {
		return err
	}
	return j.writes.Commit()
}

// free drops the row of side whose time index key is ik, padding it if its
// side is outer and it never matched.
func (j *IntervalJoin) free(side int, kg uint16, ik []byte, out exec.Emitter) error {
	tk := ik[:timeWidth]
	rest := ik[timeWidth:]
	row := rest
	var err error
	for _, t := range j.keyTypes[side] {
		if row, err = memseg.DecodeColumn(nil, t, memseg.Order{}, row, &j.scr); err != nil {
			return err
		}
	}
	jk := rest[:len(rest)-len(row)]
	key := append(append(append([]byte(nil), jk...), tk...), row...)
	v, ok, err := j.writes.Get(j.uid, kg, rowNames[side], key)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: interval join time index without its row", memseg.ErrCorrupt)
	}
	count, matched, err := counts(v)
	if err != nil {
		return err
	}
	if j.spec.Kind.outer(side) && matched == 0 {
		if err := j.emit(side, row, nil, count, out); err != nil {
			return err
		}
	}
	j.writes.Delete(j.uid, kg, rowNames[side], key)
	j.writes.Delete(j.uid, kg, timeNames[side], ik)
	return nil
}

// Held implements exec.WatermarkHolder. A pair is emitted when its later
// row comes, at or after the combined watermark wm; its earlier row's
// time may be behind by the join's bound (Upper for a left row's right
// match, -Lower for a right row's left match), so the output's watermark
// is wm less that bound and a millisecond: every row emitted after it is
// later, and no window downstream finds one late.
func (j *IntervalJoin) Held(wm int64) int64 {
	if wm == types.MaxWatermark {
		return wm
	}
	return add(wm, -(max(0, j.spec.Upper, -j.spec.Lower) + 1))
}

// Snapshot implements exec.Snapshotter.
func (j *IntervalJoin) Snapshot(id int64) (exec.OperatorSnapshot, error) { return j.snapshot(id) }

// Close implements exec.Closer.
func (j *IntervalJoin) Close() error {
	for _, r := range []*rows{j.out, j.cands} {
		if r != nil {
			r.release()
		}
	}
	return j.close()
}
