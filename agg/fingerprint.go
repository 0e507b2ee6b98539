package agg

import "github.com/strandsql/strand/types"

// ExactFloatSums marks the state schema fingerprint of an operator whose
// checkpointed accumulators include a FLOAT or DOUBLE SUM or AVG: their
// state may hold an exact sum's encoding (fsum.go), which a strand from
// before exact sums would misread as a count and a double. That strand
// compares fingerprints exactly, so the mark makes it refuse the state,
// naming the mark in its error. A strand with exact sums also takes state
// without the mark (exec/restore.go): it was written before exact
// sums, each sum a count and a double, which Get reads.
const ExactFloatSums = "+exact-float-sums"

// FingerprintMark returns what an operator that checkpoints the
// accumulators of calls, over arguments of the columns of in, appends to
// its state schema fingerprint: ExactFloatSums when a call is a SUM or
// AVG of FLOAT or DOUBLE, else "", so that state of every other
// accumulator keeps its fingerprint and stays interchangeable with a
// strand from before exact sums (its encoding did not change).
func FingerprintMark(calls []Call, in types.Schema) string {
	for _, c := range calls {
		if (c.Kind != Sum && c.Kind != Avg) || c.Arg < 0 || c.Arg >= len(in) {
			continue
		}
		if k := in[c.Arg].Type.Kind; k == types.Float || k == types.Double {
			return ExactFloatSums
		}
	}
	return ""
}
