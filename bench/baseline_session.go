package bench

import "github.com/strandsql/strand/exec/connector"

// sessionGap is q11's session gap.
const sessionGap = 10_000 // ms

// baselineQ11 counts the bids of each bidder's sessions: a bidder's
// session runs on while its next bid is at most one gap after the end so
// far (the bid's time plus the gap), as Flink's session windows merge
// touching sessions. Bids come in time order, so a bid past a session's
// end closes it for good.
func baselineQ11(opts map[string]string) (digest, error) {
	type sess struct{ start, end, n int64 }
	var d digest
	open := map[int64]*sess{}
	emit := func(bidder int64, s *sess) {
		d.sum += mix(mix(mix(mix(rowSeed, uint64(bidder)), uint64(s.n)), uint64(s.start)), uint64(s.end))
		d.rows++
	}
	err := connector.GenerateBids(opts, []string{"bidder", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, ts := range b.DateTime {
			bidder := b.Bidder[i]
			s := open[bidder]
			switch {
			case s == nil:
				open[bidder] = &sess{start: ts, end: ts + sessionGap, n: 1}
			case ts <= s.end:
				s.end, s.n = max(s.end, ts+sessionGap), s.n+1
			default:
				emit(bidder, s)
				*s = sess{start: ts, end: ts + sessionGap, n: 1}
			}
		}
		return nil
	})
	for bidder, s := range open {
		emit(bidder, s)
	}
	return d, err
}
