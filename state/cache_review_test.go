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

// TestCacheDirectWriteThenCached: a change of a prefix the cache has no
// room for, even after an eviction, goes to the indexed batch, uncommitted.
// When room comes back (the subtask's other operators share the memory
// manager, and the filter of held prefixes gives its memory back when it
// saturates) before the next eviction, the prefix gets a unit and a later
// change of the same key is cached. A checkpoint writes the cache back
// first and commits the indexed batch second: the older write must not
// win, whether the write-back is a batch or an ingested SST.
func TestCacheDirectWriteThenCached(t *testing.T) {
	for i := range 2 * len(writeBacks) {
		del, wb := i%2 == 1, writeBacks[i/2]
		st := openStore(t, vfs.NewMem(), "/store")
		const limit = 64 << 10
		mem, err := memseg.NewManager(limit, 1024)
		if err != nil {
			t.Fatal(err)
		}
		w := st.NewIndexedBatch()
		c := NewCache(st, w, mem, limit, "op", 0, 0, "rows")
		c.ingestAt = wb.ingestAt
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
			t.Errorf("%s, delete %t: store holds ak = %q %t %v, want v2", wb.name, del, v, ok, err)
		}
		c.Release()
	}
}

// TestCacheReviewModel is a model test of a Cache against a plain map with
// what TestCacheModel leaves out: prefixes of varied lengths (a key may be
// its prefix, as a deduplication's), values larger than a segment, another
// operator of the subtask taking and giving back the shared memory, sweeps
// that rewrite values as well as delete them, explicit evictions, and
// restores from the last checkpoint after a failure (what was not
// checkpointed is lost, model included) at another set of key groups.
func TestCacheReviewModel(t *testing.T) {
	for ci, c := range []struct {
		limit int64
		seg   int
		pre   int
	}{
		{8 << 10, 256, 400}, {16 << 10, 256, 40}, {64 << 10, 1024, 2000},
	} {
		for wi, wb := range writeBacks {
			for _, seed := range modelSeeds(reviewSeeds, ci+wi) {
				cacheReviewModel(t, seed, c.limit, c.seg, c.pre, wb)
			}
		}
	}
}

const reviewSeeds = 3

func cacheReviewModel(t *testing.T, seed uint64, limit int64, seg, prefixes int, wb writeBack) {
	rng := rand.New(rand.NewPCG(seed, 11))
	const uid = "op"
	names := wb.names
	mem, err := memseg.NewManager(2*limit, seg)
	if err != nil {
		t.Fatal(err)
	}
	other := 0 // bytes the subtask's other operator holds
	lo, hi := 0, 7
	st := openStore(t, vfs.NewMem(), fmt.Sprintf("/s%d", seed))
	w := st.NewIndexedBatch()
	c := wb.newCache(st, w, mem, limit, uid, lo, hi)
	model := map[modelKey][]byte{}
	checkpoint := map[modelKey][]byte{}
	gen := 0
	fail := func(step int, format string, a ...any) {
		t.Helper()
		t.Fatalf("%s limit %d seed %d step %d: %s", wb.name, limit, seed, step, fmt.Sprintf(format, a...))
	}
	key := func() ([]byte, int) {
		p := rng.IntN(prefixes)
		if rng.IntN(4) == 0 {
			p = rng.IntN(4) // hot prefixes, many keys
		}
		pre := fmt.Appendf(nil, "%d", p)
		pre = append([]byte{byte(len(pre))}, pre...)
		if p%5 == 4 {
			return pre, len(pre) // the key is its prefix
		}
		n := rng.IntN(8)
		if p < 4 {
			n = rng.IntN(300)
		}
		return fmt.Appendf(pre, "%d", n), len(pre)
	}
	for step := range 5000 {
		kg := uint16(lo + rng.IntN(hi-lo+1))
		name := rng.IntN(2)
		k, plen := key()
		mk := modelKey{kg, name, string(k)}
		var err error
		switch op := rng.IntN(200); {
		case op < 70:
			n := rng.IntN(30)
			switch rng.IntN(50) {
			case 0:
				n = seg + rng.IntN(seg) // a large record
			case 1:
				n = int(limit / 3) // beyond maxUnit: bypassed
			}
			v := bytes.Repeat([]byte{byte(step)}, n)
			err = c.Set(kg, name, k, plen, v)
			model[mk] = v
		case op < 100:
			err = c.Delete(kg, name, k, plen)
			delete(model, mk)
		case op < 140:
			v, ok, gerr := c.Get(kg, name, k, plen)
			err = gerr
			mv, mok := model[mk]
			if err == nil && (ok != mok || !bytes.Equal(v, mv)) {
				fail(step, "get %q = %d bytes %t, want %d bytes %t", k, len(v), ok, len(mv), mok)
			}
		case op < 175:
			var got []string
			err = c.Scan(kg, name, k[:plen], func(key, value []byte) error {
				got = append(got, fmt.Sprintf("%s\x00%x", key, value))
				return nil
			})
			var want []string
			for mk, v := range model {
				if mk.kg == kg && mk.name == name && bytes.HasPrefix([]byte(mk.key), k[:plen]) {
					want = append(want, fmt.Sprintf("%s\x00%x", mk.key, v))
				}
			}
			slices.Sort(want)
			if err == nil && !slices.Equal(got, want) {
				fail(step, "scan %q:\n got %v\nwant %v", k[:plen], got, want)
			}
		case op < 182:
			// The other operator takes or gives back memory.
			if other > 0 {
				mem.Unreserve(other)
				other = 0
			} else if free := int(mem.Budget()-mem.Used()) - rng.IntN(int(limit)); free > 0 && mem.Reserve(free) == nil {
				other = free
			}
		case op < 188:
			// A sweep of a key group: rewrites some values, deletes others.
			if err = c.Forget(kg); err != nil {
				break
			}
			for nm := range names {
				var keys [][]byte
				err = w.ScanPrefix(uid, kg, names[nm], nil, func(key, _ []byte) error {
					keys = append(keys, bytes.Clone(key))
					return nil
				})
				if err != nil {
					break
				}
				for _, key := range keys {
					mk := modelKey{kg, nm, string(key)}
					if rng.IntN(2) == 0 {
						w.Delete(uid, kg, names[nm], key)
						delete(model, mk)
						continue
					}
					v := append(bytes.Clone(model[mk]), 's')
					w.Set(uid, kg, names[nm], key, v)
					model[mk] = v
				}
			}
			if err == nil {
				err = w.Commit()
			}
		case op < 190:
			err = c.Evict()
		case op < 196:
			// A checkpoint.
			if err = c.WriteBack(); err == nil {
				err = w.Commit()
			}
			if err == nil {
				storeEquals(t, st, uid, lo, hi, names, model)
				checkpoint = maps.Clone(model)
			}
		default:
			// A failure: restore the last checkpoint into a new store,
			// at a new set of key groups.
			c.Release()
			if other > 0 {
				mem.Unreserve(other)
				other = 0
			}
			nlo := rng.IntN(4)
			nhi := nlo + rng.IntN(8-nlo)
			gen++
			nst := openStore(t, vfs.NewMem(), fmt.Sprintf("/s%d-%d", seed, gen))
			w = nst.NewIndexedBatch()
			model = map[modelKey][]byte{}
			for mk, v := range checkpoint {
				if int(mk.kg) >= nlo && int(mk.kg) <= nhi {
					w.Set(uid, mk.kg, names[mk.name], []byte(mk.key), v)
					model[mk] = v
				}
			}
			if err = w.Commit(); err != nil {
				break
			}
			checkpoint = maps.Clone(model)
			st, lo, hi = nst, nlo, nhi
			c = wb.newCache(st, w, mem, limit, uid, lo, hi)
		}
		if err != nil {
			fail(step, "%v", err)
		}
	}
	if err := c.WriteBack(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	storeEquals(t, st, uid, lo, hi, names, model)
	c.Release()
	if other > 0 {
		mem.Unreserve(other)
	}
	if mem.Used() != 0 {
		t.Fatalf("limit %d seed %d: %d bytes still used after Release", limit, seed, mem.Used())
	}
}
