//go:build race

package tests

// raceEnabled is set under the race detector: see raceRuns.
const raceEnabled = true
