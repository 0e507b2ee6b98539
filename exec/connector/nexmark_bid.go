package connector

import (
	"math/bits"
	"strconv"
)

var nexHotChannels = []string{"Google", "Facebook", "Baidu", "Apple"}

// bidInts makes a bid's auction, bidder and price.
func (g *nexGen) bidInts(f nexField, ev *nexEvents, out []int64) {
	c := &g.cfg
	switch f {
	case bAuction:
		// The hot auction (the first of the last group of 100 auctions)
		// with probability 1 - 1/bid.hot-ratio.auctions, else one of the
		// last 100 auctions or the next 10.
		hot := uint64(c.hotAuction)
		for i, n := range ev.n {
			last := ev.ep[i]*c.ap + c.ap - 1 // lastAuction for a bid
			r := g.rnd(bAuction, n)
			var a int64
			if draw(&r, hot) > 0 {
				a = last / nexHotGroup * nexHotGroup
			} else {
				lo := max(last-nexInFlight, 0)
				a = lo + int64(draw(&r, uint64(last-lo+1+nexIDLead)))
			}
			out[i] = a + nexFirstAuctionID
		}
	case bBidder:
		// A hot bidder (the second of the last group of 100 people, so
		// that hot bidders are not hot sellers) with probability
		// 1 - 1/bid.hot-ratio.bidders, else one of the last 1000 people or
		// the next 10.
		hot := uint64(c.hotBidder)
		for i, n := range ev.n {
			last := ev.ep[i]*c.pp + c.pp - 1 // lastPerson for a bid
			r := g.rnd(bBidder, n)
			var b int64
			if draw(&r, hot) > 0 {
				b = last/nexHotGroup*nexHotGroup + 1
			} else {
				b = nextPerson(last, &r)
			}
			out[i] = b + nexFirstPersonID
		}
	case bPrice:
		for i, n := range ev.n {
			out[i] = nexPrice(g.rnd(bPrice, n))
		}
	}
}

// bidChannel returns the index in g.chans and g.urls of bid n's channel:
// with probability 1/2 one of the 4 hot channels, else channel-i for i
// uniform in 0..9999.
func (g *nexGen) bidChannel(n int64) int {
	r := g.rnd(bChannel, n)
	if draw(&r, nexHotChannelRatio) > 0 {
		return int(draw(&r, uint64(len(nexHotChannels))))
	}
	return len(nexHotChannels) + int(draw(&r, nexChannels))
}

func (g *nexGen) bidStr(f nexField, n int64, dst []byte) []byte {
	switch f {
	case bChannel:
		return append(dst, g.chans.get(g.bidChannel(n))...)
	case bURL:
		return append(dst, g.urls.get(g.bidChannel(n))...)
	}
	r := g.rnd(bExtra, n)
	return g.extra(dst, g.bidExtra.draw(&r), &r)
}

// makeChannels fills the channel and URL tables. A channel's URL is fixed
// (Flink caches it per channel): https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1
// with three nextString(5, '_') parts, and for 9 in 10 of the non-hot
// channels &channel_id=<Math.abs(Integer.reverse(i))>.
func (g *nexGen) makeChannels() {
	var buf []byte
	for i := -len(nexHotChannels); i < nexChannels; i++ {
		r := mix(g.keys[bURL] + uint64(int64(i))*0x9e3779b97f4a7c15)
		buf = append(buf[:0], "https://www.nexmark.com/"...)
		for p := uint64(1); p <= 3; p++ {
			buf = nextString(buf, mix(r+p*0x9e3779b97f4a7c15), 5, '_')
			buf = append(buf, '/')
		}
		buf = append(buf, "item.htm?query=1"...)
		if i < 0 {
			g.chans.add([]byte(nexHotChannels[i+len(nexHotChannels)]))
			g.urls.add(buf)
			continue
		}
		if w := mix(r ^ 0x510e527fade682d1); draw(&w, 10) > 0 {
			id := int64(int32(bits.Reverse32(uint32(i))))
			if id < 0 && id != -1<<31 { // Math.abs, which leaves MIN_VALUE negative
				id = -id
			}
			buf = strconv.AppendInt(append(buf, "&channel_id="...), id, 10)
		}
		g.urls.add(buf)
		g.chans.add(strconv.AppendInt([]byte("channel-"), int64(i), 10))
	}
}
