package state

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/strandsql/strand/memseg"
)

// TTL is the time-to-live of an operator's keyed entries (Flink's
// StateTtlConfig with OnCreateAndWrite and NeverReturnExpired): an entry
// written at time t is live while the operator's clock is before
// t + Millis, and expired from then on: a read treats it as absent and a
// sweep deletes it. Millis 0 keeps entries forever.
//
// Every value an operator with TTL support writes starts with its stamp,
// one uvarint: 0 for an entry written without a TTL, else
// zigzag(t) + 1. So the stamp costs one byte when the TTL is off, and a
// savepoint taken with one TTL restores under another, or none: an entry
// without a stamp restored under a TTL is live until a sweep stamps it
// with the sweep's time, and a stamp restored without a TTL is ignored.
// What the clock is (event time or processing time) is the operator's
// choice (exec.TTLClock); TTL only compares times.
type TTL struct {
	Millis int64
}

// On reports whether entries expire.
func (t TTL) On() bool { return t.Millis > 0 }

// Stamp appends to dst the stamp of an entry written at time at; the
// caller appends the value after it.
func (t TTL) Stamp(dst []byte, at int64) []byte {
	if !t.On() {
		return append(dst, 0)
	}
	return binary.AppendUvarint(dst, uint64(at<<1^at>>63)+1)
}

// Split returns the time a stored value was stamped at (stamped false: it
// was written without a TTL) and the value after its stamp.
func Split(v []byte) (at int64, stamped bool, rest []byte, err error) {
	u, n := binary.Uvarint(v)
	if n <= 0 {
		return 0, false, nil, fmt.Errorf("%w: state value without its TTL stamp: %x", memseg.ErrCorrupt, v)
	}
	if u == 0 {
		return 0, false, v[n:], nil
	}
	u--
	return int64(u>>1) ^ -int64(u&1), true, v[n:], nil
}

// Read returns the value of a stored entry after its stamp, the time it
// was stamped at (now for one without a stamp) and whether it is live at
// time now.
func (t TTL) Read(v []byte, now int64) (rest []byte, at int64, live bool, err error) {
	at, stamped, rest, err := Split(v)
	if err != nil {
		return nil, 0, false, err
	}
	if !stamped {
		at = now
	}
	return rest, at, !t.On() || !stamped || !t.expired(at, now), nil
}

// ReadPair is Read for an entry that a row of the other input of a join,
// at time now and with the TTL own, pairs with: the pair lives while the
// earlier of the two rows does at the later one's time, by the earlier
// row's TTL, so that whether two rows of independent inputs pair does not
// depend on which came first.
func (t TTL) ReadPair(v []byte, now int64, own TTL) (rest []byte, at int64, live bool, err error) {
	rest, at, live, err = t.Read(v, now)
	if live && at > now && own.On() && own.expired(now, at) {
		live = false
	}
	return rest, at, live, err
}

// Live reports whether an entry last written at at is live at now.
func (t TTL) Live(at, now int64) bool { return !t.On() || !t.expired(at, now) }

// expired reports whether an entry stamped at at has expired at now.
func (t TTL) expired(at, now int64) bool {
	return now >= math.MinInt64+t.Millis && at <= now-t.Millis // now - Millis must not wrap
}

// Sweeper deletes the expired entries of an operator's state, key group
// by key group, going round its key groups. Each call sweeps at least one
// key group, and more until it has looked at twice as many entries as the
// operator wrote since the last call (Wrote), or has gone round once: so
// sweeping keeps ahead of writing, and an expired entry waits at most
// about one round, which bounds the expired entries still stored by about
// the live ones. Expired entries are never returned by reads (Read), so
// when a sweep runs changes only the state's size, not a result.
type Sweeper struct {
	UID    string
	Lo, Hi int      // the key groups swept, inclusive
	Names  []string // the state names whose values carry stamps
	next   int
	owed   int
	keys   [][]byte
	vals   [][]byte
}

// Wrote records that the operator wrote n entries.
func (s *Sweeper) Wrote(n int) { s.owed += n }

// Sweep deletes, in w, the entries of the next key groups that have
// expired at now, stamps those written without a TTL with now, and
// returns how many it deleted.
func (s *Sweeper) Sweep(t TTL, w *Batch, now int64) (int, error) { return s.sweep(t, w, nil, now) }

// SweepCache is Sweep of the state behind a Cache: each key group's
// cached entries are written back and forgotten first (Cache.Forget), so
// that the sweep rewrites the group in the store alone.
func (s *Sweeper) SweepCache(t TTL, c *Cache, now int64) (int, error) {
	n, err := s.sweep(t, c.w, c, now)
	if err != nil {
		return n, err
	}
	// The cache's next write-back must not come before the sweep's.
	return n, c.w.Commit()
}

func (s *Sweeper) sweep(t TTL, w *Batch, c *Cache, now int64) (int, error) {
	if !t.On() || s.Hi < s.Lo {
		return 0, nil
	}
	deleted, seen := 0, 0
	for i := 0; i <= s.Hi-s.Lo && (i == 0 || seen < 2*s.owed); i++ {
		n, d, err := s.sweepGroup(t, w, c, now)
		if err != nil {
			return deleted, err
		}
		seen, deleted = seen+n, deleted+d
	}
	s.owed = 0
	return deleted, nil
}

// sweepGroup sweeps the next key group: it returns the entries it looked
// at and those it deleted.
func (s *Sweeper) sweepGroup(t TTL, w *Batch, c *Cache, now int64) (seen, deleted int, err error) {
	if s.next < s.Lo || s.next > s.Hi {
		s.next = s.Lo
	}
	kg := uint16(s.next)
	s.next++
	if c != nil {
		if err := c.Forget(kg); err != nil {
			return 0, 0, err
		}
	}
	for _, name := range s.Names {
		s.keys, s.vals = s.keys[:0], s.vals[:0]
		err := w.ScanPrefix(s.UID, kg, name, nil, func(key, value []byte) error {
			seen++
			at, stamped, rest, err := Split(value)
			switch {
			case err != nil:
				return err
			case !stamped:
				s.keys = append(s.keys, append([]byte(nil), key...))
				s.vals = append(s.vals, append(t.Stamp(nil, now), rest...))
			case t.expired(at, now):
				s.keys = append(s.keys, append([]byte(nil), key...))
				s.vals = append(s.vals, nil)
			}
			return nil
		})
		if err != nil {
			return seen, deleted, err
		}
		for i, k := range s.keys {
			if s.vals[i] == nil {
				w.Delete(s.UID, kg, name, k)
				deleted++
				continue
			}
			w.Set(s.UID, kg, name, k, s.vals[i])
		}
	}
	return seen, deleted, nil
}
