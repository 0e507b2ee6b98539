package bench

import (
	"strconv"

	"github.com/strandsql/strand/exec/connector"
	"github.com/strandsql/strand/queries/nexmark"
)

func init() { baselines["q13"] = baselineQ13 }

// baselineQ13 joins every bid with the side input strand bench writes
// (nexmark.WriteSideInput: the rows i,i for i below SideInputRows) on
// MOD(auction, SideInputRows) = key: the side input's value is the key
// written out, so the lookup is a formatting of the key, and the join
// drops no bid whose key is in range.
func baselineQ13(opts map[string]string) (digest, error) {
	var d digest
	var buf []byte
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			key := b.Auction[i] % nexmark.SideInputRows
			if key < 0 {
				continue // MOD keeps the dividend's sign: no side row has a negative key
			}
			h := mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i]))
			h = mix(h, uint64(b.DateTime[i]))
			buf = strconv.AppendInt(buf[:0], key, 10)
			d.sum += strHash(h, buf)
			d.rows++
		}
		return nil
	})
	return d, err
}
