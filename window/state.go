package window

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/strandsql/strand/memseg"
)

// Checkpointed state. A window aggregate keeps its live state in memory and
// writes to its state store, at each checkpoint, only what changed since
// the previous one: the groups updated, the DISTINCT values first seen, and
// deletions for the windows that fired. Two state names are used:
//
//	"g"  window start | group key            → key column values, accumulators
//	"d"  window start | aggregate | len(group key) group key | value key → (empty)
//
// The window start is 8 bytes, big-endian with the sign bit flipped, so
// windows sort in time order; the group key is the normalized key whose
// hash also picks the key group.
const (
	groupState    = "g"
	distinctState = "d"
)

// Track makes the aggregate remember what changes between checkpoints. It
// must be called before the first Add.
func (a *Aggregate) Track() { a.track = true }

// KeyGroup returns the key group of an encoded group key.
type KeyGroup func(key []byte) uint16

// Writer receives the writes of a Flush: a state.Batch or a state.Sorted.
type Writer interface {
	Set(uid string, kg uint16, name string, key, value []byte)
	Delete(uid string, kg uint16, name string, key []byte)
}

// Flush writes the state changed since the last Flush to b under uid, and
// deletes the stored state of windows fired since then.
func (a *Aggregate) Flush(b Writer, uid string, kg KeyGroup) {
	var key []byte
	for _, p := range a.fired {
		for g, ok := range p.persisted {
			if ok {
				key = windowKey(key[:0], p.start, p.keys[g])
				b.Delete(uid, kg(p.keys[g]), groupState, key)
			}
		}
		for _, k := range p.stored {
			b.Delete(uid, kg(distinctGroup(k)), distinctState, k)
		}
	}
	a.fired = a.fired[:0]
	var val []byte
	for _, p := range a.panes {
		for _, g := range p.dirtyList {
			key = windowKey(key[:0], p.start, p.keys[g])
			val = a.putGroup(val[:0], p, g)
			b.Set(uid, kg(p.keys[g]), groupState, key, val)
			p.dirty[g] = false
			p.persisted[g] = true
		}
		p.dirtyList = p.dirtyList[:0]
		for _, d := range p.distinct {
			k := distinctKey(nil, p.start, d.agg, p.keys[d.group], d.value)
			b.Set(uid, kg(p.keys[d.group]), distinctState, k, nil)
			p.stored = append(p.stored, k)
		}
		p.distinct = p.distinct[:0]
	}
}

func (a *Aggregate) putGroup(dst []byte, p *pane, g int32) []byte {
	for _, v := range p.vals {
		dst = v.put(dst, g)
	}
	for _, ac := range p.accs {
		dst = ac.put(dst, g)
	}
	return dst
}

// Load restores one entry written by Flush. Every "g" entry of a restore
// must be loaded before any "d" entry.
func (a *Aggregate) Load(name string, key, value []byte) error {
	if len(key) < 8 {
		return errState
	}
	start := int64(binary.BigEndian.Uint64(key) ^ 1<<63)
	switch name {
	case groupState:
		p := a.panes[start]
		if p == nil {
			p = a.newPane(start)
			a.panes[start] = p
		}
		gk := key[8:]
		if _, dup := p.index[string(gk)]; dup {
			return fmt.Errorf("%w: group stored twice", errState)
		}
		g := int32(len(p.keys))
		k := bytes.Clone(gk)
		p.index[string(k)] = g
		p.keys = append(p.keys, k)
		n := len(p.keys)
		p.dirty, p.persisted = growTo(p.dirty, n), growTo(p.persisted, n)
		p.persisted[g] = true
		rest := value
		var err error
		for _, v := range p.vals {
			v.grow(n)
			if rest, err = v.get(rest, g); err != nil {
				return err
			}
		}
		for _, ac := range p.accs {
			ac.grow(n)
			if rest, err = ac.get(rest, g); err != nil {
				return err
			}
		}
		if len(rest) != 0 {
			return fmt.Errorf("%w: %d trailing bytes", errState, len(rest))
		}
	case distinctState:
		p := a.panes[start]
		rest := key[8:]
		if p == nil || len(rest) < 1 {
			return fmt.Errorf("%w: DISTINCT value of a missing window", errState)
		}
		agg := int(rest[0])
		n, k := binary.Uvarint(rest[1:])
		if k <= 0 || uint64(len(rest)-1-k) < n || agg >= len(p.seen) || p.seen[agg] == nil {
			return errState
		}
		gk := rest[1+k : 1+k+int(n)]
		g, ok := p.index[string(gk)]
		if !ok {
			return fmt.Errorf("%w: DISTINCT value of a missing group", errState)
		}
		seen := memseg.AppendInt64(nil, int64(g), memseg.Order{})
		seen = append(seen, rest[1+k+int(n):]...)
		p.seen[agg][string(seen)] = struct{}{}
		p.stored = append(p.stored, bytes.Clone(key))
	default:
		return fmt.Errorf("%w: unknown state %q", errState, name)
	}
	return nil
}

func windowKey(dst []byte, start int64, gk []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(start)^1<<63)
	return append(dst, gk...)
}

func distinctKey(dst []byte, start int64, agg int, gk, value []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(start)^1<<63)
	dst = append(dst, byte(agg))
	dst = binary.AppendUvarint(dst, uint64(len(gk)))
	dst = append(dst, gk...)
	return append(dst, value...)
}

// distinctGroup returns the group key inside a distinct state key.
func distinctGroup(k []byte) []byte {
	n, m := binary.Uvarint(k[9:])
	return k[9+m : 9+m+int(n)]
}

// Fingerprint identifies the aggregate's state schema: a restore refuses
// state written by an aggregate with other keys, aggregates or window.
func (s *Spec) Fingerprint() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tumble %d %d;", s.Window.Size, s.Window.Offset)
	for _, k := range s.Keys {
		fmt.Fprintf(&b, "key %v;", s.In[k].Type.Plain().Nullable())
	}
	for _, ag := range s.Aggs {
		in := "*"
		if ag.Arg >= 0 {
			in = s.In[ag.Arg].Type.Plain().Nullable().String()
		}
		fmt.Fprintf(&b, "agg %v(%s) distinct=%v filter=%v -> %v;", ag.Kind, in, ag.Distinct, ag.Filter >= 0, ag.Out)
	}
	return fmt.Sprintf("%016x", memseg.Hash(b.Bytes()))
}
