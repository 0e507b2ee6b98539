package rank

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec"
	"github.com/strandsql/strand/state"
)

// touchedName names a Top-N's TTL stamps: with a state TTL, an entry per
// partition, key the partition key, value the stamp (state.TTL) of the
// partition's last write. Without a TTL none is written and restored ones
// are dropped, so the TTL costs nothing when it is off, and a stamp left
// from an earlier run with a TTL cannot expire a partition written since.
const touchedName = "touched"

// partitionTTL is the state TTL of a Top-N (TopN, Ranked,
// UpdateFastTopN): as Flink's rank functions keep a partition's rows in
// keyed state with OnCreateAndWrite and NeverReturnExpired, a partition
// expires ttl after its rows were last written, whole: its next row finds
// it empty and enters the Top-N as a partition's first row (+I), and
// nothing already emitted is retracted (a retraction of a row of an
// expired partition is dropped, as one of a row never kept). A row that
// changes nothing kept (one ranked beyond End with AppendFast, a
// retraction of a row never kept) does not write, so does not keep its
// partition live. Sweeps delete expired partitions (sweep), as
// state.Sweeper does the entries of the other operators.
type partitionTTL struct {
	clock     exec.TTLClock
	row       int      // the row being applied
	at        int64    // the stamp its write gives its partition
	next      int      // the next key group to sweep
	owed      int      // rows written since the last sweep
	parts     [][]byte // a sweep's partitions to change
	unstamped []bool
	val       []byte
}

// stateNames are the state names a Top-N keeps, and restores: its rows,
// more, and the partitions' stamps.
func (t *TopN) stateNames(more ...string) []string {
	return append([]string{rowsName, touchedName}, more...)
}

// openTTL starts the clock. Without a TTL it deletes the restored stamps;
// with one it gives every restored partition without a stamp (written
// without a TTL) one that says so: it is live until a sweep stamps it
// with the sweep's time, as state.Sweeper treats entries without stamps.
func (t *TopN) openTTL(ctx *exec.TaskContext) error {
	t.ttl.clock.StateTTL = t.spec.TTL
	t.ttl.clock.Open(ctx)
	w, uid := t.state.writes, t.spec.UID
	if !t.spec.TTL.TTL.On() {
		if ctx.Checkpoint == nil || ctx.Checkpoint.Restore == nil {
			return nil
		}
		for g := t.state.lo; g <= t.state.hi; g++ {
			w.DeletePrefix(uid, uint16(g), touchedName, nil)
		}
		return w.Commit()
	}
	for g := t.state.lo; g <= t.state.hi; g++ {
		kg := uint16(g)
		t.ttl.parts = t.ttl.parts[:0]
		err := w.ScanPrefix(uid, kg, rowsName, nil, func(k, _ []byte) error {
			p, err := t.key.Partition(k)
			if err != nil {
				return err
			}
			if n := len(t.ttl.parts); n == 0 || string(t.ttl.parts[n-1]) != string(k[:p]) {
				t.ttl.parts = append(t.ttl.parts, append([]byte(nil), k[:p]...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, part := range t.ttl.parts {
			if _, ok, err := w.Get(uid, kg, touchedName, part); err != nil {
				return err
			} else if !ok {
				w.Set(uid, kg, touchedName, part, []byte{0})
			}
		}
	}
	return w.Commit()
}

// bindTTL takes a batch's times, and by processing time sweeps.
func (t *TopN) bindTTL(b arrow.RecordBatch) error {
	if !t.spec.TTL.TTL.On() {
		return nil
	}
	if err := t.ttl.clock.Bind(b); err != nil {
		return err
	}
	t.ttl.owed += int(b.NumRows())
	if t.ttl.clock.TimeCol < 0 {
		return t.sweep(t.ttl.clock.SweepTime())
	}
	return nil
}

// OnWatermark implements exec.WatermarkHandler: by event time, each
// advance of the watermark sweeps expired partitions.
func (t *TopN) OnWatermark(wm int64, _ exec.Emitter) error {
	if !t.ttl.clock.Watermark(wm) {
		return nil
	}
	if err := t.sweep(wm); err != nil {
		return err
	}
	return t.state.writes.Commit()
}

// expire empties partition part, in key group kg, if it expired at the
// time of the row being applied, and sets the stamp a write to it gives;
// without a TTL it is a test the compiler inlines.
func (t *TopN) expire(kg uint16, part []byte) error {
	if !t.spec.TTL.TTL.On() {
		return nil
	}
	return t.expireTTL(kg, part)
}

func (t *TopN) expireTTL(kg uint16, part []byte) error {
	now := t.ttl.clock.At(t.ttl.row)
	t.ttl.at = now
	v, found, err := t.state.writes.Get(t.spec.UID, kg, touchedName, part)
	if err != nil || !found {
		return err
	}
	_, at, live, err := t.spec.TTL.TTL.Read(v, now)
	switch {
	case err != nil:
		return err
	case live:
		t.ttl.at = max(at, now)
		return nil
	}
	return t.drop(kg, part)
}

// touch stamps partition part as written by the row being applied.
func (t *TopN) touch(kg uint16, part []byte) {
	if t.spec.TTL.TTL.On() {
		t.touchTTL(kg, part)
	}
}

func (t *TopN) touchTTL(kg uint16, part []byte) {
	t.ttl.val = t.spec.TTL.TTL.Stamp(t.ttl.val[:0], t.ttl.at)
	t.state.writes.Set(t.spec.UID, kg, touchedName, part, t.ttl.val)
}

// drop deletes partition part: its rows, their index entries
// (UpdateFast) and its stamp.
func (t *TopN) drop(kg uint16, part []byte) error {
	w, uid := t.state.writes, t.spec.UID
	if t.spec.Strategy == UpdateFast {
		if err := t.dropKeys(kg, part); err != nil {
			return err
		}
	}
	w.DeletePrefix(uid, kg, rowsName, part)
	w.Delete(uid, kg, touchedName, part)
	return nil
}

// dropKeys deletes the index entries of partition part's rows.
func (t *TopN) dropKeys(kg uint16, part []byte) error {
	w, uid := t.state.writes, t.spec.UID
	var uks [][]byte
	err := w.ScanPrefix(uid, kg, rowsName, part, func(_, v []byte) error {
		_, uk, err := keyedCount(v)
		uks = append(uks, append([]byte(nil), uk...))
		return err
	})
	for _, uk := range uks {
		w.Delete(uid, kg, keysName, uk)
	}
	return err
}

// sweep deletes, at time now, the expired partitions of the next key
// groups: as state.Sweeper, at least one key group, and more until it has
// looked at twice as many partitions as rows came since the last sweep
// or has gone round once.
func (t *TopN) sweep(now int64) error {
	lo, hi := t.state.lo, t.state.hi
	seen := 0
	for i := 0; i <= hi-lo && (i == 0 || seen < 2*t.ttl.owed); i++ {
		if t.ttl.next < lo || t.ttl.next > hi {
			t.ttl.next = lo
		}
		n, err := t.sweepGroup(uint16(t.ttl.next), now)
		if err != nil {
			return err
		}
		t.ttl.next++
		seen += n
	}
	t.ttl.owed = 0
	return nil
}

// sweepGroup sweeps key group kg: it deletes the partitions expired at
// now, stamps those without a stamp with now, and returns how many
// partitions it looked at.
func (t *TopN) sweepGroup(kg uint16, now int64) (int, error) {
	w, uid, ttl := t.state.writes, t.spec.UID, t.spec.TTL.TTL
	t.ttl.parts, t.ttl.unstamped = t.ttl.parts[:0], t.ttl.unstamped[:0]
	seen := 0
	err := w.ScanPrefix(uid, kg, touchedName, nil, func(k, v []byte) error {
		seen++
		at, stamped, _, err := state.Split(v)
		if err != nil {
			return err
		}
		if !stamped || !ttl.Live(at, now) {
			t.ttl.parts = append(t.ttl.parts, append([]byte(nil), k...))
			t.ttl.unstamped = append(t.ttl.unstamped, !stamped)
		}
		return nil
	})
	if err != nil {
		return seen, err
	}
	for i, part := range t.ttl.parts {
		if t.ttl.unstamped[i] {
			t.ttl.val = ttl.Stamp(t.ttl.val[:0], now)
			w.Set(uid, kg, touchedName, part, t.ttl.val)
			continue
		}
		if err := t.drop(kg, part); err != nil {
			return seen, err
		}
	}
	return seen, nil
}
