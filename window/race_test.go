//go:build race

package window

// scaled is small under the race detector: the model tests drive every
// subtask from one goroutine, where it can find no race and makes them an
// order of magnitude slower; make test runs this package again without it,
// at full size.
func scaled(full, small int) int { return small }
