package memseg

import (
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Hash returns the XXH64 hash (seed 0) of key. It is a fixed function of the
// bytes, the same in every process and on every machine, because key groups
// are derived from it and a restored savepoint must route every key to the
// key group that holds its state. The library's XXH64 has assembly for the
// long loop; TestHashUnchanged holds it to the hand-written one it replaced.
func Hash(key []byte) uint64 { return xxhash.Sum64(key) }

// xxHash64 primes (https://github.com/Cyan4973/xxHash, XXH64 spec).
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// HashInt64 is Hash(AppendInt64(nil, v, Order{})): the hash of the
// normalized key of an integer-like column's value v (a one-column key,
// ascending), computed without encoding it. Hash exchanges and window
// aggregates call it per row, so it is XXH64 written out for that one
// 9-byte input (the marker byte and 8 bytes big-endian): one 8-byte lane,
// one tail byte, the avalanche. TestHashInt64 holds it to Hash.
func HashInt64(v int64) uint64 {
	u := uint64(v) ^ 1<<63
	// The key's first 8 bytes, read little-endian: the marker, then u's
	// seven high bytes from the most significant down; the ninth is u's
	// low byte.
	lane := markValue | bits.ReverseBytes64(u)<<8
	h := prime5 + 9
	k := bits.RotateLeft64(lane*prime2, 31) * prime1
	h ^= k
	h = bits.RotateLeft64(h, 27)*prime1 + prime4
	h ^= (u & 0xff) * prime5
	h = bits.RotateLeft64(h, 11) * prime1
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}
