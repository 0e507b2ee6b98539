package bench

import "testing"

// TestRankQueriesMatchBaselines: q7, q18 and q19 give what their
// hand-written loops give, at parallelism 1 and 3. At 100 events per
// second of event time the 20000 events span twenty of q7's windows.
func TestRankQueriesMatchBaselines(t *testing.T) {
	matchBaselines(t, Config{Queries: []string{"q7", "q18", "q19"}, Events: 20000, Rate: 100}, 15)
}
