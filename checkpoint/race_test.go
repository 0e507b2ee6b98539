//go:build race

package checkpoint

// raceEnabled scales the biggest tests down under the race detector, which
// makes Pebble (and its invariant checks) an order of magnitude slower.
const raceEnabled = true
