package agg

import (
	"testing"

	"github.com/strandsql/strand/types"
)

// TestFingerprintMark: only a SUM or AVG of FLOAT or DOUBLE marks the
// fingerprint; COUNT, MIN and MAX of a DOUBLE and sums of integers and
// decimals leave it as it was.
func TestFingerprintMark(t *testing.T) {
	in := types.Schema{
		{Name: "i", Type: types.TInt}, {Name: "b", Type: types.TBigInt},
		{Name: "f", Type: types.TFloat}, {Name: "d", Type: types.TDouble.WithNotNull(true)},
		{Name: "m", Type: types.DecimalOf(10, 2)},
	}
	for _, tc := range []struct {
		calls []Call
		want  string
	}{
		{nil, ""},
		{[]Call{{Kind: CountStar, Arg: -1}, {Kind: Sum, Arg: 0}, {Kind: Avg, Arg: 1}, {Kind: Sum, Arg: 4}}, ""},
		{[]Call{{Kind: Count, Arg: 3}, {Kind: Min, Arg: 3}, {Kind: Max, Arg: 2}}, ""},
		{[]Call{{Kind: Sum, Arg: 1}, {Kind: Sum, Arg: 3}}, ExactFloatSums},
		{[]Call{{Kind: Avg, Arg: 2}}, ExactFloatSums},
		{[]Call{{Kind: Max, Arg: 3}, {Kind: Avg, Arg: 3, Distinct: true, Filter: 0}}, ExactFloatSums},
	} {
		if got := FingerprintMark(tc.calls, in); got != tc.want {
			t.Errorf("FingerprintMark(%v) = %q, want %q", tc.calls, got, tc.want)
		}
	}
}
