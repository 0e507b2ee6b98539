package tests

import (
	"strings"
)

// applyUpserts applies the printed changelog of an upsert sink (+I, +U,
// -U, -D by the first n fields of the row) and returns the rows of the
// result, sorted, each as +I: a row replaces the row of its key, a
// retraction deletes it.
func applyUpserts(out string, n int) string {
	rows := map[string]string{}
	var other []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if len(line) < 3 || line[2] != '[' {
			if line != "" {
				other = append(other, line)
			}
			continue
		}
		fields := strings.Split(strings.TrimSuffix(line[3:], "]"), ", ")
		key := strings.Join(fields[:min(n, len(fields))], ", ")
		switch line[:2] {
		case "+I", "+U":
			rows[key] = line[2:]
		case "-U", "-D":
			delete(rows, key)
		default:
			other = append(other, line)
		}
	}
	count := map[string]int{}
	for _, row := range rows {
		count[row]++
	}
	return resultRows(count, other)
}
