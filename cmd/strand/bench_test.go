package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchFailsOnMismatch checks that a result differing from the
// baseline's fails the bench, and is reported.
func TestBenchFailsOnMismatch(t *testing.T) {
	saved := baselines["q2"]
	defer func() { baselines["q2"] = saved }()
	baselines["q2"] = func(opts map[string]string) (digest, error) {
		d, err := saved(opts)
		d.sum++
		return d, err
	}
	var out, errb bytes.Buffer
	if code := bench([]string{"nexmark", "--query", "q2", "--events", "20000", "--baseline", "--format", "json", "--parallelism", "2"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errb.String())
	}
	var r benchResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if r.Matched == nil || *r.Matched {
		t.Errorf("baseline_matched is not false: %s", out.String())
	}
	if !strings.Contains(errb.String(), "differs from the baseline") {
		t.Errorf("stderr does not name the mismatch: %s", errb.String())
	}
}

func TestBenchUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"tpch"},
		{"nexmark", "--query", "q99"},
		{"nexmark", "--format", "xml"},
		{"nexmark", "--events", "-1"},
	} {
		var out, errb bytes.Buffer
		if code := bench(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
