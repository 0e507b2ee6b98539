package rank

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
	"github.com/strandsql/strand/types"
)

// Strategy is how a Top-N outside windows keeps its rows, chosen by the
// changelog mode of its input as Flink's RankProcessStrategy.
type Strategy uint8

// The strategies.
const (
	// AppendFast is for insert-only input: a row that falls out of a
	// partition's first End rows can never come back, so each partition
	// keeps End rows at most.
	AppendFast Strategy = iota
	// Retract is for updating input: a retraction of one of the first
	// rows lets the next one in, so every row is kept.
	Retract
	// UpdateFast is for an upsert input whose order only moves rows
	// up (UpdateFastTopN): as AppendFast, End rows per partition.
	UpdateFast
)

// String is the strategy as Flink's EXPLAIN names it.
func (s Strategy) String() string {
	return [...]string{"AppendFastStrategy", "RetractStrategy", "UpdateFastStrategy"}[s]
}

// Spec is a Top-N outside windows: ROW_NUMBER() OVER (PARTITION BY
// Partition ORDER BY Order), the rows numbered Start..End of each
// partition, kept up to date as rows come (and, with Retract, go).
type Spec struct {
	// UID identifies the operator's state.
	UID       string
	In        types.Schema
	Partition []int
	Order     []SortKey
	// Start and End are the rank range, from 1, both included.
	Start, End int64
	// RowNum appends each row's number, Start..End, as a BIGINT NOT NULL
	// column named RowName ("rownum" if empty).
	RowNum   bool
	RowName  string
	Strategy Strategy
	// Func is the ranking function: RowNumber for a TopN, Rank or
	// DenseRank for a Ranked.
	Func Func
	// Key is the input's unique key, for UpdateFast.
	Key []int
	// TTL is the state's time-to-live and clock (partitionTTL); not
	// part of the fingerprint, so a restore may change it.
	TTL exec.StateTTL
}

// Out is the schema of the rows the Top-N emits.
func (s *Spec) Out() types.Schema {
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

// topnFormat versions the state layout below.
const topnFormat = "rank/1"

// Fingerprint identifies the layout and meaning of the rows a Top-N
// keeps: their columns, partitioning and order, its strategy and, for
// AppendFast, which keeps End rows per partition, End.
func (s *Spec) Fingerprint() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s end=%d\n", topnFormat, s.Strategy, s.End)
	for _, f := range s.In {
		fmt.Fprintf(&b, "col %s\n", f.Type.Plain().Nullable())
	}
	fmt.Fprintf(&b, "part %v order %v\n", s.Partition, s.Order)
	if s.Func != RowNumber {
		fmt.Fprintf(&b, "func %s\n", s.Func)
	}
	if s.Strategy == UpdateFast {
		fmt.Fprintf(&b, "key %v ties by key\n", s.Key)
	}
	return fmt.Sprintf("rank;%016x", memseg.Hash([]byte(b.String())))
}

// rowsName names the Top-N's state: an entry per distinct row, key the
// row's topnKey (partition, order, the other columns), value how many
// copies of the row there are (uvarint).
const rowsName = "rows"

// TopN is a Top-N outside windows: see the package documentation.
type TopN struct {
	spec    Spec
	key     *topnKey
	state   keyed
	out     *changes
	buf     []byte
	arena   []byte
	ents    []entry
	before  []span
	after   []span
	gone    []span // emit's rows that left, and came
	come    []span
	scratch []byte
	// refs holds, by entry id, how the output refers to the rows of
	// the partition read (changes): the key stored when the row is
	// first emitted (noRef before), or the input row that is the row.
	refs []exec.Ref
	ttl  partitionTTL
	// cache holds a ROW_NUMBER Top-N's rows in managed memory
	// (state.Cache) when its state has no TTL; nil for Ranked and
	// UpdateFastTopN, which read and write the store directly.
	cache *state.Cache
}

// span is a part of the arena: the key of an entry, which id numbers
// (TopN.refs).
type span struct {
	off, end int
	id       int32
}

// entry is one distinct row of a partition, as the state holds it.
type entry struct {
	span
	count uint64
}

// NewTopN checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewTopN(spec Spec) (*TopN, error) {
	if spec.Start < 1 || spec.End < spec.Start {
		return nil, fmt.Errorf("top-n: rank range %d..%d", spec.Start, spec.End)
	}
	k, err := newKey(spec.In, -1, spec.Partition, spec.Order)
	if err != nil {
		return nil, err
	}
	return &TopN{spec: spec, key: k}, nil
}

// Open implements exec.Opener.
func (t *TopN) Open(ctx *exec.TaskContext) error {
	t.out = newChanges(ctx.Alloc, t.key, t.spec.In, t.spec.Out(), ctx.BatchSize)
	if err := t.state.open(ctx, t.spec.UID, t.spec.Fingerprint(), t.stateNames()...); err != nil {
		return err
	}
	if err := t.openTTL(ctx); err != nil {
		return err
	}
	if t.spec.Func == RowNumber && t.spec.Strategy != UpdateFast {
		mem := ctx.Memory
		if t.spec.TTL.TTL.On() {
			mem = nil // the TTL's expiry and sweeps rewrite rows in the store
		}
		t.cache = state.NewCache(t.state.store, t.state.writes, mem, ctx.MemoryShare, t.spec.UID, t.state.lo, t.state.hi, rowsName)
	}
	return nil
}

// Process implements exec.Operator: each row, in order, changes its
// partition's rows and emits what that changes in the partition's first
// rows.
func (t *TopN) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if err := t.key.Bind(b); err != nil {
		return err
	}
	if err := t.bindTTL(b); err != nil {
		return err
	}
	if err := t.out.bind(b); err != nil {
		return err
	}
	defer t.out.unbind()
	kinds := exec.Kinds(b)
	for r := range int(b.NumRows()) {
		var p int
		t.buf, p = t.key.AppendSplit(t.buf[:0], r)
		retract := kinds != nil && kinds[r].Retracts()
		t.ttl.row = r
		if err := t.change(t.buf, p, retract, out); err != nil {
			return err
		}
	}
	if err := t.out.flush(out); err != nil {
		return err
	}
	return t.state.writes.Commit()
}

func (t *TopN) at(s span) []byte { return t.arena[s.off:s.end:s.end] }

// noRef is the reference of a row not yet emitted.
const noRef exec.Ref = math.MinInt32

// forget empties the partition read, for the next.
func (t *TopN) forget() { t.arena, t.ents, t.refs = t.arena[:0], t.ents[:0], t.refs[:0] }

// newEntry returns an entry of the partition read, count copies of the row
// of key k, which it copies; ref is how the output refers to the row.
func (t *TopN) newEntry(k []byte, count uint64, ref exec.Ref) entry {
	e := entry{span: span{off: len(t.arena), id: int32(len(t.refs))}, count: count}
	t.arena = append(t.arena, k...)
	e.end = len(t.arena)
	t.refs = append(t.refs, ref)
	return e
}

// ref returns the output's reference of the row of s, storing its key the
// first time: a row emitted twice (-U at one number, +U at the next) is
// decoded once. The references are valid until the output flushes, which
// it does after the change (flushFull).
func (t *TopN) ref(s span) exec.Ref {
	r := t.refs[s.id]
	if r == noRef {
		r = t.out.key(t.at(s))
		t.refs[s.id] = r
	}
	return r
}

// errEnough stops a partition scan.
var errEnough = errors.New("enough rows")

// change applies one row, key (its partition the first p bytes), to its
// partition: it reads the partition's first End+1 rows, which are all the
// rows the result can need after one change, changes them as the row
// says, and emits the difference between the rows numbered Start..End
// before and after.
func (t *TopN) change(key []byte, p int, retract bool, out exec.Emitter) error {
	part := key[:p]
	kg := t.state.group(part)
	c := t.cache
	if err := t.expire(kg, part); err != nil {
		return err
	}
	t.forget()
	limit := uint64(t.spec.End) + 1
	var rows uint64
	err := c.Scan(kg, 0, part, func(k, v []byte) error {
		c, err := count(v)
		if err != nil {
			return err
		}
		t.ents = append(t.ents, t.newEntry(k, c, noRef))
		if rows += c; rows >= limit {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	complete := rows < limit
	i, found := slices.BinarySearchFunc(t.ents, key, func(e entry, k []byte) int { return bytes.Compare(t.at(e.span), k) })
	if !retract && t.spec.Strategy == AppendFast && !found && i == len(t.ents) && rows >= uint64(t.spec.End) {
		// After the first End rows, which are here: it can never be
		// among them (nor is it in the state, which keeps no more).
		return nil
	}
	var n uint64 // copies of the row the state holds
	switch {
	case found:
		n = t.ents[i].count
	case i == len(t.ents) && !complete:
		v, ok, err := c.Get(kg, 0, key, p)
		if err != nil {
			return err
		}
		if ok {
			if n, err = count(v); err != nil {
				return err
			}
		}
	}
	if retract {
		if n == 0 {
			// A retraction of a row never kept: nothing of it was
			// emitted (as the join, which emits nothing either).
			return nil
		}
		t.touch(kg, part)
		if n == 1 {
			err = c.Delete(kg, 0, key, p)
		} else {
			err = c.Set(kg, 0, key, p, t.countValue(n-1))
		}
		if err != nil {
			return err
		}
		if !found {
			return t.state.commitSome() // beyond the first rows: no change there
		}
		t.before = t.ranks(t.before[:0])
		if t.ents[i].count--; t.ents[i].count == 0 {
			t.ents = slices.Delete(t.ents, i, i+1)
		}
	} else {
		t.touch(kg, part)
		if err := c.Set(kg, 0, key, p, t.countValue(n+1)); err != nil {
			return err
		}
		t.before = t.ranks(t.before[:0])
		if found {
			t.ents[i].count++
		} else if i < len(t.ents) || complete {
			t.ents = slices.Insert(t.ents, i, t.newEntry(key, 1, exec.InputRow(t.ttl.row)))
		}
		if t.spec.Strategy == AppendFast {
			if err := t.trim(kg, p); err != nil {
				return err
			}
		}
	}
	t.after = t.ranks(t.after[:0])
	t.emit()
	if err := t.out.flushFull(out); err != nil {
		return err
	}
	return t.state.commitSome()
}

// trim keeps an AppendFast partition's first End rows: the one row an
// insertion pushed past them leaves the state.
// p is the length of the partition key.
func (t *TopN) trim(kg uint16, p int) error {
	var rows uint64
	for _, e := range t.ents {
		rows += e.count
	}
	if rows <= uint64(t.spec.End) {
		return nil
	}
	last := &t.ents[len(t.ents)-1]
	if last.count--; last.count == 0 {
		k := t.at(last.span)
		t.ents = t.ents[:len(t.ents)-1]
		return t.cache.Delete(kg, 0, k, p)
	}
	return t.cache.Set(kg, 0, t.at(last.span), p, t.countValue(last.count))
}

// ranks appends the rows numbered 1..End of the partition's entries, in
// order, to dst.
func (t *TopN) ranks(dst []span) []span {
	for _, e := range t.ents {
		for range e.count {
			if len(dst) == int(t.spec.End) {
				return dst
			}
			dst = append(dst, e.span)
		}
	}
	return dst
}

// emit emits the difference between the rows numbered Start..End before
// and after a change. With row numbers, as Flink's rank operators, each
// number whose row changed is updated: -U of the old row and +U of the
// new one, +I for a number that had no row, -D for one that has none any
// more. Without, the rows that left are deleted and those that came
// inserted.
func (t *TopN) emit() {
	lo := int(t.spec.Start) - 1
	before, after := t.before[min(lo, len(t.before)):], t.after[min(lo, len(t.after)):]
	if t.spec.RowNum {
		for r := range max(len(before), len(after)) {
			n := t.spec.Start + int64(r)
			switch {
			case r >= len(after):
				t.out.addRef(exec.Delete, t.ref(before[r]), n)
			case r >= len(before):
				t.out.addRef(exec.Insert, t.ref(after[r]), n)
			case !bytes.Equal(t.at(before[r]), t.at(after[r])):
				t.out.addRef(exec.UpdateBefore, t.ref(before[r]), n)
				t.out.addRef(exec.UpdateAfter, t.ref(after[r]), n)
			}
		}
		return
	}
	// Both are sorted: a merge finds the rows only one of them has.
	gone, come := t.gone[:0], t.come[:0]
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		c := 0
		switch {
		case i == len(before):
			c = 1
		case j == len(after):
			c = -1
		default:
			c = bytes.Compare(t.at(before[i]), t.at(after[j]))
		}
		switch {
		case c < 0:
			gone = append(gone, before[i])
			i++
		case c > 0:
			come = append(come, after[j])
			j++
		default:
			i, j = i+1, j+1
		}
	}
	t.gone, t.come = gone, come
	for _, s := range gone {
		t.out.addRef(exec.Delete, t.ref(s), 0)
	}
	for _, s := range come {
		t.out.addRef(exec.Insert, t.ref(s), 0)
	}
}

// countValue returns the value of an entry of n copies, in t.scratch, valid
// until the next call.
func (t *TopN) countValue(n uint64) []byte {
	t.scratch = binary.AppendUvarint(t.scratch[:0], n)
	return t.scratch
}

// count decodes an entry's value.
func count(v []byte) (uint64, error) {
	c, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) || c == 0 {
		return 0, fmt.Errorf("%w: top-n entry value %x", memseg.ErrCorrupt, v)
	}
	return c, nil
}

// Snapshot implements exec.Snapshotter.
func (t *TopN) Snapshot(id int64) (exec.OperatorSnapshot, error) {
	if t.cache != nil {
		if err := t.cache.WriteBack(); err != nil {
			return exec.OperatorSnapshot{}, err
		}
	}
	return t.state.snapshot(id)
}

// Close implements exec.Closer.
func (t *TopN) Close() error {
	if t.out != nil {
		t.out.release()
	}
	if t.cache != nil {
		t.cache.Release()
		t.cache = nil
	}
	return t.state.close()
}
