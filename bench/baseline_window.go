package bench

import "github.com/strandsql/strand/exec/connector"

func init() { baselines["q7"] = baselineQ7 }

// baselineQ7 keeps the bids at the highest price of a 10-second window of
// dateTime whose span, both ends included, holds the bid: a window's own
// bids at its top price, and a bid at the very end of a window (the first
// instant of the next) at the top price of the window it ends. Bids come
// in time order, so each window keeps the bids at its running top price,
// emitted when the window ends.
func baselineQ7(opts map[string]string) (digest, error) {
	var d digest
	cur, top := int64(-1), int64(0) // the window open and its top price
	prevEnd, prevTop := int64(-1), int64(0)
	var tops []uint64 // the hashes of the bids at the top price
	flush := func() {
		for _, h := range tops {
			d.sum += h
		}
		d.rows += int64(len(tops))
		tops = tops[:0]
	}
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i, at := range b.DateTime {
			p := b.Price[i]
			if s := at - at%windowSize; s != cur {
				flush()
				if cur >= 0 {
					prevEnd, prevTop = cur+windowSize, top
				}
				cur, top = s, p
			}
			onEdge := at == prevEnd && p == prevTop
			if p < top && !onEdge {
				continue
			}
			h := mix(mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(p)), uint64(at))
			h = strHash(h, b.Extra.At(i))
			if onEdge {
				d.sum += h
				d.rows++
			}
			if p > top {
				top, tops = p, tops[:0]
			}
			if p == top {
				tops = append(tops, h)
			}
		}
		return nil
	})
	flush()
	return d, err
}
