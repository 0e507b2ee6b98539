package bench

import "testing"

// TestAuctionQueriesMatchBaselines: q4, q6 and q9, which join bids with
// their auctions and keep the best, give what their hand-written loops
// give, at parallelism 1 and 3.
func TestAuctionQueriesMatchBaselines(t *testing.T) {
	matchBaselines(t, Config{Queries: []string{"q4", "q6", "q9"}, Events: 10000, Rate: 10000000}, 5)
}
