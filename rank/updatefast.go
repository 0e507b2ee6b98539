package rank

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
)

// keysName names the state of an UpdateFast Top-N's row index: key the
// row's unique key (Spec.Key, memseg's normalized key), value the row's
// topnKey, for each row among its partition's first End. Its rows
// entries hold, after their count (always 1: rows of different unique
// keys differ), the row's unique key.
const keysName = "keys"

// UpdateFastTopN is a Top-N with Flink's UpdateFast strategy
// (UpdatableTopNFunction): its input is an upsert stream, each row
// updated under a unique key that contains the partition, whose ORDER BY
// value only ever moves a row towards the top (a COUNT or MAX ordered
// descending, a MIN ascending, over an aggregate of insert-only input).
// Then a row that falls out of the first End can never come back, as
// with AppendFast, so each partition keeps its first End rows only, and
// an index from unique key to row finds the old version of an updated
// row: the update replaces it. -U rows are skipped (the +U after them
// carries the update), as Flink's upsert input has none. Rows that tie
// on the ORDER BY are ordered by their unique key, before their other
// columns: those may change in an update that keeps the ORDER BY value
// (a SUM beside the MAX ordered by), and ordered by them the row could
// move down among its ties, below rows the partition no longer keeps.
type UpdateFastTopN struct {
	TopN
	unique memseg.KeyEncoder
	uk     []byte
	old    []byte
}

// NewUpdateFast checks spec and returns the operator; it is an OpSpec's
// constructor.
func NewUpdateFast(spec Spec) (*UpdateFastTopN, error) {
	if spec.Strategy != UpdateFast || len(spec.Key) == 0 {
		return nil, errors.New("top-n: UpdateFast needs the input's unique key")
	}
	for _, p := range spec.Partition {
		if !slices.Contains(spec.Key, p) {
			return nil, fmt.Errorf("top-n: the unique key %v does not contain the partition column %d", spec.Key, p)
		}
	}
	t, err := NewTopN(spec)
	if err != nil {
		return nil, err
	}
	order := slices.Clone(spec.Order)
	for _, k := range spec.Key {
		order = append(order, SortKey{Col: k})
	}
	if t.key, err = newKey(spec.In, -1, spec.Partition, order); err != nil {
		return nil, err
	}
	return &UpdateFastTopN{TopN: *t}, nil
}

// Open implements exec.Opener.
func (t *UpdateFastTopN) Open(ctx *exec.TaskContext) error {
	t.out = newChanges(ctx.Alloc, t.key, t.spec.In, t.spec.Out(), ctx.BatchSize)
	if err := t.state.open(ctx, t.spec.UID, t.spec.Fingerprint(), t.stateNames(keysName)...); err != nil {
		return err
	}
	return t.openTTL(ctx)
}

// Process implements exec.Operator: each +I or +U row replaces its unique
// key's old version, if the partition's first rows have it, and emits
// what that changes in them.
func (t *UpdateFastTopN) Process(b arrow.RecordBatch, out exec.Emitter) error {
	if err := t.key.Bind(b); err != nil {
		return err
	}
	if err := t.unique.Reset(b, t.spec.Key); err != nil {
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
		if kinds != nil {
			switch kinds[r] {
			case exec.UpdateBefore:
				continue
			case exec.Delete:
				return errors.New("top-n: a deletion in the input of an UpdateFast Top-N")
			}
		}
		var p int
		t.buf, p = t.key.AppendSplit(t.buf[:0], r)
		t.uk = t.unique.Append(t.uk[:0], r)
		t.ttl.row = r
		if err := t.upsert(t.buf, p, out); err != nil {
			return err
		}
	}
	if err := t.out.flush(out); err != nil {
		return err
	}
	return t.state.writes.Commit()
}

// upsert applies one row, key (its partition the first p bytes), whose
// unique key is t.uk.
func (t *UpdateFastTopN) upsert(key []byte, p int, out exec.Emitter) error {
	part := key[:p]
	kg := t.state.group(part)
	w, uid := t.state.writes, t.spec.UID
	if err := t.expire(kg, part); err != nil {
		return err
	}
	old, had, err := w.Get(uid, kg, keysName, t.uk)
	if err != nil {
		return err
	}
	t.old = append(t.old[:0], old...)
	if had && bytes.Equal(t.old, key) {
		return nil // the same row again: nothing changes
	}
	t.forget()
	limit := uint64(t.spec.End) + 1
	var rows uint64
	err = w.ScanPrefix(uid, kg, rowsName, part, func(k, v []byte) error {
		c, _, err := keyedCount(v)
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
	t.before = t.ranks(t.before[:0])
	if had {
		// The old version leaves: it is among the first rows, which
		// are all the partition keeps.
		w.Delete(uid, kg, rowsName, t.old)
		if i, found := slices.BinarySearchFunc(t.ents, t.old, func(e entry, k []byte) int { return bytes.Compare(t.at(e.span), k) }); found {
			t.ents = slices.Delete(t.ents, i, i+1)
		}
	}
	i, _ := slices.BinarySearchFunc(t.ents, key, func(e entry, k []byte) int { return bytes.Compare(t.at(e.span), k) })
	if i < int(t.spec.End) || had {
		t.touch(kg, part)
	}
	if i < int(t.spec.End) {
		w.Set(uid, kg, rowsName, key, append(t.countValue(1), t.uk...))
		w.Set(uid, kg, keysName, t.uk, key)
		t.ents = slices.Insert(t.ents, i, t.newEntry(key, 1, exec.InputRow(t.ttl.row)))
	} else if had {
		// Moved out of the first rows, which a monotonic order never
		// does; it is gone for good, as Flink's.
		w.Delete(uid, kg, keysName, t.uk)
	}
	if err := t.trimKeyed(kg); err != nil {
		return err
	}
	t.after = t.ranks(t.after[:0])
	t.emit()
	if err := t.out.flushFull(out); err != nil {
		return err
	}
	return t.state.commitSome()
}

// trimKeyed keeps the partition's first End rows: a row pushed past them
// leaves the state, and the index.
func (t *UpdateFastTopN) trimKeyed(kg uint16) error {
	w, uid := t.state.writes, t.spec.UID
	for len(t.ents) > int(t.spec.End) {
		k := t.at(t.ents[len(t.ents)-1].span)
		v, ok, err := w.Get(uid, kg, rowsName, k)
		if err != nil || !ok {
			return errors.Join(err, fmt.Errorf("%w: top-n row %x without its entry", memseg.ErrCorrupt, k))
		}
		_, uk, err := keyedCount(v)
		if err != nil {
			return err
		}
		w.Delete(uid, kg, keysName, uk)
		w.Delete(uid, kg, rowsName, k)
		t.ents = t.ents[:len(t.ents)-1]
	}
	return nil
}

// keyedCount decodes an UpdateFast rows entry's value: its count and the
// row's unique key.
func keyedCount(v []byte) (uint64, []byte, error) {
	c, n := binary.Uvarint(v)
	if n <= 0 || c == 0 {
		return 0, nil, fmt.Errorf("%w: top-n entry value %x", memseg.ErrCorrupt, v)
	}
	return c, v[n:], nil
}
