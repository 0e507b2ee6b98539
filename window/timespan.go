package window

import "github.com/apache/arrow-go/v18/arrow"

// timeSpan returns the least and greatest of tv, which must not be
// empty. It keeps four minimums and four maximums, one per lane of four
// rows: a single running minimum and maximum make every row wait for the
// compare and conditional move of the row before it, four chains run side
// by side (half the time per row on this machine's cores). Every batch a
// window aggregate takes is scanned by it or by timeSpanOf.
func timeSpan(tv []arrow.Timestamp) (lo, hi arrow.Timestamp) {
	lo0, hi0 := tv[0], tv[0]
	lo1, hi1, lo2, hi2, lo3, hi3 := lo0, hi0, lo0, hi0, lo0, hi0
	i := 0
	for ; i+4 <= len(tv); i += 4 {
		v := tv[i : i+4 : i+4]
		lo0, hi0 = min(lo0, v[0]), max(hi0, v[0])
		lo1, hi1 = min(lo1, v[1]), max(hi1, v[1])
		lo2, hi2 = min(lo2, v[2]), max(hi2, v[2])
		lo3, hi3 = min(lo3, v[3]), max(hi3, v[3])
	}
	for ; i < len(tv); i++ {
		lo0, hi0 = min(lo0, tv[i]), max(hi0, tv[i])
	}
	return min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)
}

// timeSpanOf is timeSpan of the rows sel of tv (sel must not be empty),
// in the same four lanes.
func timeSpanOf(tv []arrow.Timestamp, sel []int32) (lo, hi arrow.Timestamp) {
	lo0, hi0 := tv[sel[0]], tv[sel[0]]
	lo1, hi1, lo2, hi2, lo3, hi3 := lo0, hi0, lo0, hi0, lo0, hi0
	i := 0
	for ; i+4 <= len(sel); i += 4 {
		r := sel[i : i+4 : i+4]
		a, b, c, d := tv[r[0]], tv[r[1]], tv[r[2]], tv[r[3]]
		lo0, hi0 = min(lo0, a), max(hi0, a)
		lo1, hi1 = min(lo1, b), max(hi1, b)
		lo2, hi2 = min(lo2, c), max(hi2, c)
		lo3, hi3 = min(lo3, d), max(hi3, d)
	}
	for ; i < len(sel); i++ {
		lo0, hi0 = min(lo0, tv[sel[i]]), max(hi0, tv[sel[i]])
	}
	return min(lo0, lo1, lo2, lo3), max(hi0, hi1, hi2, hi3)
}
