package window

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/strandsql/strand/memseg"
)

// Checkpointed sessions. At each checkpoint the aggregate writes, for every
// key whose sessions changed since the previous one (a row joined, two
// sessions merged, a session fired), all of that key's sessions as one
// entry in the key's key group, under state name "S":
//
//	key:   the key's normalized key (whose hash picks the key group)
//	value: uvarint(sessions) { varint(start) varint(end) uvarint(len state) state }
//	state: the accumulators (Acc.Put, in aggregate order), then for each
//	       DISTINCT aggregate, in order: uvarint(values) { uvarint(len) value }
//
// sessions in start order, a DISTINCT aggregate's values each once, as
// normalized keys. A key whose sessions have all fired has its entry
// deleted. A merge is thus checkpointed as the key's new list, and a
// restore at any parallelism routes each key by its key group. The same
// entry is what a spill writes (session_spill.go).
const sessionState = "S"

// Track makes the aggregate remember what changes between checkpoints. It
// must be called before the first Add.
func (s *Sessions) Track() { s.track = true }

// Flush writes to b the sessions of every key in memory that changed since
// the last checkpoint (a spilled key's entry is in the store already).
// Flushed forgets those changes once b's writes are durable in the
// checkpoint; until then a failed checkpoint's next Flush writes them
// again.
func (s *Sessions) Flush(b Writer) {
	for _, k := range s.dirtyList {
		key := s.table.KeyAt(s.addrs[k])
		kg := s.spill.kg(key)
		if s.head[k] < 0 {
			if s.stored[k] {
				b.Delete(s.spill.uid, kg, sessionState, key)
			}
			continue
		}
		b.Set(s.spill.uid, kg, sessionState, key, s.encode(k))
		s.stored[k] = true
	}
}

// Flushed records that the last Flush's writes are part of a complete
// snapshot.
func (s *Sessions) Flushed() {
	for _, k := range s.dirtyList {
		s.dirty[k] = false
		if s.head[k] < 0 {
			s.stored[k] = false
		}
	}
	s.dirtyList = s.dirtyList[:0]
}

// encode returns key k's sessions in the entry format (a buffer reused by
// the next call: Set copies it).
func (s *Sessions) encode(k int32) []byte {
	n := 0
	for cur := s.head[k]; cur >= 0; cur = s.next[cur] {
		n++
	}
	dst := binary.AppendUvarint(s.part[:0], uint64(n))
	var st, vals []byte
	for cur := s.head[k]; cur >= 0; cur = s.next[cur] {
		dst = binary.AppendVarint(dst, s.start[cur])
		dst = binary.AppendVarint(dst, s.end[cur])
		st = st[:0]
		for _, ac := range s.accs {
			st = ac.Put(st, cur)
		}
		for _, d := range s.dist {
			if d == nil {
				continue
			}
			vals = vals[:0]
			nv := 0
			_ = d.each(cur, func(v []byte) error {
				vals = binary.AppendUvarint(vals, uint64(len(v)))
				vals = append(vals, v...)
				nv++
				return nil
			})
			st = binary.AppendUvarint(st, uint64(nv))
			st = append(st, vals...)
		}
		dst = binary.AppendUvarint(dst, uint64(len(st)))
		dst = append(dst, st...)
	}
	s.part = dst
	return dst
}

// eachSession calls fn with each session of an entry, checking its form.
func eachSession(value []byte, fn func(start, end int64, st []byte) error) error {
	r := reader{b: value}
	n := r.uvarint()
	if r.err != nil || n == 0 || n > uint64(len(value)) {
		return fmt.Errorf("%w: malformed sessions", ErrCorrupt)
	}
	last := int64(0)
	for i := uint64(0); i < n; i++ {
		lo, hi := r.varint(), r.varint()
		st := r.bytes()
		if r.err != nil {
			return fmt.Errorf("%w: malformed sessions", ErrCorrupt)
		}
		if hi <= lo || i > 0 && lo <= last {
			return fmt.Errorf("%w: sessions out of order", ErrCorrupt)
		}
		if err := fn(lo, hi, st); err != nil {
			return err
		}
		last = hi
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: malformed sessions", ErrCorrupt)
	}
	return nil
}

// decodeInto gives key k, which has no sessions, those of an entry. It
// returns ErrNoMemory when they do not fit, and an error wrapping ErrCorrupt
// or agg.ErrCorrupt when the entry does not decode; either way k is left
// without sessions.
func (s *Sessions) decodeInto(k int32, value []byte) error {
	n := 0
	if err := eachSession(value, func(int64, int64, []byte) error { n++; return nil }); err != nil {
		return err
	}
	if err := s.roomForTimers(n); err != nil {
		return err
	}
	if room := len(s.free) + s.cap - len(s.start); room < n {
		if err := s.growSlots(n - room); err != nil {
			return err
		}
	}
	for _, d := range s.dist {
		if d != nil && d.setCap-len(d.next) < n {
			if err := s.growSets(d, n-(d.setCap-len(d.next))); err != nil {
				return err
			}
		}
	}
	last := int32(-1)
	err := eachSession(value, func(lo, hi int64, st []byte) error {
		slot, err := s.newSlot()
		if err != nil {
			return err
		}
		s.start[slot], s.end[slot], s.owner[slot] = lo, hi, k
		if last < 0 {
			s.head[k] = slot
		} else {
			s.next[last] = slot
		}
		last = slot
		s.pushTimer(slot)
		return s.getState(slot, st)
	})
	if err != nil {
		for cur := s.head[k]; cur >= 0; {
			nx := s.next[cur]
			s.release(cur)
			cur = nx
		}
		s.head[k] = -1
		return err
	}
	s.dead--
	return nil
}

// getState reads a session's state into slot.
func (s *Sessions) getState(slot int32, st []byte) error {
	var err error
	for _, ac := range s.accs {
		if st, err = ac.Get(st, slot); err != nil {
			return err
		}
	}
	for _, d := range s.dist {
		if d == nil {
			continue
		}
		r := reader{b: st}
		n := r.uvarint()
		for i := uint64(0); i < n && r.err == nil; i++ {
			v := r.bytes()
			if r.err == nil {
				if _, err := d.add(slot, v); err != nil {
					return err
				}
			}
		}
		if r.err != nil {
			return fmt.Errorf("%w: malformed DISTINCT values of a session", ErrCorrupt)
		}
		st = r.b
	}
	if len(st) != 0 {
		return fmt.Errorf("%w: %d trailing bytes in a session", ErrCorrupt, len(st))
	}
	return nil
}

// Load restores one entry of the aggregate's checkpointed state. A
// restored key is dirty: the local store starts empty, so the next
// checkpoint writes it again. Keys that do not fit in memory are spilled
// to the store. Restored must follow the last Load.
func (s *Sessions) Load(kg uint16, name string, key, value []byte) error {
	switch name {
	case timerState:
		return nil // the timers are set again for the sessions loaded
	case sessionState:
	default:
		return fmt.Errorf("%w: unknown state %q", ErrCorrupt, name)
	}
	if n, err := s.keys.len(key); err != nil || n != len(key) {
		return fmt.Errorf("%w: session key %x", ErrCorrupt, key)
	}
	k, err := s.keyOf(key)
	if err == nil {
		if s.head[k] >= 0 {
			return fmt.Errorf("%w: sessions of a key stored twice", ErrCorrupt)
		}
		if err = s.decodeInto(k, value); err == nil {
			s.touch(k)
			if s.chargeHeap() == nil {
				return nil
			}
			return s.spillAll()
		}
	}
	if !errors.Is(err, memseg.ErrNoMemory) {
		return err
	}
	if err := s.spillAll(); err != nil {
		return err
	}
	return s.spillEntry(kg, key, value)
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = ErrCorrupt
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Fingerprint identifies the aggregate's state schema: the fixed windows'
// description (kind SESSION and the gap, the keys and aggregates), under a
// format name of its own, so that a 10 s session's state is never restored
// into a 20 s one, nor a fixed window's into a session's. It keeps
// Spec.Fingerprint's agg.FingerprintMark.
func (s *Sessions) Fingerprint() string { return SessionFingerprint(&s.spec) }

// SessionFingerprint is Sessions.Fingerprint of an aggregate of spec.
func SessionFingerprint(spec *Spec) string {
	_, h, _ := strings.Cut(spec.Fingerprint(), ";")
	return "sessions1;" + h
}
