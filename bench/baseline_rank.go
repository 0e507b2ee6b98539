package bench

import (
	"cmp"
	"slices"

	"github.com/strandsql/strand/exec/connector"
)

// Baselines of the Top-N queries over bids: q18 keeps each bidder's last
// bid on each auction, q19 the ten highest bids on each auction with their
// rank.

func init() {
	baselines["q18"] = baselineQ18
	digestColumns["q18"] = []int{0, 1, 5}
	baselines["q19"] = baselineQ19
}

// bidHash is a bid's row hash: auction, bidder, price, channel, url,
// dateTime and extra, the bid table's columns.
func bidHash(b *connector.Bids, i int) uint64 {
	h := mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i]))
	h = strHash(strHash(h, b.Channel.At(i)), b.URL.At(i))
	return strHash(mix(h, uint64(b.DateTime[i])), b.Extra.At(i))
}

var bidCols = []string{"auction", "bidder", "price", "channel", "url", "dateTime", "extra"}

// baselineQ18 keeps each bidder's last bid on each auction. Of bids of
// equal time the engine keeps the last to arrive, which depends on timing
// (the generator's splits interleave, and at 10 million events per second
// a bidder often bids twice on an auction in one millisecond); the
// baseline keeps the last in event order. Only the columns that do not
// depend on which are compared: auction, bidder and dateTime.
func baselineQ18(opts map[string]string) (digest, error) {
	type last struct{ at, h uint64 } // the bid's time, and its row kept as its hash
	idx := map[[2]int64]int32{}
	var rows []last
	err := connector.GenerateBids(opts, bidCols, baselineBatch, func(b *connector.Bids) error {
		for i, at := range b.DateTime {
			key := [2]int64{b.Bidder[i], b.Auction[i]}
			k, ok := idx[key]
			if !ok {
				idx[key] = int32(len(rows))
				rows = append(rows, last{uint64(at), bidHash(b, i)})
				continue
			}
			if r := &rows[k]; uint64(at) >= r.at {
				r.at, r.h = uint64(at), bidHash(b, i)
			}
		}
		return nil
	})
	var d digest
	for key, k := range idx {
		d.sum += mix(mix(mix(rowSeed, uint64(key[1])), uint64(key[0])), rows[k].at)
	}
	d.rows = int64(len(rows))
	return d, err
}

// topBid is one of an auction's highest bids (its auction aside).
type topBid struct {
	price, bidder, at   int64
	channel, url, extra string
}

// cmpTop orders bid i of b against t as q19's Top-N orders an auction's
// bids: price descending, then (rows that tie, by their other columns)
// bidder, channel, url, dateTime and extra ascending.
func cmpTop(b *connector.Bids, i int, t *topBid) int {
	if c := cmp.Compare(t.price, b.Price[i]); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Bidder[i], t.bidder); c != 0 {
		return c
	}
	if c := cmpStr(b.Channel.At(i), t.channel); c != 0 {
		return c
	}
	if c := cmpStr(b.URL.At(i), t.url); c != 0 {
		return c
	}
	if c := cmp.Compare(b.DateTime[i], t.at); c != 0 {
		return c
	}
	return cmpStr(b.Extra.At(i), t.extra)
}

// cmpStr compares b and s bytewise, as strand's keys order strings
// (the conversions in comparisons do not copy).
func cmpStr(b []byte, s string) int {
	switch {
	case string(b) < s:
		return -1
	case string(b) > s:
		return 1
	}
	return 0
}

// q19N is how many bids of each auction q19 keeps.
const q19N = 10

// baselineQ19 keeps the ten highest bids of each auction, numbered.
func baselineQ19(opts map[string]string) (digest, error) {
	idx := map[int64]int32{}
	var tops [][]topBid
	var auctions []int64
	err := connector.GenerateBids(opts, bidCols, baselineBatch, func(b *connector.Bids) error {
		for i, a := range b.Auction {
			k, ok := idx[a]
			if !ok {
				k = int32(len(tops))
				idx[a] = k
				tops, auctions = append(tops, make([]topBid, 0, 1)), append(auctions, a)
			}
			t := tops[k]
			if len(t) == q19N && b.Price[i] < t[q19N-1].price {
				continue
			}
			at := len(t)
			for at > 0 && cmpTop(b, i, &t[at-1]) < 0 {
				at--
			}
			if at == q19N {
				continue
			}
			row := topBid{b.Price[i], b.Bidder[i], b.DateTime[i], string(b.Channel.At(i)), string(b.URL.At(i)), string(b.Extra.At(i))}
			t = slices.Insert(t, at, row)
			tops[k] = t[:min(len(t), q19N)]
		}
		return nil
	})
	var d digest
	for k, t := range tops {
		for n, r := range t {
			h := mix(mix(mix(rowSeed, uint64(auctions[k])), uint64(r.bidder)), uint64(r.price))
			h = mix(hashStr(hashStr(h, r.channel), r.url), uint64(r.at))
			d.sum += mix(hashStr(h, r.extra), uint64(n+1))
			d.rows++
		}
	}
	return d, err
}

func hashStr(h uint64, s string) uint64 { return mix(h, hs(s)) }
