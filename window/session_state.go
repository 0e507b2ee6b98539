package window

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Checkpointed sessions. At each checkpoint the aggregate writes, for every
// key whose sessions changed since the previous one (a row joined, two
// sessions merged, a session fired), all of that key's sessions as one
// entry in the key's key group, under state name "S":
//
//	key:   the key's normalized key (whose hash picks the key group)
//	value: uvarint(sessions) { varint(start) varint(end) uvarint(len state) state }
//
// sessions in start order, state a session's accumulators (Acc.Put, in
// aggregate order). A key whose sessions have all fired has its entry
// deleted. A merge is thus checkpointed as the key's new list, and a
// restore at any parallelism routes each key by its key group.
const sessionState = "S"

// Track makes the aggregate remember what changes between checkpoints. It
// must be called before the first Add.
func (s *Sessions) Track() { s.track = true }

// UseStore names the state Flush writes: operator uid, each key in key
// group kg of its key.
func (s *Sessions) UseStore(uid string, kg KeyGroup) { s.uid, s.kg = uid, kg }

// Flush writes to b the sessions of every key that changed since the last
// checkpoint. Flushed forgets those changes once b's writes are durable in
// the checkpoint; until then a failed checkpoint's next Flush writes them
// again.
func (s *Sessions) Flush(b Writer) {
	for _, k := range s.dirtyList {
		key := s.table.KeyAt(s.addrs[k])
		kg := s.kg(key)
		if s.head[k] < 0 {
			if s.stored[k] {
				b.Delete(s.uid, kg, sessionState, key)
			}
			continue
		}
		b.Set(s.uid, kg, sessionState, key, s.encode(k))
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
	var st []byte
	for cur := s.head[k]; cur >= 0; cur = s.next[cur] {
		dst = binary.AppendVarint(dst, s.start[cur])
		dst = binary.AppendVarint(dst, s.end[cur])
		st = st[:0]
		for _, ac := range s.accs {
			st = ac.Put(st, cur)
		}
		dst = binary.AppendUvarint(dst, uint64(len(st)))
		dst = append(dst, st...)
	}
	s.part = dst
	return dst
}

// Load restores one entry of the aggregate's checkpointed state. A
// restored key is dirty: the local store starts empty, so the next
// checkpoint writes it again.
func (s *Sessions) Load(kg uint16, name string, key, value []byte) error {
	if name != sessionState {
		return fmt.Errorf("%w: unknown state %q", errState, name)
	}
	if n, err := s.keys.len(key); err != nil || n != len(key) {
		return fmt.Errorf("%w: session key %x", errState, key)
	}
	k, err := s.keyOf(key)
	if err != nil {
		return err
	}
	if s.head[k] >= 0 {
		return fmt.Errorf("%w: sessions of a key stored twice", errState)
	}
	r := reader{b: value}
	n := r.uvarint()
	if n > uint64(len(value)) {
		return fmt.Errorf("%w: malformed sessions", errState)
	}
	last := int32(-1)
	for i := uint64(0); i < n && r.err == nil; i++ {
		lo, hi := r.varint(), r.varint()
		st := r.bytes()
		if r.err != nil {
			break
		}
		if hi <= lo || (last >= 0 && lo <= s.end[last]) {
			return fmt.Errorf("%w: sessions out of order", errState)
		}
		slot, err := s.newSlot()
		if err != nil {
			return err
		}
		for _, ac := range s.accs {
			if st, err = ac.Get(st, slot); err != nil {
				return err
			}
		}
		if len(st) != 0 {
			return fmt.Errorf("%w: %d trailing bytes in a session", errState, len(st))
		}
		s.start[slot], s.end[slot], s.owner[slot] = lo, hi, k
		if last < 0 {
			s.head[k] = slot
			s.dead--
		} else {
			s.next[last] = slot
		}
		last = slot
		s.minEnd = min(s.minEnd, hi)
	}
	if r.err != nil || len(r.b) != 0 || last < 0 {
		return fmt.Errorf("%w: malformed sessions", errState)
	}
	s.touch(k)
	return s.chargeHeap()
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errState
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Fingerprint identifies the aggregate's state schema: the fixed windows'
// description (kind SESSION and the gap, the keys and aggregates), under a
// format name of its own, so that a 10 s session's state is never restored
// into a 20 s one, nor a fixed window's into a session's.
func (s *Sessions) Fingerprint() string { return SessionFingerprint(&s.spec) }

// SessionFingerprint is Sessions.Fingerprint of an aggregate of spec.
func SessionFingerprint(spec *Spec) string {
	_, h, _ := strings.Cut(spec.Fingerprint(), ";")
	return "sessions1;" + h
}
