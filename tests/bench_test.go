package tests

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchNexmark runs strand bench over every Nexmark query with the
// baseline check, as make bench does with more events: every query runs
// to completion, the q12 processing-time query included, prints one JSON
// object with the documented keys, and its result matches the
// hand-written baseline's. One query also runs with checkpoints, and with too
// little memory, where its window spills.
func TestBenchNexmark(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runStrand(t, dir, "bench", "nexmark", "--query", "q0,q1,q2,q12,q12e,q7w,q11", "--events", "200000",
		"--baseline", "--format", "json", "--parallelism", "2")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	keys := []string{"query", "events", "wall_s", "cpu_s", "events_per_cpu_s", "peak_rss_bytes", "checkpoints", "spills",
		"baseline_events_per_cpu_s", "ratio", "baseline_matched"}
	var queries []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		for _, k := range keys {
			if _, ok := r[k]; !ok {
				t.Errorf("%v: no key %s", r["query"], k)
			}
		}
		if r["baseline_matched"] != true || r["events"] != 200000.0 {
			t.Errorf("%v: %s", r["query"], line)
		}
		for _, k := range []string{"wall_s", "cpu_s", "events_per_cpu_s", "peak_rss_bytes", "baseline_events_per_cpu_s", "ratio"} {
			if v, _ := r[k].(float64); v <= 0 {
				t.Errorf("%v: %s is %v", r["query"], k, r[k])
			}
		}
		queries = append(queries, r["query"].(string))
	}
	if strings.Join(queries, ",") != "q0,q1,q2,q12,q12e,q7w,q11" {
		t.Errorf("queries %v", queries)
	}

	stdout, stderr, code = runStrand(t, dir, "bench", "nexmark", "--query", "q12e", "--events", "200000",
		"--baseline", "--format", "json", "--checkpoint-interval", "20ms")
	var r struct {
		Checkpoints int64 `json:"checkpoints"`
		Matched     bool  `json:"baseline_matched"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.Checkpoints < 1 || !r.Matched {
		t.Fatalf("with checkpoints: exit %d, %+v\nstdout:\n%s\nstderr:\n%s", code, r, stdout, stderr)
	}

	// With 1 MiB of managed memory q12e's window spills, and says so.
	stdout, stderr, code = runStrand(t, dir, "bench", "nexmark", "--query", "q12e", "--events", "2000000",
		"--baseline", "--format", "json", "--parallelism", "2", "--memory", "1mb")
	var s struct {
		Spills  int64 `json:"spills"`
		Matched bool  `json:"baseline_matched"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &s) != nil || s.Spills < 1 || !s.Matched {
		t.Fatalf("with --memory 1mb: exit %d, %+v\nstdout:\n%s\nstderr:\n%s", code, s, stdout, stderr)
	}
}
