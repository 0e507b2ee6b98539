package memseg

import (
	"encoding/binary"
	"math/bits"
)

// xxHash64 primes (https://github.com/Cyan4973/xxHash, XXH64 spec).
const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// Hash returns the XXH64 hash (seed 0) of key. It is a fixed function of the
// bytes, the same in every process and on every machine, because key groups
// are derived from it and a restored savepoint must route every key to the
// key group that holds its state.
func Hash(key []byte) uint64 {
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
