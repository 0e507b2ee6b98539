package tests

import (
	"sort"
	"strings"
)

// applyChangelog applies the printed changelog out (lines such as
// +I[1, a] and -D[1, a]) and returns the rows of its result, sorted, each
// as +I[...]; a retraction of a row not in the result is kept as a line
// "unmatched -D[...]", and lines that are not rows are kept as they are.
func applyChangelog(out string) string {
	count := map[string]int{}
	var other []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if len(line) < 3 || line[2] != '[' {
			if line != "" {
				other = append(other, line)
			}
			continue
		}
		row := line[2:]
		switch line[:2] {
		case "+I", "+U":
			count[row]++
		case "-U", "-D":
			if count[row] == 0 {
				other = append(other, "unmatched "+line)
				continue
			}
			count[row]--
		default:
			other = append(other, line)
		}
	}
	return resultRows(count, other)
}

// resultRows renders the rows of an applied changelog (each as often as
// count says) as +I, sorted, then the other lines, sorted.
func resultRows(count map[string]int, other []string) string {
	var lines []string
	for row, n := range count {
		for range n {
			lines = append(lines, "+I"+row)
		}
	}
	sort.Strings(lines)
	sort.Strings(other)
	lines = append(lines, other...)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
