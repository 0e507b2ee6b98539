package memseg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIntTableModel checks an IntTable against a Go map over random
// inserts, finds and lookups, through growth and Reset, and that it
// charges and gives back its memory.
func TestIntTableModel(t *testing.T) {
	m, err := NewManager(1<<30, 64)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewIntTable(m)
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 3 {
		model := map[uint64]uint32{}
		keys := make([]uint64, 0, 4096)
		for i := range 20000 {
			k := r.Uint64() % 5000
			if i%7 == 0 {
				k = r.Uint64() // sparse keys too
			}
			v, inserted, err := tab.Insert(k, HashInt64(int64(k)), uint32(len(model)))
			if err != nil {
				t.Fatal(err)
			}
			want, ok := model[k]
			if !ok {
				want = uint32(len(model))
				model[k] = want
			}
			if v != want || inserted == ok {
				t.Fatalf("round %d: Insert(%d) = %d, %v; want %d, %v", round, k, v, inserted, want, !ok)
			}
			if len(keys) < cap(keys) {
				keys = append(keys, k, r.Uint64())
			}
		}
		if tab.Len() != len(model) {
			t.Fatalf("Len %d, want %d", tab.Len(), len(model))
		}
		if got := m.Used(); got != int64(tab.Bytes()) || got == 0 {
			t.Fatalf("manager charged %d, table holds %d", got, tab.Bytes())
		}
		hashes := make([]uint64, len(keys))
		for i, k := range keys {
			hashes[i] = HashInt64(int64(k))
		}
		vals := make([]int32, len(keys))
		tab.Lookup(keys, hashes, vals)
		for i, k := range keys {
			want, ok := model[k]
			v, found := tab.Find(k, hashes[i])
			if found != ok || v != want || (ok && vals[i] != int32(want)) || (!ok && vals[i] != -1) {
				t.Fatalf("key %d: Find %d, %v; Lookup %d; model %d, %v", k, v, found, vals[i], want, ok)
			}
		}
		tab.Reset()
		if m.Used() != 0 || tab.Len() != 0 {
			t.Fatalf("after Reset: %d bytes used, %d keys", m.Used(), tab.Len())
		}
	}
	tab.Release()
}

// TestIntTableNoMemory checks that an insert the budget cannot take fails
// with ErrNoMemory and leaves the table as it was.
func TestIntTableNoMemory(t *testing.T) {
	m, err := NewManager(4096, 64)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewIntTable(m)
	var k uint64
	for ; ; k++ {
		_, _, err := tab.Insert(k, HashInt64(int64(k)), uint32(k))
		if errors.Is(err, ErrNoMemory) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if tab.Len() != int(k) || k == 0 {
		t.Fatalf("%d keys after %d inserts", tab.Len(), k)
	}
	for i := range k {
		if v, ok := tab.Find(i, HashInt64(int64(i))); !ok || v != uint32(i) {
			t.Fatalf("key %d: %d, %v after the failed insert", i, v, ok)
		}
	}
	// An existing key is still found at a full table.
	if v, inserted, err := tab.Insert(0, HashInt64(0), 99); err != nil || inserted || v != 0 {
		t.Fatalf("Insert of a held key: %d, %v, %v", v, inserted, err)
	}
	tab.Release()
	if m.Used() != 0 {
		t.Fatalf("%d bytes used after Release", m.Used())
	}
}

// benchGroups numbers the groups of keys (SUM(v) GROUP BY k) the way the
// window aggregate does, in batches of 4096 rows; groups of keys keys.
func benchGroups(b *testing.B, nkeys int, reset func(), number func(keys []int64, groups []int32) error) {
	r := rand.New(rand.NewPCG(9, 10))
	keys := make([]int64, 10*nkeys)
	for i := range keys {
		keys[i] = int64(i%nkeys) * 7919
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	groups := make([]int32, 4096)
	sums := make([]int64, nkeys)
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		reset()
		for lo := 0; lo < len(keys); lo += 4096 {
			batch := keys[lo:min(lo+4096, len(keys))]
			if err := number(batch, groups); err != nil {
				b.Fatal(err)
			}
			for i, g := range groups[:len(batch)] {
				sums[g] += batch[i]
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/row")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*len(keys)), "cpu-ns/row")
}

// BenchmarkGroupsIntTable and BenchmarkGroupsHashTable number the groups
// of BIGINT keys, 10 rows a key, in the IntTable (Lookup, then Insert of
// the keys it did not find) and in a HashTable of 4-byte group numbers
// (the window aggregate's table before the IntTable), at a table in the
// cache (10k keys) and beyond it (1M).
func BenchmarkGroupsIntTable(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, _ := NewManager(1<<30, 0)
			hashes, us := make([]uint64, 4096), make([]uint64, 4096)
			tab := NewIntTable(m)
			benchGroups(b, n, tab.Reset, func(keys []int64, groups []int32) error {
				for i, k := range keys {
					us[i], hashes[i] = uint64(k)^1<<63, HashInt64(k)
				}
				tab.Lookup(us[:len(keys)], hashes, groups)
				for i, g := range groups[:len(keys)] {
					if g < 0 {
						v, _, err := tab.Insert(us[i], hashes[i], uint32(tab.Len()))
						if err != nil {
							return err
						}
						groups[i] = int32(v)
					}
				}
				return nil
			})
		})
	}
}

func BenchmarkGroupsHashTable(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, _ := NewManager(1<<30, 0)
			var key []byte
			tab := NewHashTable(m, 4)
			benchGroups(b, n, tab.Reset, func(keys []int64, groups []int32) error {
				for i, k := range keys {
					key = AppendInt64(key[:0], k, Order{})
					acc, inserted, err := tab.FindOrInsert(key, Hash(key))
					if err != nil {
						return err
					}
					if inserted {
						binary.LittleEndian.PutUint32(acc, uint32(tab.Len()-1))
					}
					groups[i] = int32(binary.LittleEndian.Uint32(acc))
				}
				return nil
			})
		})
	}
}

// TestIntTableUnion unites key sets into one table as a window unites
// its slices' keys: every key maps to its value in the union, new keys
// numbered in order, and the union holds exactly the keys of all.
func TestIntTableUnion(t *testing.T) {
	m, err := NewManager(1<<30, 64)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	union := NewIntTable(m)
	model := map[uint64]int32{}
	var order []uint64
	for range 5 {
		var keys, hashes []uint64
		for range 300 {
			k := r.Uint64() % 700
			keys, hashes = append(keys, k), append(hashes, HashInt64(int64(k)))
		}
		to := make([]int32, len(keys))
		added, err := union.Union(keys, hashes, to, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range added {
			if _, ok := model[k]; ok {
				t.Fatalf("key %d reported new twice", k)
			}
			model[k] = int32(len(model))
			order = append(order, k)
		}
		for i, k := range keys {
			if order[to[i]] != k || model[k] != to[i] {
				t.Fatalf("key %d: union value %d, want %d", k, to[i], model[k])
			}
			if v, ok := union.Find(k, hashes[i]); !ok || int32(v) != model[k] {
				t.Fatalf("key %d: %d, %v in the union, want %d", k, v, ok, model[k])
			}
		}
	}
	if union.Len() != len(model) {
		t.Fatalf("union of %d keys, want %d", union.Len(), len(model))
	}
	union.Release()
	if m.Used() != 0 {
		t.Fatalf("%d bytes used after Release", m.Used())
	}
}

// TestIntTableFill checks Fill, stopping at its limit and going on,
// against Insert one key at a time: the same values, new keys numbered in
// order, repeated new keys of a batch found again.
func TestIntTableFill(t *testing.T) {
	m, err := NewManager(1<<30, 64)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(10, 11))
	batch, one := NewIntTable(m), NewIntTable(m)
	for range 20 {
		keys := make([]uint64, 500)
		hashes := make([]uint64, 500)
		for i := range keys {
			keys[i] = r.Uint64() % 3000
			hashes[i] = HashInt64(int64(keys[i]))
		}
		vals := make([]int32, len(keys))
		batch.Lookup(keys, hashes, vals)
		// Room for 7 more values at a time, as a caller whose columns
		// grow by steps.
		var added []uint64
		for done := 0; done < len(keys); {
			n, a, err := batch.Fill(keys[done:], hashes[done:], vals[done:], uint32(batch.Len()), uint32(batch.Len()+7), added)
			if err != nil {
				t.Fatal(err)
			}
			added, done = a, done+n
		}
		n := 0
		for i, k := range keys {
			v, inserted, err := one.Insert(k, hashes[i], uint32(one.Len()))
			if err != nil {
				t.Fatal(err)
			}
			if int32(v) != vals[i] {
				t.Fatalf("key %d: Fill gave %d, Insert %d", k, vals[i], v)
			}
			if inserted {
				if n >= len(added) || added[n] != k {
					t.Fatalf("key %d inserted, Fill added %v", k, added)
				}
				n++
			}
		}
		if n != len(added) || batch.Len() != one.Len() {
			t.Fatalf("Fill added %d keys (table %d), Insert %d (table %d)", len(added), batch.Len(), n, one.Len())
		}
	}
	batch.Release()
	one.Release()
}
