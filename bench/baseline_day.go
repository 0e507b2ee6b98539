package bench

import (
	"time"

	"github.com/strandsql/strand/exec/connector"
)

// Baselines of the queries that format or group bids by their day
// (DATE_FORMAT(dateTime, 'yyyy-MM-dd')): q10 (the bid log, with day and
// minute), q15 (bid statistics per day), q16 (per channel and day) and q17
// (per auction and day). Bids come in time order, so the formatted day and
// minute are kept while they last.

func init() {
	baselines["q10"] = baselineQ10
	baselines["q15"] = baselineQ15
	baselines["q16"] = baselineQ16
	baselines["q17"] = baselineQ17
}

const (
	msPerDay    = 86_400_000
	msPerMinute = 60_000
)

// clock formats a TIMESTAMP(3)'s day ('yyyy-MM-dd') and minute ('HH:mm'),
// keeping the last of each.
type clock struct {
	day, minute   int64
	dayS, minuteS string
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

func newClock() *clock { return &clock{day: -1 << 62, minute: -1 << 62} }

// dayOf returns the day of ts, as a number and formatted.
func (c *clock) dayOf(ts int64) (int64, string) {
	if d := floorDiv(ts, msPerDay); d != c.day {
		c.day, c.dayS = d, time.UnixMilli(ts).UTC().Format("2006-01-02")
	}
	return c.day, c.dayS
}

// minuteOf returns the time of day of ts to the minute, formatted.
func (c *clock) minuteOf(ts int64) string {
	if m := floorDiv(ts, msPerMinute); m != c.minute {
		c.minute, c.minuteS = m, time.UnixMilli(ts).UTC().Format("15:04")
	}
	return c.minuteS
}

// baselineQ10 passes bids through with their day and minute.
func baselineQ10(opts map[string]string) (digest, error) {
	var d digest
	c := newClock()
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime", "extra"}, baselineBatch, func(b *connector.Bids) error {
		for i := 0; i < b.Len; i++ {
			ts := b.DateTime[i]
			h := mix(mix(mix(mix(rowSeed, uint64(b.Auction[i])), uint64(b.Bidder[i])), uint64(b.Price[i])), uint64(ts))
			_, day := c.dayOf(ts)
			d.sum += mix(mix(strHash(h, b.Extra.At(i)), hs(day)), hs(c.minuteOf(ts)))
		}
		d.rows += int64(b.Len)
		return nil
	})
	return d, err
}

// priceRank is the rank q15, q16 and q17 filter bids by: 1 below 10,000,
// 2 below 1,000,000, else 3.
func priceRank(p int64) int {
	switch {
	case p < 10_000:
		return 1
	case p < 1_000_000:
		return 2
	}
	return 3
}

// bidStats are the counts of q15 and q16: bids, distinct bidders and
// distinct auctions, in all and by price rank. The distinct counts keep,
// per bidder and auction, a bit for all (1) and one per rank.
type bidStats struct {
	bids               [4]int64
	bidders, auctions  map[int64]uint8
	nBidders, nAuction [4]int64
}

func newBidStats() *bidStats {
	return &bidStats{bidders: map[int64]uint8{}, auctions: map[int64]uint8{}}
}

func (s *bidStats) add(bidder, auction, price int64) {
	r := priceRank(price)
	s.bids[0]++
	s.bids[r]++
	bits := uint8(1 | 1<<r)
	if old := s.bidders[bidder]; old&bits != bits {
		s.bidders[bidder] = old | bits
		distinctCounts(&s.nBidders, old, bits)
	}
	if old := s.auctions[auction]; old&bits != bits {
		s.auctions[auction] = old | bits
		distinctCounts(&s.nAuction, old, bits)
	}
}

// distinctCounts counts the bits of bits new to old.
func distinctCounts(n *[4]int64, old, bits uint8) {
	for k := range 4 {
		if bits&^old&(1<<k) != 0 {
			n[k]++
		}
	}
}

// hash folds the counts into row hash h, in q15's column order.
func (s *bidStats) hash(h uint64) uint64 {
	for _, ns := range [][4]int64{s.bids, s.nBidders, s.nAuction} {
		for _, v := range ns {
			h = mix(h, uint64(v))
		}
	}
	return h
}

// baselineQ15 counts bids, bidders and auctions per day.
func baselineQ15(opts map[string]string) (digest, error) {
	var d digest
	c := newClock()
	days := map[string]*bidStats{}
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		day, s := int64(-1<<62), (*bidStats)(nil)
		for i, ts := range b.DateTime {
			if n, name := c.dayOf(ts); n != day || s == nil {
				day, s = n, days[name]
				if s == nil {
					s = newBidStats()
					days[name] = s
				}
			}
			s.add(b.Bidder[i], b.Auction[i], b.Price[i])
		}
		return nil
	})
	for day, s := range days {
		d.sum += s.hash(mix(rowSeed, hs(day)))
		d.rows++
	}
	return d, err
}

// baselineQ16 counts bids, bidders and auctions per channel and day, with
// the last minute of the day that had a bid.
func baselineQ16(opts map[string]string) (digest, error) {
	type group struct {
		*bidStats
		last int64 // the latest bid's time
	}
	var d digest
	c := newClock()
	days := map[string]map[string]*group{}
	err := connector.GenerateBids(opts, []string{"auction", "bidder", "price", "channel", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		day, chans := int64(-1<<62), map[string]*group(nil)
		for i, ts := range b.DateTime {
			if n, name := c.dayOf(ts); n != day || chans == nil {
				day, chans = n, days[name]
				if chans == nil {
					chans = map[string]*group{}
					days[name] = chans
				}
			}
			ch := b.Channel.At(i)
			g := chans[string(ch)]
			if g == nil {
				g = &group{bidStats: newBidStats()}
				chans[string(ch)] = g
			}
			g.add(b.Bidder[i], b.Auction[i], b.Price[i])
			g.last = max(g.last, ts)
		}
		return nil
	})
	for day, chans := range days {
		for ch, g := range chans {
			h := mix(mix(mix(rowSeed, hs(ch)), hs(day)), hs(c.minuteOf(g.last)))
			d.sum += g.hash(h)
			d.rows++
		}
	}
	return d, err
}

// baselineQ17 sums up the bids per auction and day: counts in all and by
// price rank, and the lowest, highest, average and total price.
func baselineQ17(opts map[string]string) (digest, error) {
	type group struct {
		bids          [4]int64
		lo, hi, total int64
	}
	var d digest
	c := newClock()
	days := map[string]map[int64]*group{}
	err := connector.GenerateBids(opts, []string{"auction", "price", "dateTime"}, baselineBatch, func(b *connector.Bids) error {
		day, auctions := int64(-1<<62), map[int64]*group(nil)
		for i, ts := range b.DateTime {
			if n, name := c.dayOf(ts); n != day || auctions == nil {
				day, auctions = n, days[name]
				if auctions == nil {
					auctions = map[int64]*group{}
					days[name] = auctions
				}
			}
			p := b.Price[i]
			g := auctions[b.Auction[i]]
			if g == nil {
				g = &group{lo: p, hi: p}
				auctions[b.Auction[i]] = g
			}
			g.bids[0]++
			g.bids[priceRank(p)]++
			g.lo, g.hi, g.total = min(g.lo, p), max(g.hi, p), g.total+p
		}
		return nil
	})
	for day, auctions := range days {
		hd := hs(day)
		for auction, g := range auctions {
			h := mix(mix(rowSeed, uint64(auction)), hd)
			for _, v := range g.bids {
				h = mix(h, uint64(v))
			}
			d.sum += mix(mix(mix(mix(h, uint64(g.lo)), uint64(g.hi)), uint64(g.total/g.bids[0])), uint64(g.total))
			d.rows++
		}
	}
	return d, err
}
