package join

import (
	"bytes"
	"fmt"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// totalsName is the state of a null-aware anti join's right-side counts,
// under key totalsKey in its first key group.
const totalsName = "totals"

var totalsKey = []byte("right")

// nullMarker is the first byte of a NULL key column's encoding: a join
// key of one column starting with it is NULL.
var nullMarker = memseg.AppendNull(nil, memseg.Order{})[0]

// visible reports whether a null-aware anti join shows a left row whose
// key is NULL (null) or has degree right rows equal to it, when the right
// side has rows rows, nulls of them with a NULL key: x NOT IN (SELECT y)
// is TRUE for every x over no rows, and otherwise only for a non-NULL x
// that no y equals when no y is NULL (x <> NULL is never TRUE).
func visible(rows, nulls uint64, null bool, degree uint64) bool {
	return rows == 0 || !null && nulls == 0 && degree == 0
}

// nullAware is a row's effect on a null-aware anti join. Both sides keep
// their rows, NULL keys included (under the NULL key's encoding), and
// the right side's counts say what every left row's visibility depends
// on beyond its own matches. A right row that changes whether the right
// side is empty, or whether it holds a NULL key, changes the visibility
// of rows of every key: the left side's rows are then all looked at again
// (rescan), a full scan that happens only at those changes.
func (j *Join) nullAware(side int, kind exec.RowKind, r int, out exec.Emitter) error {
	mine, jk := j.at(j.rkeys[r]), j.at(j.enc[r])
	null := j.jkeys[r] == (span{})
	kg := j.kg(jk)
	j.buf = append(append(j.buf[:0], jk...), mine...)
	own := j.buf
	count, _, at, ok, exists, err := j.get(side, kg, own, len(jk))
	if err != nil {
		return err
	}
	accumulate := !kind.Retracts()
	if !accumulate && !ok {
		return nil // a retraction of a row never stored: nothing of it was emitted
	}
	j.count(accumulate, exists, count)
	matches := uint64(0)
	for c := j.first[r]; c < j.first[r+1]; c++ {
		matches += j.cand[c].count
	}
	delta := 1
	if !accumulate {
		delta = -1
	}
	if err := j.write(side, kg, own, len(jk), accumulate, at, count, matches); err != nil {
		return err
	}
	if side == 0 {
		if visible(j.rows, j.nulls, null, matches) {
			if err := j.emit(0, kind, mine, nil, 1, out); err != nil {
				return err
			}
		}
		return j.commitSome()
	}
	rows, nulls := j.rows, j.nulls
	j.rows = uint64(int64(j.rows) + int64(delta))
	if null {
		j.nulls = uint64(int64(j.nulls) + int64(delta))
	}
	j.writes.Set(j.spec.UID, uint16(j.lo), totalsName, totalsKey, putCounts(nil, j.rows, j.nulls))
	global := (rows == 0) != (j.rows == 0) || (nulls == 0) != (j.nulls == 0)
	// The left rows of this key gain or lose a match; they show the
	// change themselves when nothing else changes and no NULL hides them.
	show := !global && j.nulls == 0
	for c := j.first[r]; c < j.first[r+1]; c++ {
		if err := j.recount(side, kg, jk, j.at(j.cand[c].span), delta, exec.Delete, exec.Insert, show, out); err != nil {
			return err
		}
	}
	if global {
		if null {
			jk = nil // a NULL key matched no left row
		}
		if err := j.rescan(rows, nulls, jk, delta, out); err != nil {
			return err
		}
	}
	return j.commitSome()
}

// rescan compares every left row's visibility under the right side's
// counts before a right row's change (rows, nulls; the row's key jk, nil
// if NULL, gave its left rows delta matches) with its visibility now, and
// emits the difference: the row's copies retracted or inserted.
func (j *Join) rescan(rows, nulls uint64, jk []byte, delta int, out exec.Emitter) error {
	kt, _ := memseg.TypeOf(j.spec.Left[j.spec.LeftKeys[0]].Type.Arrow()) // Spec.check has vetted it
	// The store holds the rows once the cache has written them back.
	if err := j.cache.WriteBack(); err != nil {
		return err
	}
	for kg := j.lo; kg <= j.hi; kg++ {
		err := j.writes.ScanPrefix(j.spec.UID, uint16(kg), names[0], nil, func(key, value []byte) error {
			_, _, rest, err := state.Split(value)
			if err != nil {
				return err
			}
			count, degree, err := counts(rest)
			if err != nil {
				return err
			}
			row, err := memseg.DecodeColumn(nil, kt, memseg.Order{}, key, &j.scratch)
			if err != nil {
				return err
			}
			null := key[0] == nullMarker
			before := degree
			if jk != nil && bytes.HasPrefix(key, jk) {
				before = uint64(int64(degree) - int64(delta))
			}
			was, is := visible(rows, nulls, null, before), visible(j.rows, j.nulls, null, degree)
			switch {
			case was && !is:
				return j.emit(0, exec.Delete, row, nil, count, out)
			case is && !was:
				return j.emit(0, exec.Insert, row, nil, count, out)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// loadTotals reads the right side's counts back after a restore.
func (j *Join) loadTotals() error {
	v, ok, err := j.writes.Get(j.spec.UID, uint16(j.lo), totalsName, totalsKey)
	if err != nil || !ok {
		return err
	}
	if j.rows, j.nulls, err = counts(v); err != nil {
		return fmt.Errorf("join totals: %w", err)
	}
	return nil
}
