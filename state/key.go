package state

import (
	"encoding/binary"
	"fmt"
)

// encodeKey appends the Pebble key of (uid, kg, name, key) to dst:
//
//	uvarint(len(uid)) uid | kg big-endian uint16 | uvarint(len(name)) name | key
//
// The length prefixes make the layout unambiguous whatever bytes uid and
// name hold, and the big-endian key group sorts a uid's key groups in
// numeric order, so one key-group range is one contiguous key range.
func encodeKey(dst []byte, uid string, kg uint16, name string, key []byte) []byte {
	dst = appendUID(dst, uid)
	dst = binary.BigEndian.AppendUint16(dst, kg)
	dst = binary.AppendUvarint(dst, uint64(len(name)))
	dst = append(dst, name...)
	return append(dst, key...)
}

// maxKeyLen bounds the length of what encodeKey appends.
func maxKeyLen(uid, name string, key []byte) int {
	return 2*binary.MaxVarintLen64 + len(uid) + 2 + len(name) + len(key)
}

func appendUID(dst []byte, uid string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(uid)))
	return append(dst, uid...)
}

// decodeKey splits a key that encodeKey built for some uid whose encoded
// prefix is uidLen bytes long.
func decodeKey(k []byte, uidLen int) (kg uint16, name, key []byte, err error) {
	k = k[uidLen:]
	if len(k) < 2 {
		return 0, nil, nil, fmt.Errorf("state: short key %x", k)
	}
	kg = binary.BigEndian.Uint16(k)
	n, w := binary.Uvarint(k[2:])
	if w <= 0 || uint64(len(k)-2-w) < n {
		return 0, nil, nil, fmt.Errorf("state: bad state name length in key %x", k)
	}
	name = k[2+w : 2+w+int(n)]
	return kg, name, k[2+w+int(n):], nil
}

// successor returns the smallest key greater than every key with prefix p,
// or nil (no upper bound) when p is all 0xff.
func successor(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			s := append([]byte(nil), p[:i+1]...)
			s[i]++
			return s
		}
	}
	return nil
}
