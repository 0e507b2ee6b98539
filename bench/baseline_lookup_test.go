package bench

import "testing"

// TestLookupQueryMatchesBaseline: q13's join with its side input gives
// what the formatting of each bid's key gives.
func TestLookupQueryMatchesBaseline(t *testing.T) {
	matchBaselines(t, Config{Queries: []string{"q13"}, Events: 20000, Rate: 10000000}, 1)
}
