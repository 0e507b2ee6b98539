package bench

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/strandsql/strand/exec/connector"
)

// Baselines of the queries over the winning bids of auctions: the bids on
// an auction made between its dateTime and its expiry, both included. q4
// averages the highest bid of each auction per category, q9 keeps each
// auction's best bid (the highest, then the earliest) with the auction,
// and q6 averages, per seller, the best bids at or above the reserve of
// the seller's ten auctions whose best bid came last. The auctions are read
// first, into a slice indexed by a map from their id, then the bids.

func init() {
	baselines["q4"] = baselineQ4
	baselines["q6"] = baselineQ6
	baselines["q9"] = baselineQ9
}

// auctionIndex maps an auction id to its place in a baseline's slice.
type auctionIndex map[int64]int32

// baselineQ4 averages, per category, the highest price bid on each
// auction of the category within its lifetime (auctions without such a
// bid left out).
func baselineQ4(opts map[string]string) (digest, error) {
	type auction struct{ start, expires, category, top int64 }
	idx, auctions := auctionIndex{}, []auction(nil)
	err := events(opts, "auction", []string{"id", "dateTime", "expires", "category"}, func(b arrow.RecordBatch) error {
		id, at, exp, cat := i64(b, 0), ts(b, 1), ts(b, 2), i64(b, 3)
		for i := range id {
			idx[id[i]] = int32(len(auctions))
			auctions = append(auctions, auction{int64(at[i]), int64(exp[i]), cat[i], -1})
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	err = connector.GenerateBids(opts, []string{"auction", "price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, at := range b.DateTime {
			k, ok := idx[b.Auction[i]]
			if !ok {
				continue
			}
			a := &auctions[k]
			if at >= a.start && at <= a.expires && b.Price[i] > a.top {
				a.top = b.Price[i]
			}
		}
		return nil
	})
	type avg struct{ sum, n int64 }
	cats := map[int64]*avg{}
	for _, a := range auctions {
		if a.top < 0 {
			continue
		}
		c := cats[a.category]
		if c == nil {
			c = &avg{}
			cats[a.category] = c
		}
		c.sum, c.n = c.sum+a.top, c.n+1
	}
	var d digest
	for cat, c := range cats {
		d.sum += mix(mix(rowSeed, uint64(cat)), uint64(c.sum/c.n))
		d.rows++
	}
	return d, err
}

// bestBid is an auction's best bid so far: the highest price, then the
// earliest, then (as strand's Top-N orders ties by the other columns) the
// lowest bidder and extra.
type bestBid struct {
	price, at, bidder int64
	extra             []byte
	ok                bool
}

// beats reports whether a bid beats b.
func (b *bestBid) beats(price, at, bidder int64, extra []byte) bool {
	switch {
	case !b.ok || price != b.price:
		return !b.ok || price > b.price
	case at != b.at:
		return at < b.at
	case bidder != b.bidder:
		return bidder < b.bidder
	}
	return bytes.Compare(extra, b.extra) < 0
}

func (b *bestBid) set(price, at, bidder int64, extra []byte) {
	b.price, b.at, b.bidder, b.ok = price, at, bidder, true
	b.extra = append(b.extra[:0], extra...)
}

// baselineQ9 keeps each auction's best bid within its lifetime: the
// auction's columns, then the bid's auction, bidder, price, dateTime and
// extra.
func baselineQ9(opts map[string]string) (digest, error) {
	type auction struct {
		id, start, expires uint64
		cols               [7]uint64 // itemName to extra but dateTime and expires: hashes and values
		best               bestBid
	}
	idx, auctions := auctionIndex{}, []auction(nil)
	acols := []string{"id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires", "seller", "category", "extra"}
	err := events(opts, "auction", acols, func(b arrow.RecordBatch) error {
		id, item, desc, initial, reserve, at, exp, seller, cat, extra := i64(b, 0), str(b, 1), str(b, 2), i64(b, 3), i64(b, 4), ts(b, 5), ts(b, 6), i64(b, 7), i64(b, 8), str(b, 9)
		for i := range id {
			idx[id[i]] = int32(len(auctions))
			auctions = append(auctions, auction{id: uint64(id[i]), start: uint64(at[i]), expires: uint64(exp[i]),
				cols: [7]uint64{hs(item.Value(i)), hs(desc.Value(i)), uint64(initial[i]), uint64(reserve[i]), uint64(seller[i]), uint64(cat[i]), hs(extra.Value(i))}})
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	err = connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i, at := range b.DateTime {
			k, ok := idx[b.Auction[i]]
			if !ok {
				continue
			}
			a := &auctions[k]
			if at < int64(a.start) || at > int64(a.expires) {
				continue
			}
			if extra := b.Extra.At(i); a.best.beats(b.Price[i], at, b.Bidder[i], extra) {
				a.best.set(b.Price[i], at, b.Bidder[i], extra)
			}
		}
		return nil
	})
	var d digest
	for _, a := range auctions {
		if !a.best.ok {
			continue
		}
		c := a.cols
		h := mix(mix(mix(mix(mix(mix(rowSeed, a.id), c[0]), c[1]), c[2]), c[3]), a.start)
		h = mix(mix(mix(mix(mix(h, a.expires), c[4]), c[5]), c[6]), a.id)
		h = mix(mix(mix(h, uint64(a.best.bidder)), uint64(a.best.price)), uint64(a.best.at))
		d.sum += strHash(h, a.best.extra)
		d.rows++
	}
	return d, err
}

// baselineQ6 averages, per seller, the prices of the best bids at or
// above the reserve of the seller's auctions, over the ten auctions whose
// best bid is latest (ties: the lower price first, as strand's Top-N
// orders rows that tie by their other columns).
func baselineQ6(opts map[string]string) (digest, error) {
	type auction struct{ start, expires, reserve, seller, price, at int64 }
	idx, auctions := auctionIndex{}, []auction(nil)
	err := events(opts, "auction", []string{"id", "reserve", "dateTime", "expires", "seller"}, func(b arrow.RecordBatch) error {
		id, reserve, at, exp, seller := i64(b, 0), i64(b, 1), ts(b, 2), ts(b, 3), i64(b, 4)
		for i := range id {
			idx[id[i]] = int32(len(auctions))
			auctions = append(auctions, auction{int64(at[i]), int64(exp[i]), reserve[i], seller[i], -1, 0})
		}
		return nil
	})
	if err != nil {
		return digest{}, err
	}
	err = connector.GenerateBids(opts, []string{"auction", "price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		for i, at := range b.DateTime {
			k, ok := idx[b.Auction[i]]
			if !ok {
				continue
			}
			a, p := &auctions[k], b.Price[i]
			if at < a.start || at > a.expires || p < a.reserve {
				continue
			}
			if p > a.price || p == a.price && at < a.at {
				a.price, a.at = p, at
			}
		}
		return nil
	})
	type won struct{ at, price int64 }
	sellers := map[int64][]won{}
	for _, a := range auctions {
		if a.price >= 0 {
			sellers[a.seller] = append(sellers[a.seller], won{a.at, a.price})
		}
	}
	var d digest
	for seller, ws := range sellers {
		slices.SortFunc(ws, func(x, y won) int {
			if c := cmp.Compare(y.at, x.at); c != 0 {
				return c // latest first
			}
			return cmp.Compare(x.price, y.price)
		})
		ws = ws[:min(len(ws), 10)]
		var sum int64
		for _, w := range ws {
			sum += w.price
		}
		d.sum += mix(mix(rowSeed, uint64(seller)), uint64(sum/int64(len(ws))))
		d.rows++
	}
	return d, err
}
