package rank

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/memseg"
	"github.com/strandsql/strand/state"
)

// topnRows names the Top-N's state: one entry per buffered row, key
// window_end (sign-flipped big-endian, so windows sort in time order) and
// the row's arrival number, value the row's sort key. All of it is in key
// group 0: the operator runs at parallelism 1.
const topnRows = "rows"

// commitEvery bounds the writes a Top-N keeps in its Go-heap batch.
const commitEvery = 1 << 14

// openState gives the Top-N a local state store and, on a restore, buffers
// the rows the checkpoint holds again.
func (t *WindowTopN) openState(ctx *exec.TaskContext) error {
	cp := ctx.Checkpoint
	t.maxPar = ctx.MaxParallelism
	dir := filepath.Join(cp.WorkDir, fmt.Sprintf("%s-%d", t.spec.UID, ctx.Subtask))
	if err := cp.FS.RemoveAll(dir); err != nil {
		return err
	}
	store, err := state.Open(cp.FS, dir)
	if err != nil {
		return err
	}
	t.store, t.writes = store, store.NewBatch()
	if t.log, err = memseg.NewSortBuffer(t.mem, nil); err != nil {
		return err
	}
	rv, err := ctx.Restored(t.spec.UID, t.spec.Fingerprint(), 0, t.maxPar-1)
	if err != nil {
		return err
	}
	if rv == nil {
		return nil
	}
	err = rv.Scan(topnRows, func(_ uint16, _ string, key, value []byte) error {
		if len(key) != 16 {
			return fmt.Errorf("%w: top-n row key of %d bytes", memseg.ErrCorrupt, len(key))
		}
		end := int64(binary.BigEndian.Uint64(key) ^ 1<<63)
		if e, err := windowEnd(value); err != nil || e != end {
			return fmt.Errorf("%w: top-n row of window %d does not decode (%v)", memseg.ErrCorrupt, end, err)
		}
		t.pend(end)
		if err := t.add(value); err != nil {
			return err
		}
		t.seq = max(t.seq, binary.BigEndian.Uint64(key[8:])+1)
		return t.put(key, value)
	})
	if err != nil {
		return err
	}
	return t.commit()
}

// logRow logs a buffered row for the store. A full log is written out
// first; a row that does not fit even an empty one is written directly.
func (t *WindowTopN) logRow(key []byte) error {
	err := t.log.Add(key, nil)
	if !errors.Is(err, memseg.ErrNoMemory) {
		return err
	}
	if err := t.flushLog(); err != nil {
		return err
	}
	if err := t.log.Add(key, nil); !errors.Is(err, memseg.ErrNoMemory) {
		return err
	}
	end, err := windowEnd(key)
	if err != nil {
		return err
	}
	return t.write(end, key)
}

// flushLog writes the logged rows of windows that have not fired to the
// store's batch, and empties the log, giving its memory back.
func (t *WindowTopN) flushLog() error {
	for it := t.log.Iter(); it.Next(); {
		key := it.Key()
		end, err := windowEnd(key)
		if err != nil {
			return err
		}
		if end-1 <= t.wm {
			continue
		}
		if err := t.write(end, key); err != nil {
			return err
		}
	}
	t.log.Release()
	return nil
}

// write records a buffered row of window end.
func (t *WindowTopN) write(end int64, key []byte) error {
	var k [16]byte
	binary.BigEndian.PutUint64(k[:], uint64(end)^1<<63)
	binary.BigEndian.PutUint64(k[8:], t.seq)
	t.seq++
	return t.put(k[:], key)
}

func (t *WindowTopN) put(key, value []byte) error {
	t.writes.Set(t.spec.UID, 0, topnRows, key, value)
	if t.unsent++; t.unsent >= commitEvery {
		return t.commit()
	}
	return nil
}

// forget records that window end has fired: its rows go, as one range
// deletion.
func (t *WindowTopN) forget(end int64) {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(end)^1<<63)
	t.writes.DeletePrefix(t.spec.UID, 0, topnRows, k[:])
	t.unsent++
}

func (t *WindowTopN) commit() error {
	t.unsent = 0
	if err := t.writes.Commit(); err != nil {
		return fmt.Errorf("top-n: %w", err)
	}
	return nil
}

// Snapshot implements Snapshotter: the store holds exactly the buffered
// rows once the pending writes are committed.
func (t *WindowTopN) Snapshot(id int64) (exec.OperatorSnapshot, error) {
	sn := exec.OperatorSnapshot{UID: t.spec.UID, Fingerprint: t.spec.Fingerprint(), KeyGroupHi: max(t.maxPar, 1) - 1}
	if t.store == nil {
		return sn, nil
	}
	if err := t.flushLog(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	if err := t.commit(); err != nil {
		return exec.OperatorSnapshot{}, err
	}
	st, err := t.store.Snapshot(id)
	if err != nil {
		return exec.OperatorSnapshot{}, err
	}
	sn.State = st
	return sn, nil
}
