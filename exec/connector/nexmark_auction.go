package connector

// auctionInts makes an auction's integer and expiry fields.
func (g *nexGen) auctionInts(f nexField, ev *nexEvents, out []int64) {
	c := &g.cfg
	switch f {
	case aID:
		for i, e := range ev.ep {
			out[i] = e*c.ap + ev.of[i] - c.pp + nexFirstAuctionID
		}
	case aInitialBid:
		for i, n := range ev.n {
			out[i] = nexPrice(g.rnd(aInitialBid, n))
		}
	case aReserve:
		// The initial bid plus a fresh price.
		for i, n := range ev.n {
			out[i] = nexPrice(g.rnd(aInitialBid, n)) + nexPrice(g.rnd(aReserve, n))
		}
	case aExpires:
		// Flink's nextAuctionLengthMs: 1 ms plus a draw below twice the
		// time until the auction 100 auctions ahead is made.
		ahead := nexInFlight * c.tp / c.ap
		for i, n := range ev.n {
			horizon := c.nexTime(n+ahead) - ev.ts[i]
			r := g.rnd(aExpires, n)
			out[i] = ev.ts[i] + 1 + int64(draw(&r, uint64(max(2*horizon, 1))))
		}
	case aSeller:
		// A hot seller (the first of the last group of 100 people) with
		// probability 1 - 1/auction.hot-ratio.sellers, else one of the last
		// 1000 people or the next 10.
		for i, n := range ev.n {
			last := c.lastPerson(ev.ep[i], ev.of[i])
			r := g.rnd(aSeller, n)
			var s int64
			if draw(&r, uint64(c.hotSeller)) > 0 {
				s = last / nexHotGroup * nexHotGroup
			} else {
				s = nextPerson(last, &r)
			}
			out[i] = s + nexFirstPersonID
		}
	case aCategory:
		for i, n := range ev.n {
			r := g.rnd(aCategory, n)
			out[i] = nexFirstCategoryID + int64(draw(&r, nexNumCategories))
		}
	}
}

func (g *nexGen) auctionStr(f nexField, n int64, dst, scratch []byte) ([]byte, []byte) {
	switch f {
	case aItemName:
		return nextString(dst, g.rnd(aItemName, n), 20, ' '), scratch
	case aDescription:
		return nextString(dst, g.rnd(aDescription, n), 100, ' '), scratch
	}
	// extra: 8 bytes for the id, the two strings, 5 more 8-byte fields.
	scratch = nextString(scratch[:0], g.rnd(aItemName, n), 20, ' ')
	scratch = nextString(scratch, g.rnd(aDescription, n), 100, ' ')
	size := 8 + int64(len(scratch)) + 5*8
	r := g.rnd(aExtra, n)
	return g.extra(dst, newExtraSize(size, g.cfg.avgAuction).draw(&r), &r), scratch
}
