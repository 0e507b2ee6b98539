package rank

import (
	"bytes"
	"errors"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
)

// Func is the ranking function of a Top-N outside windows, Flink's
// RankType.
type Func uint8

// The ranking functions.
const (
	// RowNumber numbers a partition's rows 1, 2, 3, ... (TopN).
	RowNumber Func = iota
	// Rank gives rows that tie on the ORDER BY the same number, and the
	// next row the number of rows before it plus one: 1, 1, 3.
	Rank
	// DenseRank gives ties the same number and the next row the next
	// number: 1, 1, 2.
	DenseRank
)

// String is the function as Flink's EXPLAIN names it.
func (f Func) String() string { return [...]string{"ROW_NUMBER", "RANK", "DENSE_RANK"}[f] }

// Ranked is a Top-N by RANK() or DENSE_RANK() outside windows: of each
// partition, the rows ranked Start..End, kept up to date as rows come
// and go, as a TopN keeps them (same state, same strategies). Rows that
// tie on the ORDER BY share a rank, so a partition can have more than End
// rows in its range; the other columns only order them (and so the
// changes of one input row), never their ranks.
//
// Each input row reads its partition's rows up to the first of rank End
// + 2 (a retraction moves later rows up by one rank at most), applies the
// change, and emits the difference between the ranked rows before and
// after: with the rank selected, -U/+U for a row whose rank changed, +I
// for a row that came into the range and -D for one that left it;
// without, +I and -D. With AppendFast (insert-only input) a row ranked
// beyond End can never come back, so each partition keeps the rows
// ranked up to End.
type Ranked struct {
	TopN
	beforeRank, afterRank []int64
}

// NewRanked checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewRanked(spec Spec) (*Ranked, error) {
	if spec.Func == RowNumber {
		return nil, errors.New("top-n: ROW_NUMBER is a TopN")
	}
	t, err := NewTopN(spec)
	if err != nil {
		return nil, err
	}
	return &Ranked{TopN: *t}, nil
}

// Process implements exec.Operator, as TopN's (whose Open it takes: the
// same state, read and written through the store's indexed batch).
func (t *Ranked) Process(b arrow.RecordBatch, out exec.Emitter) error {
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

// ranker numbers a partition's entries in order.
type ranker struct {
	f          Func
	group      []byte // the ORDER BY prefix of the current entry
	rows, rank int64
}

// next returns the rank of the entry with key k and count copies, the
// next in order.
func (r *ranker) next(k []byte, prefix int, count uint64) int64 {
	if r.rank == 0 || !bytes.Equal(k[:prefix], r.group) {
		r.group = append(r.group[:0], k[:prefix]...)
		if r.f == DenseRank {
			r.rank++
		} else {
			r.rank = r.rows + 1
		}
	}
	r.rows += int64(count)
	return r.rank
}

// change applies one row, key (its partition the first p bytes), to its
// partition, as TopN.change, by rank.
func (t *Ranked) change(key []byte, p int, retract bool, out exec.Emitter) error {
	part := key[:p]
	kg := t.state.group(part)
	w := t.state.writes
	uid := t.spec.UID
	if err := t.expire(kg, part); err != nil {
		return err
	}
	t.forget()
	rk := ranker{f: t.spec.Func}
	complete := true
	err := w.ScanPrefix(uid, kg, rowsName, part, func(k, v []byte) error {
		c, err := count(v)
		if err != nil {
			return err
		}
		prefix, err := t.key.Ordered(k)
		if err != nil {
			return err
		}
		if rk.next(k, prefix, c) > t.spec.End+1 {
			complete = false
			return errEnough
		}
		t.ents = append(t.ents, t.newEntry(k, c, noRef))
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	i, found := slices.BinarySearchFunc(t.ents, key, func(e entry, k []byte) int { return bytes.Compare(t.at(e.span), k) })
	// Past the entries read, a row that does not tie with the last of
	// them ranks beyond End + 1 (the scan stopped at such a row, and the
	// scan reads the whole of every group it reads): it is not in the
	// range before or after the change, and nothing it does moves a row
	// that is.
	beyond := !found && i == len(t.ents) && !complete
	if beyond && len(t.ents) > 0 {
		tie, err := t.ties(key, t.at(t.ents[len(t.ents)-1].span))
		if err != nil {
			return err
		}
		beyond = !tie
	}
	var n uint64
	switch {
	case found:
		n = t.ents[i].count
	case beyond:
		v, ok, err := w.Get(uid, kg, rowsName, key)
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
			return nil // never kept: nothing of it was emitted
		}
		t.touch(kg, part)
		switch {
		case n == 1:
			w.Delete(uid, kg, rowsName, key)
		default:
			w.Set(uid, kg, rowsName, key, t.countValue(n-1))
		}
		if !found {
			return t.state.commitSome()
		}
	} else {
		if beyond && t.spec.Strategy == AppendFast {
			return nil // ranked beyond End, for good
		}
		w.Set(uid, kg, rowsName, key, t.countValue(n+1))
		if beyond {
			t.touch(kg, part)
			return t.state.commitSome()
		}
	}
	t.before, t.beforeRank = t.ranked(t.before[:0], t.beforeRank[:0])
	switch {
	case retract:
		if t.ents[i].count--; t.ents[i].count == 0 {
			t.ents = slices.Delete(t.ents, i, i+1)
		}
	case found:
		t.ents[i].count++
	default:
		t.ents = slices.Insert(t.ents, i, t.newEntry(key, 1, exec.InputRow(t.ttl.row)))
	}
	if !retract && t.spec.Strategy == AppendFast {
		if err := t.trimRanked(kg); err != nil {
			return err
		}
	}
	if !retract && (t.spec.Strategy != AppendFast || i < len(t.ents)) {
		// Not a row that AppendFast trimmed at once: the partition
		// changed.
		t.touch(kg, part)
	}
	t.after, t.afterRank = t.ranked(t.after[:0], t.afterRank[:0])
	t.emitRanked()
	if err := t.out.flushFull(out); err != nil {
		return err
	}
	return t.state.commitSome()
}

// ranked appends the rows of the partition's entries ranked 1..End, in
// order, and their ranks.
func (t *Ranked) ranked(dst []span, ranks []int64) ([]span, []int64) {
	rk := ranker{f: t.spec.Func}
	for _, e := range t.ents {
		k := t.at(e.span)
		prefix, err := t.key.Ordered(k)
		if err != nil {
			break // read and checked when scanned
		}
		r := rk.next(k, prefix, e.count)
		if r > t.spec.End {
			break
		}
		for range e.count {
			dst, ranks = append(dst, e.span), append(ranks, r)
		}
	}
	return dst, ranks
}

// trimRanked drops, for AppendFast, the entries an insertion pushed
// beyond rank End: insertions only push rows down, so they never come
// back.
func (t *Ranked) trimRanked(kg uint16) error {
	rk := ranker{f: t.spec.Func}
	for j, e := range t.ents {
		k := t.at(e.span)
		prefix, err := t.key.Ordered(k)
		if err != nil {
			return err
		}
		if rk.next(k, prefix, e.count) > t.spec.End {
			for _, gone := range t.ents[j:] {
				t.state.writes.Delete(t.spec.UID, kg, rowsName, t.at(gone.span))
			}
			t.ents = t.ents[:j]
			return nil
		}
	}
	return nil
}

// emitRanked emits the difference between the rows ranked Start..End
// before and after a change. Both lists are in key order, so a merge
// pairs the rows they share.
func (t *Ranked) emitRanked() {
	before, bRank := t.inRange(t.before, t.beforeRank)
	after, aRank := t.inRange(t.after, t.afterRank)
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
			t.out.addRef(exec.Delete, t.ref(before[i]), bRank[i])
			i++
		case c > 0:
			t.out.addRef(exec.Insert, t.ref(after[j]), aRank[j])
			j++
		default:
			if t.spec.RowNum && bRank[i] != aRank[j] {
				t.out.addRef(exec.UpdateBefore, t.ref(before[i]), bRank[i])
				t.out.addRef(exec.UpdateAfter, t.ref(after[j]), aRank[j])
			}
			i, j = i+1, j+1
		}
	}
}

// inRange drops the rows ranked before Start.
func (t *Ranked) inRange(rows []span, ranks []int64) ([]span, []int64) {
	k := 0
	for k < len(ranks) && ranks[k] < t.spec.Start {
		k++
	}
	return rows[k:], ranks[k:]
}

// ties reports whether rows a and b of a partition tie on the ORDER BY.
func (t *Ranked) ties(a, b []byte) (bool, error) {
	pa, err := t.key.Ordered(a)
	if err != nil {
		return false, err
	}
	pb, err := t.key.Ordered(b)
	return err == nil && bytes.Equal(a[:pa], b[:pb]), err
}
