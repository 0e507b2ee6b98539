//go:build race

package parser

// raceEnabled scales the randomized tests down: the race detector makes the
// lexer's regexps many times slower.
const raceEnabled = true
