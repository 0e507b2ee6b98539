package memseg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestHashUnchanged compares Hash with the hand-written XXH64 it replaced,
// on keys of every length up to 200 bytes (both loops and every tail).
func TestHashUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 201 {
		for range 50 {
			key := make([]byte, n)
			for i := range key {
				key[i] = byte(r.Uint32())
			}
			if got, want := Hash(key), refHash(key); got != want {
				t.Fatalf("Hash(%x) = %#x, the hand-written XXH64 %#x", key, got, want)
			}
		}
	}
}

func benchHash(b *testing.B, h func([]byte) uint64) {
	for _, n := range []int{8, 16, 40, 100} {
		key := make([]byte, n)
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			var sum uint64
			for range b.N {
				sum += h(key)
				key[0]++
			}
			_ = sum
		})
	}
}

// BenchmarkHash and BenchmarkHashHandWritten compare the library with the
// code it replaced, at key lengths typical of grouping keys.
func BenchmarkHash(b *testing.B)            { benchHash(b, Hash) }
func BenchmarkHashHandWritten(b *testing.B) { benchHash(b, refHash) }

// refHash is the hand-written XXH64 (seed 0) that Hash replaced with the
// library's: checkpoints and savepoints route keys to key groups by it, so
// Hash must give the same values forever.
func refHash(key []byte) uint64 {
	n := len(key)
	var h uint64
	if n >= 32 {
		p1, p2 := prime1, prime2 // variables: the sums below wrap around
		v1 := p1 + p2
		v2 := p2
		v3 := uint64(0)
		v4 := -p1
		for len(key) >= 32 {
			v1 = round(v1, binary.LittleEndian.Uint64(key[0:8]))
			v2 = round(v2, binary.LittleEndian.Uint64(key[8:16]))
			v3 = round(v3, binary.LittleEndian.Uint64(key[16:24]))
			v4 = round(v4, binary.LittleEndian.Uint64(key[24:32]))
			key = key[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) +
			bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = mergeRound(h, v1)
		h = mergeRound(h, v2)
		h = mergeRound(h, v3)
		h = mergeRound(h, v4)
	} else {
		h = prime5
	}
	h += uint64(n)
	for ; len(key) >= 8; key = key[8:] {
		h ^= round(0, binary.LittleEndian.Uint64(key))
		h = bits.RotateLeft64(h, 27)*prime1 + prime4
	}
	if len(key) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(key)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		key = key[4:]
	}
	for _, c := range key {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

func round(acc, in uint64) uint64 {
	acc += in * prime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * prime1
}

func mergeRound(acc, v uint64) uint64 {
	acc ^= round(0, v)
	return acc*prime1 + prime4
}

// TestHashInt64 holds HashInt64 to Hash of the encoded key, on edge
// values and random ones.
func TestHashInt64(t *testing.T) {
	vals := []int64{0, 1, -1, 255, 256, -256, 1 << 62, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	r := rand.New(rand.NewPCG(3, 4))
	for range 10000 {
		vals = append(vals, int64(r.Uint64()), int64(r.Uint64()>>40))
	}
	for _, v := range vals {
		if got, want := HashInt64(v), Hash(AppendInt64(nil, v, Order{})); got != want {
			t.Fatalf("HashInt64(%d) = %#x, Hash of its key %#x", v, got, want)
		}
	}
}

func FuzzHashInt64(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, v int64) {
		if got, want := HashInt64(v), Hash(AppendInt64(nil, v, Order{})); got != want {
			t.Fatalf("HashInt64(%d) = %#x, Hash of its key %#x", v, got, want)
		}
	})
}

// BenchmarkHashInt64 is BenchmarkHash's 9-byte key without the encoding.
func BenchmarkHashInt64(b *testing.B) {
	var sum uint64
	for i := range b.N {
		sum += HashInt64(int64(i))
	}
	_ = sum
}
