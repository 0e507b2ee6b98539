package memseg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestHashTableModel(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, segSize := range []int{64, 1 << 10, 32 << 10} {
		m := newManager(t, 1<<30, segSize)
		for _, accSize := range []int{0, 5, 8, 24} {
			tab := NewHashTable(m, accSize)
			for round := range 2 {
				model := map[string]uint64{}
				accs := map[string][]byte{}
				for range scaled(20000, 5000) {
					var key []byte
					switch r.IntN(40) {
					case 0:
						key = []byte{}
					case 1:
						key = bytes.Repeat([]byte{byte(r.IntN(4))}, r.IntN(100)+segSize) // large entry
					default:
						if r.IntN(2) == 0 {
							key = AppendInt64(nil, int64(r.IntN(3000)), Order{})
						} else {
							key = AppendString(nil, fmt.Appendf(nil, "k%d", r.IntN(3000)), Order{})
						}
					}
					_, seen := model[string(key)]
					if _, found, ok := tab.Find(key, Hash(key)); ok != seen || ok && len(found) != accSize {
						t.Fatalf("Find %x: %v, seen %v", key, ok, seen)
					}
					acc, inserted, err := tab.FindOrInsert(key, Hash(key))
					if err != nil {
						t.Fatal(err)
					}
					if inserted == seen {
						t.Fatalf("key %x: inserted %v, seen %v", key, inserted, seen)
					}
					if len(acc) != accSize {
						t.Fatalf("acc of %d bytes", len(acc))
					}
					if inserted {
						if !bytes.Equal(acc, make([]byte, accSize)) {
							t.Fatal("new accumulator not zeroed")
						}
						accs[string(key)] = acc
					} else if accSize > 0 && &accs[string(key)][0] != &acc[0] {
						t.Fatal("accumulator moved")
					}
					model[string(key)]++
					if accSize >= 8 {
						binary.LittleEndian.PutUint64(acc, binary.LittleEndian.Uint64(acc)+1)
					}
				}
				if tab.Len() != len(model) {
					t.Fatalf("Len %d, want %d", tab.Len(), len(model))
				}
				seen := 0
				for it := tab.Iter(); it.Next(); seen++ {
					n, ok := model[string(it.Key())]
					if !ok {
						t.Fatalf("unknown key %x", it.Key())
					}
					if accSize >= 8 && binary.LittleEndian.Uint64(it.Acc()) != n {
						t.Fatalf("key %x: count %d, want %d", it.Key(), binary.LittleEndian.Uint64(it.Acc()), n)
					}
				}
				if seen != len(model) {
					t.Fatalf("iterated %d of %d", seen, len(model))
				}
				it, err := tab.Sorted(nil)
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for it.Next() {
					keys = append(keys, string(it.Key()))
				}
				it.Close()
				if len(keys) != len(model) || !slices.IsSorted(keys) {
					t.Fatalf("sorted iteration: %d keys, sorted %v", len(keys), slices.IsSorted(keys))
				}
				if round == 0 {
					tab.Reset()
					if m.Used() != 0 || tab.Len() != 0 {
						t.Fatalf("after Reset: Used %d, Len %d", m.Used(), tab.Len())
					}
				}
			}
			tab.Release()
			if m.Used() != 0 {
				t.Fatalf("Used = %d after Release", m.Used())
			}
		}
	}
}

func TestHashTableSortedLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	m := newManager(t, 1<<30, 1<<10)
	cols := []KeyCol{{Type: String, Order: Order{Desc: true}, Width: 3}, {Type: Int64, Order: Order{NullsLast: true}}}
	l, err := NewLayout(cols...)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewHashTable(m, 8)
	defer tab.Release()
	var rows [][]val
	for range 5000 {
		row := []val{randVal(r, String), randVal(r, Int64)}
		k := encodeRow(nil, cols, row)
		if _, ins, err := tab.FindOrInsert(k, Hash(k)); err != nil {
			t.Fatal(err)
		} else if ins {
			rows = append(rows, row)
		}
	}
	slices.SortFunc(rows, func(a, b []val) int { return rowCompare(cols, a, b) })
	it, err := tab.Sorted(l)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for i := 0; it.Next(); i++ {
		if want := encodeRow(nil, cols, rows[i]); !bytes.Equal(it.Key(), want) {
			t.Fatalf("entry %d: %x, want %x", i, it.Key(), want)
		}
	}
}

func TestHashTableNoMemory(t *testing.T) {
	m := newManager(t, 8<<10, 1<<10)
	tab := NewHashTable(m, 8)
	var keys [][]byte
	for i := 0; ; i++ {
		k := AppendInt64(nil, int64(i), Order{})
		acc, _, err := tab.FindOrInsert(k, Hash(k))
		if errors.Is(err, ErrNoMemory) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint64(acc, uint64(i))
		keys = append(keys, k)
	}
	if tab.Len() != len(keys) || len(keys) == 0 {
		t.Fatalf("Len %d, %d keys", tab.Len(), len(keys))
	}
	for i, k := range keys {
		acc, ins, err := tab.FindOrInsert(k, Hash(k))
		if err != nil || ins || binary.LittleEndian.Uint64(acc) != uint64(i) {
			t.Fatalf("key %d after ErrNoMemory: %v %v %d", i, err, ins, binary.LittleEndian.Uint64(acc))
		}
	}
	// A Reset table sizes its buckets for as many keys as before, but
	// falls back to the smallest size when that does not fit.
	tab.Reset()
	var hold [][]byte
	for m.Used() < m.Budget()-2<<10 { // leave one bucket and one entry segment
		s, err := m.Alloc()
		if err != nil {
			t.Fatal(err)
		}
		hold = append(hold, s)
	}
	k := AppendInt64(nil, 1, Order{})
	if _, _, err := tab.FindOrInsert(k, Hash(k)); err != nil {
		t.Fatalf("insert into a Reset table: %v", err)
	}
	if tab.bits != tab.sshift {
		t.Fatalf("buckets of %d slots", 1<<tab.bits)
	}
	for _, s := range hold {
		m.Free(s)
	}
	tab.Release()
	if m.Used() != 0 {
		t.Fatalf("Used = %d", m.Used())
	}
}

// TestHashTableIterFrom inserts keys (some larger than a segment) in
// rounds and checks that IterFrom(End()) taken before a round walks
// exactly that round's new keys, in insertion order.
func TestHashTableIterFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, segSize := range []int{64, 1 << 10} {
		tab := NewHashTable(newManager(t, 1<<30, segSize), 4)
		var all [][]byte
		for round := range 30 {
			mark := tab.End()
			var added [][]byte
			for range r.IntN(50) {
				key := AppendInt64(nil, r.Int64N(2000), Order{})
				if r.IntN(20) == 0 {
					key = bytes.Repeat([]byte{byte(round)}, segSize+r.IntN(100))
				}
				if _, inserted, err := tab.FindOrInsert(key, Hash(key)); err != nil {
					t.Fatal(err)
				} else if inserted {
					added = append(added, key)
				}
			}
			var got [][]byte
			for it := tab.IterFrom(mark); it.Next(); {
				if it.Addr() < mark {
					t.Fatalf("entry at %d before the mark %d", it.Addr(), mark)
				}
				got = append(got, slices.Clone(it.Key()))
			}
			if !slices.EqualFunc(got, added, bytes.Equal) {
				t.Fatalf("segment size %d, round %d: IterFrom walked %d keys, %d were added", segSize, round, len(got), len(added))
			}
			all = append(all, added...)
		}
		n := 0
		for it := tab.IterFrom(0); it.Next(); {
			n++
		}
		if n != len(all) {
			t.Fatalf("IterFrom(0) walked %d of %d", n, len(all))
		}
	}
}
