//go:build race

package connector

// raceEnabled is set under the race detector, whose sync.Pool drops a
// quarter of what is put back on purpose: a test of reuse cannot count
// allocations then.
const raceEnabled = true
