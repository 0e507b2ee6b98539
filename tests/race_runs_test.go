package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// raceRuns reports whether a property test runs its case i, one of n
// variants taken by turns: always without the race detector; under it,
// only when i%n == 0. The race detector makes each in-process run of a
// query (Pebble's invariant checks above all) several times slower, and
// finds what it can find in a few runs of each variant, not in every
// combination of window, query and variant; make test runs each test that
// calls raceRuns again without it (the Makefile's NORACE_TESTS), every
// case. raceRuns fails t when the Makefile does not list the test, so that
// no case runs under neither.
func raceRuns(t *testing.T, i, n int) bool {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	re, err := noRaceTests()
	if err != nil {
		t.Fatal(err)
	}
	if !re.MatchString(top) {
		t.Fatalf("%s runs some cases only without the race detector, but the Makefile's NORACE_TESTS (%s) does not list it", top, re)
	}
	return !raceEnabled || i%n == 0
}

// makefile is the repository's Makefile, found from the package's
// directory before any test changes the working directory.
var makefile, _ = filepath.Abs(filepath.Join("..", "Makefile"))

// noRaceTests is the Makefile's NORACE_TESTS, read once.
var noRaceTests = sync.OnceValues(func() (*regexp.Regexp, error) {
	b, err := os.ReadFile(makefile)
	if err != nil {
		return nil, fmt.Errorf("reading NORACE_TESTS: %w", err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "NORACE_TESTS := "); ok {
			re, err := regexp.Compile(strings.ReplaceAll(strings.TrimSpace(v), "$$", "$"))
			if err != nil {
				return nil, fmt.Errorf("NORACE_TESTS of %s: %w", makefile, err)
			}
			return re, nil
		}
	}
	return nil, fmt.Errorf("no NORACE_TESTS in %s", makefile)
})
