package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestNexmarkFailsOnMismatch checks that a result differing from the
// baseline's fails the run, and is reported.
func TestNexmarkFailsOnMismatch(t *testing.T) {
	saved := baselines["q2"]
	defer func() { baselines["q2"] = saved }()
	baselines["q2"] = func(opts map[string]string) (digest, error) {
		d, err := saved(opts)
		d.sum++
		return d, err
	}
	var out, errb bytes.Buffer
	cfg := Config{Queries: []string{"q2"}, Events: 20000, Baseline: true, JSON: true, Parallelism: 2}
	if err := Nexmark(context.Background(), cfg, &out, &errb); !errors.Is(err, ErrMismatch) {
		t.Fatalf("error %v, want ErrMismatch; stderr: %s", err, errb.String())
	}
	var r Result
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

func TestParseQueries(t *testing.T) {
	if qs, err := ParseQueries("q0, q12e"); err != nil || strings.Join(qs, ",") != "q0,q12e" {
		t.Errorf("q0, q12e: %v, %v", qs, err)
	}
	if _, err := ParseQueries("q0,q99"); err == nil || !strings.Contains(err.Error(), `"q99"`) {
		t.Errorf("q99: %v", err)
	}
}

// TestJoinQueriesMatchBaselines runs the join queries q3, q5, q8 and q20 over
// a few thousand events at parallelism 1 and 3, and checks each result
// against its baseline: the join computed in Go maps over the generator's
// rows.
func TestJoinQueriesMatchBaselines(t *testing.T) {
	for _, q := range []string{"q3", "q5", "q8", "q20"} {
		// A result of no rows would match too easily.
		d, err := baselines[q](map[string]string{"events.num": "10000", "first-event.rate": "10000000"})
		if err != nil || d.rows == 0 {
			t.Fatalf("%s's baseline: %v, %v", q, d, err)
		}
	}
	for _, p := range []int{1, 3} {
		var out, errb bytes.Buffer
		cfg := Config{Queries: []string{"q3", "q5", "q8", "q20"}, Events: 10000, Baseline: true, JSON: true, Parallelism: p}
		if err := Nexmark(context.Background(), cfg, &out, &errb); err != nil {
			t.Fatalf("parallelism %d: %v; stderr: %s", p, err, errb.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var r Result
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.Matched == nil || !*r.Matched {
				t.Errorf("parallelism %d: %s", p, line)
			}
		}
	}
}

// TestWindowJoinQueriesMatchBaselines runs q5 and q8, whose window joins
// fire per window, at a rate of 500 events per second of event time, so
// that 20000 events span 40 seconds (some twenty of q5's hopping windows,
// four of q8's tumbling ones), at parallelism 1 and 3, against their
// baselines.
func TestWindowJoinQueriesMatchBaselines(t *testing.T) {
	opts := map[string]string{"events.num": "20000", "first-event.rate": "500"}
	for _, q := range []string{"q5", "q8"} {
		if d, err := baselines[q](opts); err != nil || d.rows < 20 {
			t.Fatalf("%s's baseline: %v, %v", q, d, err)
		}
	}
	for _, p := range []int{1, 3} {
		var out, errb bytes.Buffer
		cfg := Config{Queries: []string{"q5", "q8"}, Events: 20000, Rate: 500, Baseline: true, JSON: true, Parallelism: p}
		if err := Nexmark(context.Background(), cfg, &out, &errb); err != nil {
			t.Fatalf("parallelism %d: %v; stderr: %s", p, err, errb.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var r Result
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.Matched == nil || !*r.Matched {
				t.Errorf("parallelism %d: %s", p, line)
			}
		}
	}
}
