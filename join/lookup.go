package join

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/exec/expr"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/types"
)

// LookupSpec is a processing-time temporal join against a bounded table
// (FOR SYSTEM_TIME AS OF l.proctime, Flink's lookup join): each left row
// joins the rows of Right of its key for which Residual is TRUE. The
// right table is read whole before any left row is joined, so the result
// is that of a join with a static table.
type LookupSpec struct {
	UID                 string
	Kind                Kind // Inner or LeftOuter
	Left, Right         types.Schema
	LeftKeys, RightKeys []int
	Residual            expr.Expr
	// Out is the output schema: Left's columns then Right's.
	Out types.Schema
}

// lookupVersion versions the lookup join's state layout.
const lookupVersion = "lookup-join/2"

// Fingerprint identifies the layout of the join's state: the right
// table's rows and the left rows waiting for it, and their keys.
func (s *LookupSpec) Fingerprint() string {
	return fmt.Sprintf("%016x", memseg.Hash([]byte(lookupVersion+"\n"+s.regular().Fingerprint())))
}

func (s *LookupSpec) regular() *Spec {
	return &Spec{UID: s.UID, Kind: s.Kind, Left: s.Left, Right: s.Right, LeftKeys: s.LeftKeys, RightKeys: s.RightKeys, Residual: s.Residual, Out: s.Out}
}

func (s *LookupSpec) check() error {
	if s.Kind != Inner && s.Kind != LeftOuter {
		return fmt.Errorf("join: a lookup join is inner or left outer, not %s", s.Kind)
	}
	return s.regular().check()
}

// State names of the lookup join: the right table's rows by join key |
// row key (value: copies), and the left rows that came before it was
// complete by sequence number | row key (no value): the sequence numbers
// start above an epoch greater than every earlier run's (the restored
// checkpoint's id + 1), so a waiting row never overwrites a restored one.
const (
	tableName   = "right"
	waitingName = "left"
)

// LookupJoin is the processing-time temporal join operator
// (exec.TwoInput): see the package documentation.
type LookupJoin struct {
	spec LookupSpec
	keyed

	alloc          memory.Allocator
	keyEnc, rowEnc [2]memseg.KeyEncoder
	keys, all      [2][]int
	keyTypes       []memseg.Type // the right side's key types
	residual       *expr.Program
	ectx           *expr.Ctx
	outSchema      *arrow.Schema

	// loaded is set once the right input has ended: the table, in
	// memory, is then complete. Its entries are sorted by join key and
	// indexed by its hash (slots); table holds their rows as columns,
	// then a row of NULLs that pads a left row without a match.
	loaded bool
	ents   []lookupEnt
	slots  []int32
	arena  []byte
	table  arrow.RecordBatch

	seq          uint64
	jk, buf, scr []byte
	lsel, rsel   []int32
	hit          []bool
	waiting      bool // rows wait in state for the table
}

// lookupEnt is a row of the table: its join key in the arena, its row in
// the table batch.
type lookupEnt struct {
	key span
	row int32
}

// NewLookup checks spec and returns the operator.
func NewLookup(spec LookupSpec) (*LookupJoin, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	j := &LookupJoin{spec: spec}
	j.keys = [2][]int{spec.LeftKeys, spec.RightKeys}
	for side, sc := range []types.Schema{spec.Left, spec.Right} {
		for i := range sc {
			j.all[side] = append(j.all[side], i)
		}
	}
	for _, k := range spec.RightKeys {
		t, _ := memseg.TypeOf(spec.Right[k].Type.Arrow())
		j.keyTypes = append(j.keyTypes, t)
	}
	var err error
	j.residual, err = spec.regular().program()
	return j, err
}

// Open implements exec.Opener.
func (j *LookupJoin) Open(ctx *exec.TaskContext) error {
	j.alloc = ctx.Alloc
	j.ectx = &expr.Ctx{Alloc: ctx.Alloc, Now: ctx.Now}
	j.outSchema = j.spec.Out.Arrow()
	j.uid, j.fingerprint = j.spec.UID, j.spec.Fingerprint()
	j.waiting = true // a restore may bring waiting rows
	if cp := ctx.Checkpoint; cp != nil && cp.Restore != nil {
		j.seq = uint64(cp.Restore.ID+1) << 40
	}
	return j.open(ctx, func(name string) bool { return name == tableName || name == waitingName })
}

// Process implements exec.Operator; batches come through ProcessInput.
func (j *LookupJoin) Process(arrow.RecordBatch, exec.Emitter) error {
	return errors.New("lookup join: a batch without its input side")
}

// ProcessInput implements exec.TwoInput: a right row goes into the
// table; a left row is joined with it once it is complete, and waits in
// state until then.
func (j *LookupJoin) ProcessInput(s exec.Side, b arrow.RecordBatch, out exec.Emitter) error {
	side := int(s)
	if err := j.keyEnc[side].Reset(b, j.keys[side]); err != nil {
		return err
	}
	if side == 0 && j.loaded {
		return j.probe(b, out)
	}
	if err := j.rowEnc[side].Reset(b, j.all[side]); err != nil {
		return err
	}
	name := tableName
	if side == 0 {
		name = waitingName
		j.waiting = true
	} else if j.loaded {
		return errors.New("lookup join: a right row after the right input ended")
	}
	for r := range int(b.NumRows()) {
		if kind := exec.KindOf(b, r); kind != exec.Insert {
			return fmt.Errorf("lookup join: %s row of kind %s (it takes insertions only)", s, kind)
		}
		// A right row with a NULL key matches nothing; a left one is
		// kept, to be emitted padded.
		if side == 1 && nullKey(b, j.keys[1], r) {
			continue
		}
		j.buf = j.keyEnc[side].Append(j.buf[:0], r)
		kg := j.kg(j.buf)
		if side == 0 {
			// A waiting row: its sequence number and row key, written
			// without reading what is there.
			j.buf = binary.BigEndian.AppendUint64(j.buf[:0], j.seq)
			j.seq++
			j.buf = j.rowEnc[0].Append(j.buf, r)
			j.writes.Set(j.uid, kg, name, j.buf, nil)
			if err := j.commitSome(); err != nil {
				return err
			}
			continue
		}
		// A row of the table: its join key, which load reads, and row
		// key, counted.
		j.buf = j.rowEnc[1].Append(j.buf, r)
		if err := j.add(kg, name, j.buf); err != nil {
			return err
		}
	}
	return j.writes.Commit()
}

// add counts one more copy of the entry key of state name.
func (j *LookupJoin) add(kg uint16, name string, key []byte) error {
	count := uint64(0)
	if v, ok, err := j.writes.Get(j.uid, kg, name, key); err != nil {
		return err
	} else if ok {
		if count, _, err = counts(v); err != nil {
			return err
		}
	}
	j.writes.Set(j.uid, kg, name, key, putCounts(nil, count+1, 0))
	return j.commitSome()
}

// OnInputWatermark implements exec.InputWatermarkHandler: the right
// input's final watermark (a bounded source sends it after its last row,
// on every channel) completes the table, which is loaded into memory,
// and the left rows waiting for it are joined. It comes before the end
// of the input, which a checkpointing job's bounded source holds back
// until the job's final checkpoint.
func (j *LookupJoin) OnInputWatermark(s exec.Side, wm int64, out exec.Emitter) error {
	if s != exec.Right || wm != types.MaxWatermark {
		return nil
	}
	return j.complete(out)
}

// EndInput implements exec.InputEnder: the end of the right input
// completes the table too, if its final watermark did not.
func (j *LookupJoin) EndInput(s exec.Side, out exec.Emitter) error {
	if s != exec.Right {
		return nil
	}
	return j.complete(out)
}

func (j *LookupJoin) complete(out exec.Emitter) error {
	if j.loaded {
		return nil
	}
	if err := j.load(); err != nil {
		return err
	}
	j.loaded = true
	return j.drain(out)
}

// load reads the subtask's table from state into memory: its rows as
// columns, and its entries sorted by join key.
func (j *LookupJoin) load() error {
	right := j.spec.Out[len(j.spec.Left):]
	tr := newRows(j.alloc, right, right, nil)
	defer tr.release()
	j.ents, j.arena = j.ents[:0], j.arena[:0]
	for kg := j.lo; kg <= j.hi; kg++ {
		err := j.writes.ScanPrefix(j.uid, uint16(kg), tableName, nil, func(key, value []byte) error {
			count, _, err := counts(value)
			if err != nil {
				return err
			}
			row := key
			for _, kt := range j.keyTypes {
				if row, err = memseg.DecodeColumn(nil, kt, memseg.Order{}, row, &j.scr); err != nil {
					return err
				}
			}
			k := span{off: len(j.arena)}
			j.arena = append(j.arena, key[:len(key)-len(row)]...)
			k.end = len(j.arena)
			for range count {
				j.ents = append(j.ents, lookupEnt{key: k, row: int32(tr.n)})
				if err := tr.add(exec.Insert, row, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := tr.add(exec.Insert, nil, nil); err != nil { // the padding row
		return err
	}
	slices.SortStableFunc(j.ents, func(a, b lookupEnt) int { return bytes.Compare(j.at(a.key), j.at(b.key)) })
	j.index()
	j.table = tr.batch()
	return nil
}

func (j *LookupJoin) at(s span) []byte { return j.arena[s.off:s.end:s.end] }

// index builds the hash index over the sorted entries: an open-addressed
// table of slots, a power of two at least twice the distinct keys, each
// 0 or 1 + the first entry of a key.
func (j *LookupJoin) index() {
	n := 2
	for n < 2*len(j.ents) {
		n *= 2
	}
	j.slots = make([]int32, n)
	mask := uint64(n - 1)
	for i, e := range j.ents {
		if i > 0 && bytes.Equal(j.at(j.ents[i-1].key), j.at(e.key)) {
			continue
		}
		h := memseg.Hash(j.at(e.key)) & mask
		for j.slots[h] != 0 {
			h = (h + 1) & mask
		}
		j.slots[h] = int32(i + 1)
	}
}

// matches returns the entries of join key jk: a probe of the hash index,
// then the run of entries of its key.
func (j *LookupJoin) matches(jk []byte) []lookupEnt {
	mask := uint64(len(j.slots) - 1)
	for h := memseg.Hash(jk) & mask; j.slots[h] != 0; h = (h + 1) & mask {
		lo := int(j.slots[h] - 1)
		if !bytes.Equal(j.at(j.ents[lo].key), jk) {
			continue
		}
		hi := lo + 1
		for hi < len(j.ents) && bytes.Equal(j.at(j.ents[hi].key), jk) {
			hi++
		}
		return j.ents[lo:hi]
	}
	return nil
}

// drain joins the left rows that waited for the table, key group by key
// group, and drops them.
func (j *LookupJoin) drain(out exec.Emitter) error {
	if !j.waiting {
		return nil
	}
	left := newRows(j.alloc, j.spec.Left, j.spec.Left, nil)
	defer left.release()
	for kg := j.lo; kg <= j.hi; kg++ {
		err := j.writes.ScanPrefix(j.uid, uint16(kg), waitingName, nil, func(key, _ []byte) error {
			if len(key) < 8 {
				return fmt.Errorf("%w: lookup join waiting row %x", memseg.ErrCorrupt, key)
			}
			return left.add(exec.Insert, key[8:], nil)
		})
		if err != nil {
			return err
		}
		j.writes.DeletePrefix(j.uid, uint16(kg), waitingName, nil)
		if left.n == 0 {
			continue
		}
		b := left.batch()
		if err := j.keyEnc[0].Reset(b, j.keys[0]); err != nil {
			b.Release()
			return err
		}
		err = j.probe(b, out)
		b.Release()
		if err != nil {
			return err
		}
	}
	j.waiting = false
	return j.writes.Commit()
}

// probe joins a batch of left rows with the table: the pairs of equal
// keys, those the residual condition accepts, and, for a LEFT join, the
// rows left without one padded. The output takes the left columns from
// the batch and the right ones from the table, a column at a time.
func (j *LookupJoin) probe(b arrow.RecordBatch, out exec.Emitter) error {
	n := int(b.NumRows())
	j.lsel, j.rsel = j.lsel[:0], j.rsel[:0]
	for r := range n {
		if nullKey(b, j.keys[0], r) {
			continue
		}
		j.jk = j.keyEnc[0].Append(j.jk[:0], r)
		for _, e := range j.matches(j.jk) {
			j.lsel = append(j.lsel, int32(r))
			j.rsel = append(j.rsel, e.row)
		}
	}
	pairs := j.pairs(b)
	if j.residual != nil && len(j.lsel) > 0 {
		mask, err := j.residual.Eval(j.ectx, pairs)
		if err != nil {
			pairs.Release()
			return fmt.Errorf("join condition: %w", err)
		}
		keep := expr.SelectTrue(mask.(*array.Boolean), nil)
		mask.Release()
		if len(keep) < len(j.lsel) {
			for i, k := range keep {
				j.lsel[i], j.rsel[i] = j.lsel[k], j.rsel[k]
			}
			j.lsel, j.rsel = j.lsel[:len(keep)], j.rsel[:len(keep)]
			pairs.Release()
			pairs = j.pairs(b)
		}
	}
	if j.spec.Kind == LeftOuter && len(j.lsel) < n {
		j.hit = slices.Grow(j.hit[:0], n)[:n]
		clear(j.hit)
		for _, l := range j.lsel {
			j.hit[l] = true
		}
		pad := int32(j.table.NumRows() - 1)
		before := len(j.lsel)
		for r := range n {
			if !j.hit[r] {
				j.lsel = append(j.lsel, int32(r))
				j.rsel = append(j.rsel, pad)
			}
		}
		if len(j.lsel) > before {
			pairs.Release()
			pairs = j.pairs(b)
		}
	}
	if pairs.NumRows() == 0 {
		pairs.Release()
		return nil
	}
	return out.Emit(pairs)
}

// pairs is the batch of the joined rows lsel[i] of b and rsel[i] of the
// table.
func (j *LookupJoin) pairs(b arrow.RecordBatch) arrow.RecordBatch {
	l := expr.Take(j.alloc, b, j.lsel)
	r := expr.Take(j.alloc, j.table, j.rsel)
	cols := append(append(make([]arrow.Array, 0, len(j.spec.Out)), l.Columns()...), r.Columns()...)
	p := array.NewRecordBatch(j.outSchema, cols, int64(len(j.lsel)))
	l.Release()
	r.Release()
	return p
}

// Snapshot implements exec.Snapshotter.
func (j *LookupJoin) Snapshot(id int64) (exec.OperatorSnapshot, error) { return j.snapshot(id) }

// Close implements exec.Closer.
func (j *LookupJoin) Close() error {
	if j.table != nil {
		j.table.Release()
		j.table = nil
	}
	return j.close()
}
