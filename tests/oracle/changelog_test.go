package oracle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// applyChangelog reads the rows strand printed (+I[a, b], -U[...], +U[...],
// -D[...]; other lines are an error) and returns the final rows, sorted,
// each as its values joined by ", ". +I and +U add a row, -U and -D take
// one back; taking back a row that is not there is an error, as is a row
// without cols values.
func applyChangelog(out string, cols int) ([]string, error) {
	count := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		if len(line) < 4 || line[2] != '[' || line[len(line)-1] != ']' {
			return nil, fmt.Errorf("line %d: not a row: %q", i+1, line)
		}
		row := line[3 : len(line)-1]
		if n := strings.Count(row, ", ") + 1; n != cols {
			return nil, fmt.Errorf("line %d: %d values, want %d: %q", i+1, n, cols, line)
		}
		switch line[:2] {
		case "+I", "+U":
			count[row]++
		case "-U", "-D":
			if count[row] == 0 {
				return nil, fmt.Errorf("line %d: %s of a row not in the result: %q", i+1, line[:2], line)
			}
			count[row]--
		default:
			return nil, fmt.Errorf("line %d: unknown row kind: %q", i+1, line)
		}
	}
	var rows []string
	for row, n := range count {
		for range n {
			rows = append(rows, row)
		}
	}
	slices.Sort(rows)
	return rows, nil
}

// diff describes how two sorted multisets of rows differ, with up to
// limit rows of each side's surplus; "" if they are equal.
func diff(got, want []string, limit int) string {
	var extra, missing []string
	i, j := 0, 0
	for i < len(got) || j < len(want) {
		switch {
		case j == len(want) || i < len(got) && got[i] < want[j]:
			extra = append(extra, got[i])
			i++
		case i == len(got) || want[j] < got[i]:
			missing = append(missing, want[j])
			j++
		default:
			i++
			j++
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "strand has %d rows, the oracle %d; %d only in strand's, %d only in the oracle's", len(got), len(want), len(extra), len(missing))
	for _, side := range []struct {
		name string
		rows []string
	}{{"only in strand's", extra}, {"only in the oracle's", missing}} {
		for k, r := range side.rows {
			if k == limit {
				fmt.Fprintf(&b, "\n  %s: ... %d more", side.name, len(side.rows)-limit)
				break
			}
			fmt.Fprintf(&b, "\n  %s: %s", side.name, r)
		}
	}
	return b.String()
}

func TestApplyChangelog(t *testing.T) {
	got, err := applyChangelog("+I[1, a]\n+I[2, b]\n-U[1, a]\n+U[1, c]\n+I[2, b]\n-D[2, b]\n", 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1, c", "2, b"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{
		"-D[1, a]\n",           // a retraction of nothing
		"+I[1, a]\n-U[1, b]\n", // of another row
		"+I[1]\n",              // too few values
		"+X[1, a]\n",           // no such kind
		"job 1 started\n",      // not a row
	} {
		if _, err := applyChangelog(bad, 2); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDiff(t *testing.T) {
	if d := diff([]string{"a", "b", "b"}, []string{"a", "b", "b"}, 5); d != "" {
		t.Errorf("equal multisets: %s", d)
	}
	d := diff([]string{"a", "b", "b", "d"}, []string{"a", "b", "c"}, 5)
	for _, want := range []string{"strand has 4 rows, the oracle 3", "only in strand's: b", "only in strand's: d", "only in the oracle's: c"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
}
