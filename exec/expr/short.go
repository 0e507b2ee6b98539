package expr

import (
	"encoding/binary"
	"math/bits"
)

// Comparing a column of short strings with a literal branches on data that
// is often random (a third of the rows start with 'a'), and mispredicted
// branches then cost more than the comparisons. A literal of up to 8 bytes
// is compared instead as one masked word loaded from the string's place in
// the data buffer, and the length test folds in without a branch.

// short is a literal of 1 to 8 bytes as a little-endian word.
type short struct {
	word, mask uint64
	n          int
}

func shortOf(lit []byte) (short, bool) {
	if len(lit) == 0 || len(lit) > 8 {
		return short{}, false
	}
	s := short{n: len(lit), mask: ^uint64(0) >> (64 - 8*uint(len(lit)))}
	for k, b := range lit {
		s.word |= uint64(b) << (8 * uint(k))
	}
	return s, true
}

// word8 reads the 8 bytes of data from i, zero past its end.
func word8(data []byte, i int) uint64 {
	if i+8 <= len(data) {
		return binary.LittleEndian.Uint64(data[i:])
	}
	var w uint64
	for k := 0; k < 8 && i+k < len(data); k++ {
		w |= uint64(data[i+k]) << (8 * uint(k))
	}
	return w
}

// word8End reads the 8 bytes of data that end at end, zero before its
// start.
func word8End(data []byte, end int) uint64 {
	if end >= 8 {
		return binary.LittleEndian.Uint64(data[end-8:])
	}
	var w uint64
	for k := 8 - end; k < 8; k++ {
		w |= uint64(data[end-8+k]) << (8 * uint(k))
	}
	return w
}

// matchShort sets, for the live rows of the column v, whether the string
// starts with (prefix), ends with (suffix) or is (whole) the literal.
func (nd *node) matchShort(o []uint64, rows int, act []uint64, v *vec, lit short, how shape) {
	offs, data := v.offs[:rows+1], v.data
	for w := range o {
		var r uint64
		for m := nd.liveWord(w, rows, act); m != 0; m &= m - 1 {
			j := bits.TrailingZeros64(m)
			at, end := int(offs[w*64+j]), int(offs[w*64+j+1])
			var ok uint64
			switch how {
			case prefix:
				ok = b2u(end-at >= lit.n) & b2u(word8(data, at)&lit.mask == lit.word)
			case suffix:
				ok = b2u(end-at >= lit.n) & b2u(word8End(data, end)>>(64-8*uint(lit.n)) == lit.word)
			default:
				ok = b2u(end-at == lit.n) & b2u(word8(data, at)&lit.mask == lit.word)
			}
			r |= ok << (uint(j) & 63)
		}
		o[w] = r
	}
}
