package bench

import "testing"

// TestDayQueriesMatchBaselines: q10, q15, q16 and q17 give what their
// hand-written loops give, at parallelism 1 and 3, over events that span
// half an hour of event time (many minutes; q15 to q17 update their rows
// as bids come).
func TestDayQueriesMatchBaselines(t *testing.T) {
	matchBaselines(t, Config{Queries: []string{"q10", "q15", "q16", "q17"}, Events: 20000, Rate: 10}, 1)
}
