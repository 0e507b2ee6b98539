//go:build race

package memseg

// raceEnabled scales the biggest single-goroutine tests down under the race
// detector, which makes them an order of magnitude slower and can find no
// race in them; make test runs this package again without it, at full size.
const raceEnabled = true

// scaled is full, or small under the race detector.
func scaled(full, small int) int { return small }
