package memseg

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

const benchRecords = 10_000_000

func benchKeys(n int) []int64 {
	r := rand.New(rand.NewPCG(7, 8))
	ks := make([]int64, n)
	for i := range ks {
		ks[i] = int64(r.Uint64())
	}
	return ks
}

// BenchmarkSortBuffer adds 10M records (BIGINT key, 16-byte payload) to a
// sort buffer, sorts them and reads them back in order. The buffer is
// filled once before timing, so the loop measures the steady state of a
// reused buffer.
func BenchmarkSortBuffer(b *testing.B) {
	ks := benchKeys(benchRecords)
	m, err := NewManager(1<<30, 0)
	if err != nil {
		b.Fatal(err)
	}
	l, err := NewLayout(KeyCol{Type: Int64})
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewSortBuffer(m, l)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		b.StopTimer() // the manager's free list grows to take the segments back
		s.Release()
	}()
	var key [9]byte
	var payload [16]byte
	fill := func() {
		s.Reset()
		for i, k := range ks {
			binary.LittleEndian.PutUint64(payload[:], uint64(i))
			if err := s.Add(AppendInt64(key[:0], k, Order{}), payload[:]); err != nil {
				b.Fatal(err)
			}
		}
	}
	fill()
	runtime.GC() // settle the heap the warm-up grew, so the GC stays out of the timing
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		fill()
		s.Sort()
		var prev []byte
		for it := s.Iter(); it.Next(); {
			if string(it.Key()) < string(prev) {
				b.Fatal("out of order")
			}
			prev = it.Key()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRecords), "ns/record")
}

// BenchmarkSortSliceBaseline is BenchmarkSortBuffer's work done the Go way:
// a slice of structs sorted with slices.SortFunc.
func BenchmarkSortSliceBaseline(b *testing.B) {
	type rec struct {
		key     int64
		payload [16]byte
	}
	ks := benchKeys(benchRecords)
	recs := make([]rec, 0, len(ks))
	runtime.GC()
	fill := func() {
		recs = recs[:0]
		for i, k := range ks {
			var r rec
			r.key = k
			binary.LittleEndian.PutUint64(r.payload[:], uint64(i))
			recs = append(recs, r)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		fill()
		slices.SortFunc(recs, func(a, b rec) int { return cmp.Compare(a.key, b.key) })
		for i := 1; i < len(recs); i++ {
			if recs[i].key < recs[i-1].key {
				b.Fatal("out of order")
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRecords), "ns/record")
}

const (
	aggRows = 1_000_000
	aggKeys = 100_000
)

func aggInput() (keys []int64, vals []int64) {
	r := rand.New(rand.NewPCG(9, 10))
	keys, vals = make([]int64, aggRows), make([]int64, aggRows)
	for i := range keys {
		keys[i] = int64(i%aggKeys) * 7919
		vals[i] = int64(r.IntN(1000))
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys, vals
}

// BenchmarkHashTable computes SUM(v) GROUP BY k over 1M rows with 100k
// distinct BIGINT keys in a segment hash table, then reads every group.
func BenchmarkHashTable(b *testing.B) {
	keys, vals := aggInput()
	m, err := NewManager(1<<30, 0)
	if err != nil {
		b.Fatal(err)
	}
	t := NewHashTable(m, 8)
	defer func() {
		b.StopTimer()
		t.Release()
	}()
	var key []byte
	b.ReportAllocs()
	for i := -1; i < b.N; i++ {
		if i == 0 {
			b.ResetTimer() // after one round to warm the manager
		}
		t.Reset()
		for i, k := range keys {
			key = AppendInt64(key[:0], k, Order{})
			acc, _, err := t.FindOrInsert(key, Hash(key))
			if err != nil {
				b.Fatal(err)
			}
			binary.LittleEndian.PutUint64(acc, binary.LittleEndian.Uint64(acc)+uint64(vals[i]))
		}
		var total uint64
		for it := t.Iter(); it.Next(); {
			total += binary.LittleEndian.Uint64(it.Acc())
		}
		if t.Len() != aggKeys || total == 0 {
			b.Fatalf("%d groups", t.Len())
		}
	}
}

// BenchmarkHashTableMapBaseline is BenchmarkHashTable's aggregation in a Go
// map keyed by the same normalized keys, written the fast way: the lookup
// by string(key) does not allocate, a new group allocates its key and its
// accumulator, and updates go through the pointer.
func BenchmarkHashTableMapBaseline(b *testing.B) {
	keys, vals := aggInput()
	groups := map[string]*int64{}
	var key []byte
	b.ReportAllocs()
	for i := -1; i < b.N; i++ {
		if i == 0 {
			b.ResetTimer() // after one round to size the map
		}
		clear(groups)
		for i, k := range keys {
			key = AppendInt64(key[:0], k, Order{})
			acc := groups[string(key)]
			if acc == nil {
				acc = new(int64)
				groups[string(key)] = acc
			}
			*acc += vals[i]
		}
		var total int64
		for _, v := range groups {
			total += *v
		}
		if len(groups) != aggKeys || total == 0 {
			b.Fatalf("%d groups", len(groups))
		}
	}
}

// quicksort is the comparison sort the radix sort was measured against: a
// median-of-three quicksort of the same entries, insertion sort below
// smallSort.
func (x *index) quicksort(lo, hi int) {
	for hi-lo > smallSort {
		mid := lo + (hi-lo)/2
		if x.cmp(x.at(mid), x.at(lo), 0) < 0 {
			x.swap(mid, lo)
		}
		if x.cmp(x.at(hi-1), x.at(mid), 0) < 0 {
			x.swap(hi-1, mid)
			if x.cmp(x.at(mid), x.at(lo), 0) < 0 {
				x.swap(mid, lo)
			}
		}
		pivot := append([]byte(nil), x.at(mid)...)
		i, j := lo, hi-1
		for i <= j {
			for x.cmp(x.at(i), pivot, 0) < 0 {
				i++
			}
			for x.cmp(x.at(j), pivot, 0) > 0 {
				j--
			}
			if i <= j {
				x.swap(i, j)
				i++
				j--
			}
		}
		if j-lo < hi-i {
			x.quicksort(lo, j+1)
			lo = i
		} else {
			x.quicksort(i, hi)
			hi = j + 1
		}
	}
	x.insertion(lo, hi, 0)
}

// BenchmarkIndexSort compares the radix sort of sort buffer entries with a
// quicksort of the same entries (1M random BIGINT keys).
func BenchmarkIndexSort(b *testing.B) {
	ks := benchKeys(1_000_000)
	for _, alg := range []string{"radix", "quicksort"} {
		b.Run(alg, func(b *testing.B) {
			m, _ := NewManager(1<<30, 0)
			l, _ := NewLayout(KeyCol{Type: Int64})
			s, err := NewSortBuffer(m, l)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Release()
			var key [9]byte
			for range b.N {
				b.StopTimer()
				s.Reset()
				for _, k := range ks {
					if err := s.Add(AppendInt64(key[:0], k, Order{}), nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if alg == "radix" {
					s.Sort()
				} else {
					s.idx.quicksort(0, s.idx.n)
				}
				b.StopTimer()
				for i := 1; i < s.Len(); i++ {
					if s.idx.cmp(s.idx.at(i-1), s.idx.at(i), 0) > 0 {
						b.Fatalf("%s: entry %d out of order", alg, i)
					}
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ks)), "ns/entry")
		})
	}
}
