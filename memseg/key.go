package memseg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Order is the sort order of one key column.
type Order struct {
	Desc      bool // descending values
	NullsLast bool // NULL after every value (else before), in either direction
}

// The first byte of every encoded key column. DESC inverts the value bytes
// but never the marker, so NULL placement is exactly what NullsLast says.
const (
	markNullFirst = 0x00
	markValue     = 0x01
	markNullLast  = 0x02
)

// String escaping in the full encoding (ascending form; DESC inverts every
// byte after the marker): 0x00 becomes 0x00 0xFF and the value ends with
// 0x00 0x01. The terminator sorts below every continuation, so a string
// sorts before its extensions and a following column never affects the
// comparison of the strings.
const (
	escByte  = 0x00
	escZero  = 0xFF
	escTerm  = 0x01
	maxWidth = 254 // string prefix width; the length byte stores up to width+1
)

// ErrCorrupt is returned (wrapped) when bytes do not decode as a key.
var ErrCorrupt = errors.New("memseg: corrupt key")

// AppendNull appends a NULL of a column with order o.
func AppendNull(dst []byte, o Order) []byte {
	if o.NullsLast {
		return append(dst, markNullLast)
	}
	return append(dst, markNullFirst)
}

// AppendBool appends v; false sorts before true.
func AppendBool(dst []byte, v bool, o Order) []byte {
	var b byte
	if v {
		b = 1
	}
	if o.Desc {
		b = ^b
	}
	return append(dst, markValue, b)
}

// AppendInt64 appends v. INT, DATE and TIMESTAMP columns are widened to
// int64 so that every integer-like column has one encoding.
func AppendInt64(dst []byte, v int64, o Order) []byte {
	return appendUint64(dst, uint64(v)^1<<63, o)
}

// AppendFloat64 appends v in the total order -Inf < ... < -0.0 = 0.0 < ...
// < +Inf < NaN. Every NaN encodes the same way, and -0.0 as 0.0, so the
// encoding is equal exactly when SQL says the values are equal.
func AppendFloat64(dst []byte, v float64, o Order) []byte {
	return appendUint64(dst, float64Bits(v), o)
}

// AppendFloat32 is AppendFloat64 for float32.
func AppendFloat32(dst []byte, v float32, o Order) []byte {
	u := float32Bits(v)
	if o.Desc {
		u = ^u
	}
	return binary.BigEndian.AppendUint32(append(dst, markValue), u)
}

// AppendDecimal128 appends the unscaled 128-bit two's complement value
// hi:lo. Every value of a column must have the same scale.
func AppendDecimal128(dst []byte, hi int64, lo uint64, o Order) []byte {
	h := uint64(hi) ^ 1<<63
	if o.Desc {
		h, lo = ^h, ^lo
	}
	dst = binary.BigEndian.AppendUint64(append(dst, markValue), h)
	return binary.BigEndian.AppendUint64(dst, lo)
}

// AppendString appends s, ordered bytewise (UTF-8 byte order is code point
// order). The encoding is escaped and terminated, so keys concatenated from
// several columns still compare column by column.
func AppendString(dst []byte, s []byte, o Order) []byte {
	dst = append(dst, markValue)
	start := len(dst)
	for {
		i := bytes.IndexByte(s, escByte)
		if i < 0 {
			dst = append(dst, s...)
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, escZero)
		s = s[i+1:]
	}
	dst = append(dst, escByte, escTerm)
	if o.Desc {
		invert(dst[start:])
	}
	return dst
}

func appendUint64(dst []byte, u uint64, o Order) []byte {
	if o.Desc {
		u = ^u
	}
	return binary.BigEndian.AppendUint64(append(dst, markValue), u)
}

// float64Bits maps v to an unsigned integer with the same order.
func float64Bits(v float64) uint64 {
	if v != v {
		return math.MaxUint64
	}
	if v == 0 {
		return 1 << 63 // -0.0 == 0.0
	}
	u := math.Float64bits(v)
	if u&(1<<63) != 0 {
		return ^u
	}
	return u | 1<<63
}

func float32Bits(v float32) uint32 {
	if v != v {
		return math.MaxUint32
	}
	if v == 0 {
		return 1 << 31
	}
	u := math.Float32bits(v)
	if u&(1<<31) != 0 {
		return ^u
	}
	return u | 1<<31
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// marker reads the marker byte of a column encoded with order o.
func marker(b []byte, o Order) (null bool, rest []byte, err error) {
	if len(b) == 0 {
		return false, nil, fmt.Errorf("%w: empty column", ErrCorrupt)
	}
	switch b[0] {
	case markValue:
		return false, b[1:], nil
	case markNullFirst:
		if !o.NullsLast {
			return true, b[1:], nil
		}
	case markNullLast:
		if o.NullsLast {
			return true, b[1:], nil
		}
	}
	return false, nil, fmt.Errorf("%w: marker %#x for order %+v", ErrCorrupt, b[0], o)
}

func fixed(b []byte, n int, o Order) (v []byte, null bool, rest []byte, err error) {
	null, b, err = marker(b, o)
	if err != nil || null {
		return nil, null, b, err
	}
	if len(b) < n {
		return nil, false, nil, fmt.Errorf("%w: %d value bytes, want %d", ErrCorrupt, len(b), n)
	}
	return b[:n], false, b[n:], nil
}

// DecodeBool decodes a column written by AppendBool (or AppendNull) and
// returns the bytes after it.
func DecodeBool(b []byte, o Order) (v, null bool, rest []byte, err error) {
	p, null, rest, err := fixed(b, 1, o)
	if err != nil || null {
		return false, null, rest, err
	}
	c := p[0]
	if o.Desc {
		c = ^c
	}
	if c > 1 {
		return false, false, nil, fmt.Errorf("%w: bool byte %#x", ErrCorrupt, p[0])
	}
	return c == 1, false, rest, nil
}

// DecodeInt64 decodes a column written by AppendInt64 (or AppendNull).
func DecodeInt64(b []byte, o Order) (v int64, null bool, rest []byte, err error) {
	u, null, rest, err := decodeUint64(b, o)
	return int64(u ^ 1<<63), null, rest, err
}

// DecodeFloat64 decodes a column written by AppendFloat64 (or AppendNull).
// A -0.0 comes back as 0.0 and every NaN as the same NaN.
func DecodeFloat64(b []byte, o Order) (v float64, null bool, rest []byte, err error) {
	u, null, rest, err := decodeUint64(b, o)
	if err != nil || null {
		return 0, null, rest, err
	}
	if u&(1<<63) != 0 {
		return math.Float64frombits(u &^ (1 << 63)), false, rest, nil
	}
	return math.Float64frombits(^u), false, rest, nil
}

// DecodeFloat32 decodes a column written by AppendFloat32 (or AppendNull).
func DecodeFloat32(b []byte, o Order) (v float32, null bool, rest []byte, err error) {
	p, null, rest, err := fixed(b, 4, o)
	if err != nil || null {
		return 0, null, rest, err
	}
	u := binary.BigEndian.Uint32(p)
	if o.Desc {
		u = ^u
	}
	if u&(1<<31) != 0 {
		return math.Float32frombits(u &^ (1 << 31)), false, rest, nil
	}
	return math.Float32frombits(^u), false, rest, nil
}

// DecodeDecimal128 decodes a column written by AppendDecimal128 (or
// AppendNull).
func DecodeDecimal128(b []byte, o Order) (hi int64, lo uint64, null bool, rest []byte, err error) {
	p, null, rest, err := fixed(b, 16, o)
	if err != nil || null {
		return 0, 0, null, rest, err
	}
	h, l := binary.BigEndian.Uint64(p), binary.BigEndian.Uint64(p[8:])
	if o.Desc {
		h, l = ^h, ^l
	}
	return int64(h ^ 1<<63), l, false, rest, nil
}

// DecodeString decodes a column written by AppendString (or AppendNull),
// appending the value to dst, so that a caller can reuse one buffer for
// many keys.
func DecodeString(dst, b []byte, o Order) (s []byte, null bool, rest []byte, err error) {
	null, b, err = marker(b, o)
	if err != nil || null {
		return dst, null, b, err
	}
	var x byte // xor mask undoing DESC
	if o.Desc {
		x = 0xFF
	}
	for {
		i := bytes.IndexByte(b, escByte^x)
		if i < 0 || i+1 >= len(b) {
			return dst, false, nil, fmt.Errorf("%w: unterminated string", ErrCorrupt)
		}
		if x == 0 {
			dst = append(dst, b[:i]...)
		} else {
			for _, c := range b[:i] {
				dst = append(dst, ^c)
			}
		}
		switch b[i+1] ^ x {
		case escTerm:
			return dst, false, b[i+2:], nil
		case escZero:
			dst = append(dst, 0)
			b = b[i+2:]
		default:
			return dst, false, nil, fmt.Errorf("%w: bad string escape %#x", ErrCorrupt, b[i+1])
		}
	}
}

func decodeUint64(b []byte, o Order) (uint64, bool, []byte, error) {
	p, null, rest, err := fixed(b, 8, o)
	if err != nil || null {
		return 0, null, rest, err
	}
	u := binary.BigEndian.Uint64(p)
	if o.Desc {
		u = ^u
	}
	return u, false, rest, nil
}
