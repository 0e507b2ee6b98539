package tests

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// chainTerms is a generated query's flat chain: far more terms than the
// parser's nesting limit (1000), which bounds true nesting only.
const chainTerms = 3000

// TestLongChains runs a query with flat chains of OR, + and || terms
// through parsing, binding, compilation and evaluation.
func TestLongChains(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("data", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("data/c.csv", []byte("1,x\n2500,y\n4999,z\n10001,w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	terms := func(sep string, term func(i int) string) string {
		parts := make([]string, chainTerms)
		for i := range parts {
			parts[i] = term(i)
		}
		return strings.Join(parts, sep)
	}
	or := terms(" OR ", func(i int) string { return fmt.Sprintf("a = %d", 2*i+1) }) // the odd numbers below 10000
	sum := terms(" + ", func(int) string { return "a" })
	cat := terms(" || ", func(i int) string {
		if i%1000 == 0 {
			return "s"
		}
		return "''"
	})
	r := newRunner(variants[0])
	start := time.Now()
	out, err := r.exec(`CREATE TABLE c (a INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'data/c.csv', 'format' = 'csv');
SELECT a, ` + sum + `, ` + cat + ` FROM c WHERE ` + or + `;`)
	if err != nil {
		t.Fatal(err)
	}
	n := chainTerms / 1000
	want := fmt.Sprintf("+I[1, %d, %s]\n+I[4999, %d, %s]\n", chainTerms, strings.Repeat("x", n), 4999*chainTerms, strings.Repeat("z", n))
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	t.Logf("%d-term chains: %v", chainTerms, time.Since(start))
}
