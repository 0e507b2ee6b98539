package state

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/strandsql/strand/memseg"
)

// modelKey is a state entry's identity in TestCacheModel's model.
type modelKey struct {
	kg   uint16
	name int
	key  string
}

// TestCacheModel applies random reads, writes, deletes, scans, sweeps
// (Forget, then a rewrite in the store), write-backs and restores (a new
// Cache over the store written back) to a Cache with a small budget, so
// that it evicts, keeps the prefixes it used, bypasses prefixes too large
// for it and reloads them, and checks every read against a plain map, and
// the store against the map after each write-back: what the cache writes
// back is what writing each change straight to the store would have left
// there. Many prefixes make the filter of the prefixes the store may hold
// answer for evicted ones, and saturate it where it is small. Each case
// runs with write-backs in batches and as ingested SSTs (writeSST), the
// latter with state names whose order in the store is not theirs in the
// cache (an SST takes its keys in the store's order only).
func TestCacheModel(t *testing.T) {
	for ci, c := range []struct {
		limit    int64
		seg      int
		prefixes int
	}{
		{0, 1024, 12}, {8 << 10, 1024, 12}, {32 << 10, 1024, 12}, {1 << 20, 4096, 12},
		{8 << 10, 256, 250}, {64 << 10, 256, 250}, {64 << 10, 1024, 60},
	} {
		for wi, wb := range writeBacks {
			t.Run(fmt.Sprintf("limit=%d,seg=%d,prefixes=%d,%s", c.limit, c.seg, c.prefixes, wb.name), func(t *testing.T) {
				for _, seed := range modelSeeds(wb.seeds, ci+wi) {
					cacheModel(t, seed, c.limit, c.seg, c.prefixes, wb)
				}
			})
		}
	}
}

// writeBack is how a model test's cache writes back: in batches, or by
// ingesting an SST when it has 512 bytes of records or more (most
// evictions, some checkpoints), over state names in the store's order or
// not. TestCacheModel runs seeds seeds of it (an ingestion is slower
// than a batch: fewer; an even and an odd one, which restores), one under
// the race detector (modelSeeds).
type writeBack struct {
	name     string
	ingestAt int
	names    []string
	seeds    uint64
}

var writeBacks = []writeBack{
	{"batches", ingestBytes, []string{"left", "right"}, 4},
	{"ingest", 512, []string{"right", "left"}, 2},
}

// newCache is NewCache writing back as wb says.
func (wb writeBack) newCache(st *Store, w *Batch, mem *memseg.Manager, limit int64, uid string, lo, hi int) *Cache {
	c := NewCache(st, w, mem, limit, uid, lo, hi, wb.names...)
	c.ingestAt = wb.ingestAt
	return c
}

func cacheModel(t *testing.T, seed uint64, limit int64, seg, prefixes int, wb writeBack) {
	rng := rand.New(rand.NewPCG(seed, 7))
	st := openStore(t, vfs.NewMem(), "/store")
	mem, err := memseg.NewManager(max(limit, 64<<10), seg)
	if err != nil {
		t.Fatal(err)
	}
	const uid, lo, hi = "op", 3, 6
	names := wb.names
	w := st.NewIndexedBatch()
	c := wb.newCache(st, w, mem, limit, uid, lo, hi)
	defer func() { c.Release() }()
	model := map[modelKey][]byte{}
	// Prefixes are two bytes (prefix-free); prefix 0 gets many entries,
	// more than the cache takes; those from hugePrefix on only values
	// too large for the cache, so that their first write goes to the
	// store directly.
	const hugePrefix = 60000
	key := func() ([]byte, int) {
		p := rng.IntN(prefixes)
		switch rng.IntN(60) {
		case 0:
			p = hugePrefix + rng.IntN(100)
		case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20:
			p = 0
		}
		n := 1 + rng.IntN(6)
		if p == 0 {
			n = 1 + rng.IntN(400)
		}
		return fmt.Appendf([]byte{byte(p >> 8), byte(p)}, "%03d", n), 2
	}
	where := func() (uint16, int) { return uint16(lo + rng.IntN(hi-lo+1)), rng.IntN(2) }
	check := func(op string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, op, err)
		}
	}
	for step := range 6000 {
		kg, name := where()
		k, plen := key()
		mk := modelKey{kg, name, string(k)}
		switch op := rng.IntN(100); {
		case op < 35:
			v := bytes.Repeat([]byte{byte(step)}, rng.IntN(40))
			if int(k[0])<<8|int(k[1]) >= hugePrefix && limit > 0 && limit <= 64<<10 {
				// Too large for even the emptied cache: written to
				// the store directly.
				v = bytes.Repeat([]byte{byte(step)}, int(limit))
			}
			check("set", c.Set(kg, name, k, plen, v))
			model[mk] = v
		case op < 50:
			check("delete", c.Delete(kg, name, k, plen))
			delete(model, mk)
		case op < 75:
			v, ok, err := c.Get(kg, name, k, plen)
			check("get", err)
			mv, mok := model[mk]
			if ok != mok || !bytes.Equal(v, mv) {
				t.Fatalf("seed %d step %d: get %q = %x %t, want %x %t", seed, step, k, v, ok, mv, mok)
			}
		case op < 95:
			var got []string
			err := c.Scan(kg, name, k[:plen], func(key, value []byte) error {
				got = append(got, fmt.Sprintf("%s=%x", key, value))
				return nil
			})
			check("scan", err)
			var want []string
			for mk, v := range model {
				if mk.kg == kg && mk.name == name && mk.key[:2] == string(k[:2]) {
					want = append(want, fmt.Sprintf("%s=%x", mk.key, v))
				}
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: scan %q:\n got %v\nwant %v", seed, step, k[:plen], got, want)
			}
		case op < 97:
			// A sweep: forget the key group, then delete every entry of
			// one prefix of it in the store.
			check("forget", c.Forget(kg))
			var gone [][]byte
			err := w.ScanPrefix(uid, kg, names[name], k[:plen], func(key, _ []byte) error {
				gone = append(gone, bytes.Clone(key))
				return nil
			})
			check("sweep scan", err)
			for _, g := range gone {
				w.Delete(uid, kg, names[name], g)
				delete(model, modelKey{kg, name, string(g)})
			}
			check("sweep commit", w.Commit())
		case op < 98 && seed%2 == 1 && rng.IntN(8) == 0:
			// A restore: a new cache over the state written back, with
			// the filter of the prefixes the store may hold off (odd
			// seeds only: the even ones keep the filter they start
			// with).
			check("write back", c.WriteBack())
			check("commit", w.Commit())
			c.Release()
			c = wb.newCache(st, w, mem, limit, uid, lo, hi)
		default:
			check("write back", c.WriteBack())
			check("commit", w.Commit())
			storeEquals(t, st, uid, lo, hi, names, model)
		}
	}
	check("write back", c.WriteBack())
	check("commit", w.Commit())
	storeEquals(t, st, uid, lo, hi, names, model)
	if limit > 0 && mem.Used() > limit {
		t.Fatalf("cache uses %d bytes, limit %d", mem.Used(), limit)
	}
}

// storeEquals checks that the store holds exactly the model's entries.
func storeEquals(t *testing.T, st *Store, uid string, lo, hi int, names []string, model map[modelKey][]byte) {
	t.Helper()
	got := map[modelKey][]byte{}
	err := st.Scan(uid, uint16(lo), uint16(hi), "", func(kg uint16, name string, key, value []byte) error {
		got[modelKey{kg, slices.Index(names, name), string(key)}] = bytes.Clone(value)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(got, model, bytes.Equal) {
		t.Fatalf("store holds %d entries, model %d", len(got), len(model))
	}
}

// TestCacheKnownAbsent: a key never written is answered from memory once
// its prefix is cached, and a prefix's scan reads the store once.
func TestCacheKnownAbsent(t *testing.T) {
	st := openStore(t, vfs.NewMem(), "/store")
	mem, err := memseg.NewManager(1<<20, 4096)
	if err != nil {
		t.Fatal(err)
	}
	w := st.NewIndexedBatch()
	w.Set("op", 0, "rows", []byte("a1"), []byte("x"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c := NewCache(st, w, mem, 1<<20, "op", 0, 0, "rows")
	defer c.Release()
	if _, ok, err := c.Get(0, 0, []byte("a2"), 1); ok || err != nil {
		t.Fatalf("a2: %t %v", ok, err)
	}
	// Behind the cache's back: the cache keeps answering from memory.
	w.Set("op", 0, "rows", []byte("a2"), []byte("y"))
	if _, ok, _ := c.Get(0, 0, []byte("a2"), 1); ok {
		t.Fatal("a2 read from the store again")
	}
	if v, ok, _ := c.Get(0, 0, []byte("a1"), 1); !ok || string(v) != "x" {
		t.Fatalf("a1 = %q %t", v, ok)
	}
}
