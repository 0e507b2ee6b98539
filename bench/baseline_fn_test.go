package bench

import (
	"bytes"
	"context"
	"testing"
)

// TestFunctionQueriesMatchBaselines: q14, q21 and q22 give what their
// hand-written loops give.
func TestFunctionQueriesMatchBaselines(t *testing.T) {
	var out, errb bytes.Buffer
	cfg := Config{Queries: []string{"q14", "q21", "q22"}, Events: 20000, Baseline: true, Parallelism: 2}
	if err := Nexmark(context.Background(), cfg, &out, &errb); err != nil {
		t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
	}
}
