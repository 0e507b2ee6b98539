package state

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
)

// TestCacheDirectWriteThenCached: a change of a prefix the cache has no
// room for, even after an eviction, goes to the indexed batch, uncommitted.
// When room comes back (the subtask's other operators share the memory
// manager, and the filter of held prefixes gives its memory back when it
// saturates) before the next eviction, the prefix gets a unit and a later
// change of the same key is cached. A checkpoint writes the cache back
// first and commits the indexed batch second: the older write must not
// win.
func TestCacheDirectWriteThenCached(t *testing.T) {
	for _, del := range []bool{false, true} {
		st := openStore(t, vfs.NewMem(), "/store")
		const limit = 64 << 10
		mem, err := memseg.NewManager(limit, 1024)
		if err != nil {
			t.Fatal(err)
		}
		w := st.NewIndexedBatch()
		c := NewCache(st, w, mem, limit, "op", 0, 0, "rows")
		// Another operator of the subtask takes the rest of the memory.
		other := int(mem.Budget() - mem.Used())
		if err := mem.Reserve(other); err != nil {
			t.Fatal(err)
		}
		if del {
			if err := c.Set(0, 0, []byte("ak"), 1, []byte("v0")); err != nil {
				t.Fatal(err)
			}
			if err := c.Delete(0, 0, []byte("ak"), 1); err != nil {
				t.Fatal(err)
			}
		} else if err := c.Set(0, 0, []byte("ak"), 1, []byte("v1")); err != nil {
			t.Fatal(err)
		}
		mem.Unreserve(other)
		if err := c.Set(0, 0, []byte("ak"), 1, []byte("v2")); err != nil {
			t.Fatal(err)
		}
		// A checkpoint's snapshot (join keyed.snapshot, Dedup.Snapshot).
		if err := c.WriteBack(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		v, ok, err := st.Get("op", 0, "rows", []byte("ak"))
		if err != nil || !ok || string(v) != "v2" {
			t.Errorf("delete %t: store holds ak = %q %t %v, want v2", del, v, ok, err)
		}
		c.Release()
	}
}
