package window

import (
	"sync"
	"testing"
)

// FuzzLoad restores checkpointed window state in which one entry ("p" or
// "s", chosen by which) has a fuzzed key and value, then fires it: a
// restore may fail, but must never panic or leak managed memory
// (loadAndFire checks both).
func FuzzLoad(f *testing.F) {
	var (
		once    sync.Once
		entries []mEntry
	)
	f.Add(uint8(0), []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 2, 0, 0, 0})
	f.Add(uint8(1), []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 7, 0}, []byte{2, 0})
	f.Add(uint8(2), []byte{0x80, 0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 7, 1, 3, 1, 0x61, 0, 1}, []byte{})
	f.Fuzz(func(t *testing.T, which uint8, key, value []byte) {
		once.Do(func() { entries = spilledState(t) })
		in := append([]mEntry(nil), entries...)
		e := &in[int(which)%len(in)]
		e.key, e.data = key, value
		_ = loadAndFire(t, in, "fuzzed entry")
	})
}
