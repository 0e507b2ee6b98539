package join

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// TemporalSpec is an event-time temporal join (Flink's versioned table
// join, FOR SYSTEM_TIME AS OF l.time): each left row joins the version
// of the right rows of its key valid at its time LeftTime, the latest
// right row whose time RightTime is at or before it, if that row is no
// deletion and Residual is TRUE over the pair.
type TemporalSpec struct {
	UID                 string
	Kind                Kind // Inner or LeftOuter
	Left, Right         types.Schema
	LeftKeys, RightKeys []int
	LeftTime, RightTime int
	Residual            expr.Expr
	// Out is the output schema: Left's columns then Right's.
	Out types.Schema
}

// temporalVersion versions the temporal join's state layout.
const temporalVersion = "temporal-join/1"

// Fingerprint identifies the layout of the join's state: each side's
// rows, keys and time columns.
func (s *TemporalSpec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s kind=%s times=%d,%d\n", temporalVersion, s.Kind, s.LeftTime, s.RightTime)
	fmt.Fprintf(&b, "%s\n", s.regular().Fingerprint())
	return fmt.Sprintf("%016x", memseg.Hash([]byte(b.String())))
}

func (s *TemporalSpec) regular() *Spec {
	return &Spec{UID: s.UID, Kind: s.Kind, Left: s.Left, Right: s.Right, LeftKeys: s.LeftKeys, RightKeys: s.RightKeys, Residual: s.Residual, Out: s.Out}
}

func (s *TemporalSpec) check() error {
	if s.Kind != Inner && s.Kind != LeftOuter {
		return fmt.Errorf("join: a temporal join is inner or left outer, not %s", s.Kind)
	}
	for side, c := range []int{s.LeftTime, s.RightTime} {
		if sc := []types.Schema{s.Left, s.Right}[side]; c < 0 || c >= len(sc) || !sc[c].Type.IsTimestamp() {
			return fmt.Errorf("join: temporal time column %d of the %s side is no timestamp", c, exec.Side(side))
		}
	}
	return s.regular().check()
}

// State names of the temporal join: the pending left rows by time | join
// key | row key (value: copies); the right versions by join key | time
// (value: a live or deletion flag, then the row key); and the versions
// that may make older ones obsolete by time | join key.
const (
	pendingName  = "left"
	versionsName = "right"
	obsoleteName = "right-time"
)

// Version flags: a version is a row, or a deletion that ends the one
// before.
const (
	live    byte = 0
	deleted byte = 1
)

// TemporalJoin is the event-time temporal join operator (exec.TwoInput):
// see the package documentation.
type TemporalJoin struct {
	spec TemporalSpec
	keyed

	batchSize      int
	keyEnc, rowEnc [2]memseg.KeyEncoder
	keys, all      [2][]int
	keyTypes       []memseg.Type // the left side's key types
	out, cands     *rows
	residual       *expr.Program
	ectx           *expr.Ctx

	// wm is the combined watermark: left rows before it have been
	// joined. minLeft and minObsolete are lower bounds of the times of
	// the pending rows and of the obsolete index, so that a watermark
	// that finds nothing costs no scan.
	wm, minLeft, minObsolete int64

	arena []byte
	due   []dueRow
	gone  [][]byte
	jks   [][]byte
	buf   []byte
	ik    []byte
	val   []byte
	scr   []byte
}

// dueRow is a left row being joined: its row key, its version's row key
// (empty: none) and its copies.
type dueRow struct {
	left, right span
	count       uint64
}

// NewTemporal checks spec and returns the operator.
func NewTemporal(spec TemporalSpec) (*TemporalJoin, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	j := &TemporalJoin{spec: spec}
	j.keys = [2][]int{spec.LeftKeys, spec.RightKeys}
	for side, sc := range []types.Schema{spec.Left, spec.Right} {
		for i := range sc {
			j.all[side] = append(j.all[side], i)
		}
	}
	for _, k := range spec.LeftKeys {
		t, _ := memseg.TypeOf(spec.Left[k].Type.Arrow())
		j.keyTypes = append(j.keyTypes, t)
	}
	var err error
	j.residual, err = spec.regular().program()
	return j, err
}

// Open implements exec.Opener.
func (j *TemporalJoin) Open(ctx *exec.TaskContext) error {
	j.batchSize = ctx.BatchSize
	j.out = newRows(ctx.Alloc, j.spec.Out, j.spec.Left, j.spec.Right)
	j.ectx = &expr.Ctx{Alloc: ctx.Alloc, Now: ctx.Now}
	if j.residual != nil {
		j.cands = newRows(ctx.Alloc, append(j.spec.Left[:len(j.spec.Left):len(j.spec.Left)], j.spec.Right...), j.spec.Left, j.spec.Right)
	}
	j.wm = types.MinWatermark
	// Restored state may hold any time: the first watermark looks.
	j.minLeft, j.minObsolete = math.MinInt64, math.MinInt64
	j.uid, j.fingerprint = j.spec.UID, j.spec.Fingerprint()
	return j.open(ctx, func(name string) bool {
		return name == pendingName || name == versionsName || name == obsoleteName
	})
}

// Process implements exec.Operator; batches come through ProcessInput.
func (j *TemporalJoin) Process(arrow.RecordBatch, exec.Emitter) error {
	return errors.New("temporal join: a batch without its input side")
}

func (j *TemporalJoin) at(s span) []byte { return j.arena[s.off:s.end:s.end] }

// ProcessInput implements exec.TwoInput: a left row waits for the
// watermark to pass its time; a right row is a version of its key.
func (j *TemporalJoin) ProcessInput(s exec.Side, b arrow.RecordBatch, out exec.Emitter) error {
	side := int(s)
	if err := j.keyEnc[side].Reset(b, j.keys[side]); err != nil {
		return err
	}
	if err := j.rowEnc[side].Reset(b, j.all[side]); err != nil {
		return err
	}
	ts := b.Column([2]int{j.spec.LeftTime, j.spec.RightTime}[side]).(*array.Timestamp)
	j.arena, j.due = j.arena[:0], j.due[:0]
	for r := range int(b.NumRows()) {
		kind := exec.KindOf(b, r)
		var err error
		if side == 0 {
			err = j.left(kind, b, ts, r, out)
		} else {
			err = j.right(kind, b, ts, r)
		}
		if err != nil {
			return err
		}
	}
	if err := j.emitDue(out); err != nil {
		return err
	}
	if err := j.out.flush(out); err != nil {
		return err
	}
	return j.writes.Commit()
}

// left keeps a left row until the watermark passes its time. A row with
// a NULL key or time matches nothing: an outer join emits it padded at
// once. A row already behind the watermark (an input whose late rows no
// source drops) is joined at once, with the versions still kept.
func (j *TemporalJoin) left(kind exec.RowKind, b arrow.RecordBatch, ts *array.Timestamp, r int, out exec.Emitter) error {
	if kind != exec.Insert {
		return fmt.Errorf("temporal join: left row of kind %s (it takes insertions only)", kind)
	}
	if ts.IsNull(r) || nullKey(b, j.keys[0], r) {
		if j.spec.Kind == LeftOuter {
			j.buf = j.rowEnc[0].Append(j.buf[:0], r)
			return j.out.add(exec.Insert, j.buf, nil)
		}
		return nil
	}
	t := int64(ts.Value(r))
	j.ik = j.keyEnc[0].Append(j.ik[:0], r)
	jk := j.ik
	kg := j.kg(jk)
	if t < j.wm {
		return j.join(kg, t, jk, j.rowEnc[0].Append(nil, r), 1)
	}
	j.buf = memseg.AppendInt64(j.buf[:0], t, memseg.Order{})
	j.buf = append(j.buf, jk...)
	j.buf = j.rowEnc[0].Append(j.buf, r)
	count := uint64(0)
	if v, ok, err := j.writes.Get(j.uid, kg, pendingName, j.buf); err != nil {
		return err
	} else if ok {
		if count, _, err = counts(v); err != nil {
			return err
		}
	}
	j.writes.Set(j.uid, kg, pendingName, j.buf, putCounts(nil, count+1, 0))
	j.minLeft = min(j.minLeft, t)
	return j.commitSome()
}

// right stores a version: an insertion or update-after is the row valid
// from its time, a deletion ends the version before it at its time, and
// an update-before is skipped (its update-after starts the next version;
// Flink's temporal join asks its right input for updates-after only). A
// version at the time of an earlier one replaces it, as in Flink.
func (j *TemporalJoin) right(kind exec.RowKind, b arrow.RecordBatch, ts *array.Timestamp, r int) error {
	if kind == exec.UpdateBefore || ts.IsNull(r) || nullKey(b, j.keys[1], r) {
		return nil
	}
	t := int64(ts.Value(r))
	j.buf = j.keyEnc[1].Append(j.buf[:0], r)
	n := len(j.buf)
	kg := j.kg(j.buf)
	j.buf = memseg.AppendInt64(j.buf, t, memseg.Order{})
	flag := live
	if kind == exec.Delete {
		flag = deleted
	}
	j.val = j.rowEnc[1].Append(append(j.val[:0], flag), r)
	j.writes.Set(j.uid, kg, versionsName, j.buf, j.val)
	j.ik = append(append(j.ik[:0], j.buf[n:]...), j.buf[:n]...)
	j.writes.Set(j.uid, kg, obsoleteName, j.ik, nil)
	j.minObsolete = min(j.minObsolete, t)
	return j.commitSome()
}

// join queues count copies of the left row mine, of time t and join key
// jk, with the version of jk valid at t.
func (j *TemporalJoin) join(kg uint16, t int64, jk, mine []byte, count uint64) error {
	d := dueRow{left: span{off: len(j.arena)}, count: count}
	j.arena = append(j.arena, mine...)
	d.left.end = len(j.arena)
	var found []byte
	err := j.writes.ScanPrefix(j.uid, kg, versionsName, jk, func(key, value []byte) error {
		vt, _, _, err := memseg.DecodeInt64(key[len(jk):], memseg.Order{})
		if err != nil {
			return err
		}
		if vt > t {
			return errStop
		}
		found = append(found[:0], value...)
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if len(found) > 1 && found[0] == live {
		d.right.off = len(j.arena)
		j.arena = append(j.arena, found[1:]...)
		d.right.end = len(j.arena)
	}
	j.due = append(j.due, d)
	return nil
}

// emitDue evaluates the residual condition over the queued rows that
// have a version, and emits them: joined, padded (a LEFT join's rows
// without a version that passes), or not at all.
func (j *TemporalJoin) emitDue(out exec.Emitter) error {
	if len(j.due) == 0 {
		return nil
	}
	if j.residual != nil {
		var with []int
		for i, d := range j.due {
			if d.right != (span{}) {
				with = append(with, i)
				if err := j.cands.add(exec.Insert, j.at(d.left), j.at(d.right)); err != nil {
					return err
				}
			}
		}
		if len(with) > 0 {
			b := j.cands.batch()
			mask, err := j.residual.Eval(j.ectx, b)
			b.Release()
			if err != nil {
				return fmt.Errorf("join condition: %w", err)
			}
			m := mask.(*array.Boolean)
			for k, i := range with {
				if !m.IsValid(k) || !m.Value(k) {
					j.due[i].right = span{}
				}
			}
			mask.Release()
		}
	}
	for _, d := range j.due {
		var right []byte
		if d.right != (span{}) {
			right = j.at(d.right)
		} else if j.spec.Kind != LeftOuter {
			continue
		}
		if err := j.out.repeat(exec.Insert, j.at(d.left), right, d.count, j.batchSize, out); err != nil {
			return err
		}
	}
	j.arena, j.due = j.arena[:0], j.due[:0]
	return nil
}

// OnWatermark implements exec.WatermarkHandler: the combined watermark
// joins the left rows before it, then drops the versions no row still to
// come can need.
func (j *TemporalJoin) OnWatermark(wm int64, out exec.Emitter) error {
	if wm <= j.wm {
		return nil
	}
	j.wm = wm
	if err := j.fire(out); err != nil {
		return err
	}
	if err := j.clean(); err != nil {
		return err
	}
	if err := j.out.flush(out); err != nil {
		return err
	}
	return j.writes.Commit()
}

// fire joins the pending left rows before the watermark, key group by
// key group, in time order.
func (j *TemporalJoin) fire(out exec.Emitter) error {
	if j.minLeft >= j.wm {
		return nil
	}
	next := int64(math.MaxInt64)
	for kg := j.lo; kg <= j.hi; kg++ {
		j.gone = j.gone[:0]
		err := j.writes.ScanPrefix(j.uid, uint16(kg), pendingName, nil, func(key, _ []byte) error {
			t, _, _, err := memseg.DecodeInt64(key, memseg.Order{})
			if err != nil {
				return err
			}
			if t >= j.wm {
				next = min(next, t)
				return errStop
			}
			j.gone = append(j.gone, append([]byte(nil), key...))
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		for _, key := range j.gone {
			if err := j.fireRow(uint16(kg), key); err != nil {
				return err
			}
		}
		if err := j.emitDue(out); err != nil {
			return err
		}
	}
	j.minLeft = next
	return nil
}

// fireRow joins the pending row whose key is key and drops it.
func (j *TemporalJoin) fireRow(kg uint16, key []byte) error {
	t, _, rest, err := memseg.DecodeInt64(key, memseg.Order{})
	if err != nil {
		return err
	}
	row := rest
	for _, kt := range j.keyTypes {
		if row, err = memseg.DecodeColumn(nil, kt, memseg.Order{}, row, &j.scr); err != nil {
			return err
		}
	}
	v, ok, err := j.writes.Get(j.uid, kg, pendingName, key)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: temporal join pending row vanished", memseg.ErrCorrupt)
	}
	count, _, err := counts(v)
	if err != nil {
		return err
	}
	j.writes.Delete(j.uid, kg, pendingName, key)
	return j.join(kg, t, rest[:len(rest)-len(row)], row, count)
}

// clean drops, for each key with a version at or before the watermark
// newer than its others, the versions before the latest one there: every
// left row still to come is at or after the watermark (its source drops
// the late ones), so it joins that version or a later one. A deletion
// left as the latest goes too, having no version before it to end.
func (j *TemporalJoin) clean() error {
	if j.minObsolete >= j.wm {
		return nil
	}
	next := int64(math.MaxInt64)
	for kg := j.lo; kg <= j.hi; kg++ {
		j.gone, j.jks = j.gone[:0], j.jks[:0]
		err := j.writes.ScanPrefix(j.uid, uint16(kg), obsoleteName, nil, func(key, _ []byte) error {
			t, _, rest, err := memseg.DecodeInt64(key, memseg.Order{})
			if err != nil {
				return err
			}
			if t >= j.wm {
				next = min(next, t)
				return errStop
			}
			j.gone = append(j.gone, append([]byte(nil), key...))
			j.jks = append(j.jks, append([]byte(nil), rest...))
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
		for _, key := range j.gone {
			j.writes.Delete(j.uid, uint16(kg), obsoleteName, key)
		}
		// Each key once, though several of its versions may be listed.
		slices.SortFunc(j.jks, bytes.Compare)
		for _, jk := range slices.CompactFunc(j.jks, bytes.Equal) {
			if err := j.cleanKey(uint16(kg), jk); err != nil {
				return err
			}
		}
	}
	j.minObsolete = next
	return nil
}

// cleanKey drops jk's versions before its latest one before the
// watermark, and that one if it is a deletion.
func (j *TemporalJoin) cleanKey(kg uint16, jk []byte) error {
	var old [][]byte
	var lastDeleted bool
	err := j.writes.ScanPrefix(j.uid, kg, versionsName, jk, func(key, value []byte) error {
		t, _, _, err := memseg.DecodeInt64(key[len(jk):], memseg.Order{})
		if err != nil {
			return err
		}
		if t >= j.wm {
			return errStop
		}
		old = append(old, append([]byte(nil), key...))
		lastDeleted = len(value) > 0 && value[0] == deleted
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if len(old) == 0 {
		return nil
	}
	if !lastDeleted {
		old = old[:len(old)-1]
	}
	for _, key := range old {
		j.writes.Delete(j.uid, kg, versionsName, key)
	}
	return nil
}

// Held implements exec.WatermarkHolder: the rows a watermark wm joins are
// before it, so the output's watermark is wm less a millisecond, and no
// window after the join finds one of them late.
func (j *TemporalJoin) Held(wm int64) int64 {
	if wm == types.MaxWatermark || wm == types.MinWatermark {
		return wm
	}
	return wm - 1
}

// Snapshot implements exec.Snapshotter.
func (j *TemporalJoin) Snapshot(id int64) (exec.OperatorSnapshot, error) { return j.snapshot(id) }

// Close implements exec.Closer.
func (j *TemporalJoin) Close() error {
	for _, r := range []*rows{j.out, j.cands} {
		if r != nil {
			r.release()
		}
	}
	return j.close()
}
