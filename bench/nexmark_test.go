package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/queries/nexmark"
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

// TestEveryQueryHasBaseline: --query all --baseline checks every query.
func TestEveryQueryHasBaseline(t *testing.T) {
	for _, q := range nexmark.Queries {
		if baselines[q] == nil {
			t.Errorf("%s has no baseline", q)
		}
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
	matchBaselines(t, Config{Queries: []string{"q3", "q5", "q8", "q20"}, Events: 10000, Rate: 10000000}, 1)
}

// TestWindowJoinQueriesMatchBaselines runs q5 and q8, whose window joins
// fire per window, at a rate of 500 events per second of event time, so
// that 20000 events span 40 seconds (some twenty of q5's hopping windows,
// four of q8's tumbling ones).
func TestWindowJoinQueriesMatchBaselines(t *testing.T) {
	matchBaselines(t, Config{Queries: []string{"q5", "q8"}, Events: 20000, Rate: 500}, 20)
}

// matchBaselines checks that each query's baseline has at least min rows
// (a result of no rows would match too easily) and runs the queries of
// cfg at parallelism 1 and 3 against their baselines.
func matchBaselines(t *testing.T, cfg Config, min int64) {
	t.Helper()
	opts := map[string]string{"events.num": fmt.Sprint(cfg.Events), "first-event.rate": fmt.Sprint(cfg.Rate)}
	for _, q := range cfg.Queries {
		if d, err := baselines[q](opts); err != nil || d.rows < min {
			t.Fatalf("%s's baseline: %v, %v", q, d, err)
		}
	}
	cfg.Baseline, cfg.JSON = true, true
	for _, p := range []int{1, 3} {
		var out, errb bytes.Buffer
		cfg.Parallelism = p
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

// TestNexmarkReportsSpills runs q12e with 1 MiB of managed memory, which
// its window outgrows, and with the default: the first reports spills and
// still matches its baseline, the second reports none.
func TestNexmarkReportsSpills(t *testing.T) {
	for _, c := range []struct {
		memory int64
		spills bool
	}{{1 << 20, true}, {0, false}} {
		var out, errb bytes.Buffer
		cfg := Config{Queries: []string{"q12e"}, Events: 2_000_000, Baseline: true, JSON: true, Parallelism: 2, Memory: c.memory}
		if err := Nexmark(context.Background(), cfg, &out, &errb); err != nil {
			t.Fatalf("memory %d: %v; stderr: %s", c.memory, err, errb.String())
		}
		var r Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		if got := r.Spills > 0; got != c.spills || r.Matched == nil || !*r.Matched {
			t.Errorf("memory %d: %d spills, baseline matched %v: %s", c.memory, r.Spills, r.Matched != nil && *r.Matched, out.String())
		}
	}
}

// TestCheckpointsReportsSpills runs strand bench checkpoints' comparison
// for q12e with 1 MiB of managed memory: every line reports spills.
func TestCheckpointsReportsSpills(t *testing.T) {
	var out bytes.Buffer
	cfg := CheckpointConfig{Queries: []string{"q12e"}, Events: 2_000_000, Parallelism: 2, Intervals: []time.Duration{20 * time.Millisecond},
		Rounds: 1, Memory: 1 << 20}
	if err := Checkpoints(context.Background(), cfg, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], " spills") {
		t.Fatalf("want a header with spills and two lines:\n%s", out.String())
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if n, err := strconv.Atoi(f[len(f)-1]); err != nil || n < 1 {
			t.Errorf("no spills reported: %q", l)
		}
	}
}
