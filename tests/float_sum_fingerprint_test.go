package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strandsql/strand/agg"
	"github.com/strandsql/strand/parser"
	"github.com/strandsql/strand/planner"
	"github.com/strandsql/strand/session"
)

// TestFloatSumFingerprintMark: every operator that checkpoints a FLOAT or
// DOUBLE SUM or AVG accumulator (tumbling, hopping, cumulating and session
// window aggregates, the group aggregate, an unbounded OVER) marks its
// state fingerprint with agg.ExactFloatSums, which a strand from before
// exact sums refuses; the same query over a BIGINT, a MAX of a DOUBLE
// and a bounded OVER (which keeps rows, not accumulators) do not, so
// their state stays interchangeable with that strand's.
func TestFloatSumFingerprintMark(t *testing.T) {
	const ddl = `CREATE TABLE t (ts TIMESTAMP(3), k BIGINT, b BIGINT, d DOUBLE, f FLOAT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '10');`
	window := func(tvf string) string {
		return "SELECT window_start, k, COUNT(*), %s FROM TABLE(" + tvf + ") GROUP BY window_start, window_end, k"
	}
	shapes := map[string]string{
		"tumble":   window("TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)"),
		"hop":      window("HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE)"),
		"cumulate": window("CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE)"),
		"session":  window("SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND)"),
		"groupagg": "SELECT k, COUNT(*), %s FROM t GROUP BY k",
		"over":     "SELECT k, %s OVER (PARTITION BY k ORDER BY ts) FROM t",
		"bounded":  "SELECT k, %s OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) FROM t",
	}
	for name, shape := range shapes {
		for _, c := range []struct {
			agg    string
			marked bool
		}{
			{"SUM(d)", name != "bounded"},
			{"AVG(f)", name != "bounded"},
			{"SUM(b)", false},
			{"AVG(b)", false},
			{"MAX(d)", false},
		} {
			fps := fingerprints(t, ddl, fmt.Sprintf(shape, c.agg))
			if len(fps) != 1 {
				t.Fatalf("%s %s: stateful operators %v, want one", name, c.agg, fps)
			}
			if got := strings.HasSuffix(fps[0], agg.ExactFloatSums); got != c.marked {
				t.Errorf("%s %s: fingerprint %s, marked %t, want %t", name, c.agg, fps[0], got, c.marked)
			}
		}
	}
}

// fingerprints compiles query after the statements of ddl and returns
// the state fingerprints of its stateful operators.
func fingerprints(t *testing.T, ddl, query string) []string {
	t.Helper()
	s := session.New(io.Discard, io.Discard)
	if err := s.ExecScript(t.Context(), ddl); err != nil {
		t.Fatal(err)
	}
	stmts, err := parser.Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	plan, err := planner.PlanQuery(s.Catalog, stmts[0])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	g, err := planner.Compile(planner.Optimize(plan), planner.Env{Parallelism: 1, Stdout: io.Discard})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var fps []string
	for _, v := range g.Vertices {
		for _, op := range v.Ops {
			if op.Fingerprint != "" {
				fps = append(fps, op.Fingerprint)
			}
		}
	}
	return fps
}

// TestFloatSumMarkedStateRefusedUnmarked: a savepoint of a window's
// DOUBLE SUM has the marked fingerprint, one of a BIGINT SUM not. State
// with the mark restored into an operator whose fingerprint lacks it (what
// a strand from before exact sums does with the DOUBLE SUM's state: its
// fingerprint has no mark) is refused, naming the operator and both
// schemas, where without the mark the BIGINT SUM's savepoint restores.
func TestFloatSumMarkedStateRefusedUnmarked(t *testing.T) {
	t.Chdir(t.TempDir())
	double := savepointOf(t, "double", laterFormatQuery)
	if fp := savepointFingerprint(t, double); !strings.HasSuffix(fp, agg.ExactFloatSums) {
		t.Errorf("a DOUBLE SUM's savepoint has fingerprint %s, want it marked %s", fp, agg.ExactFloatSums)
	}
	bigint := strings.Replace(laterFormatQuery, "amount DOUBLE", "amount BIGINT", 1)
	sp := savepointOf(t, "bigint", bigint)
	fp := savepointFingerprint(t, sp)
	if strings.Contains(fp, agg.ExactFloatSums) {
		t.Fatalf("a BIGINT SUM's savepoint has fingerprint %s, want it unmarked", fp)
	}
	setFingerprint(t, sp, fp+agg.ExactFloatSums)
	var out, log syncBuffer
	r := session.New(&out, &log)
	r.Parallelism = 2
	r.Durable = session.Durability{StateDir: ".strand-r", Name: "bigint", FromSavepoint: sp}
	r.Config[session.KeyCheckpointInterval] = "1s"
	err := r.ExecScript(context.Background(), bigint)
	want := "state schema " + fp + agg.ExactFloatSums + ", the job needs " + fp
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "uid=window-") {
		t.Fatalf("restoring marked state into an unmarked operator: %v, want a refusal naming the window operator and %q\n%s", err, want, log.String())
	}
	setFingerprint(t, sp, fp)
	r = session.New(&out, &log)
	r.Parallelism = 2
	r.Durable = session.Durability{StateDir: ".strand-r2", Name: "bigint", FromSavepoint: sp}
	r.Config[session.KeyCheckpointInterval] = "1s"
	if err := r.ExecScript(context.Background(), bigint); err != nil {
		t.Fatalf("restoring the BIGINT SUM's savepoint as taken: %v\n%s", err, log.String())
	}
}

// savepointOf runs script at parallelism 2 under job name, stops it with
// a savepoint after its first checkpoint and returns the savepoint's
// directory.
func savepointOf(t *testing.T, name, script string) string {
	t.Helper()
	var out, log syncBuffer
	s := session.New(&out, &log)
	s.Parallelism = 2
	s.Durable = session.Durability{StateDir: ".strand-" + name, Name: name}
	s.Config[session.KeyCheckpointInterval] = "200ms"
	errc := make(chan error, 1)
	go func() { errc <- s.ExecScript(context.Background(), script) }()
	for !strings.Contains(log.String(), "checkpoint 1 completed") {
		select {
		case err := <-errc:
			t.Fatalf("%s ended before its first checkpoint: %v\n%s", name, err, log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	sp, err := s.Jobs.List()[0].Stop(context.Background(), "sp-"+name, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return sp
}

// savepointFingerprint returns the fingerprint of the one operator in the
// savepoint in dir.
func savepointFingerprint(t *testing.T, dir string) string {
	t.Helper()
	var fp string
	editMetadata(t, dir, func(md map[string]any) {
		ops := md["Operators"].([]any)
		if len(ops) != 1 {
			t.Fatalf("savepoint %s: %d operators, want one", dir, len(ops))
		}
		fp = ops[0].(map[string]any)["Fingerprint"].(string)
	})
	return fp
}

// setFingerprint sets the fingerprint of every operator in the savepoint
// in dir to fp, and the metadata's checksum to match.
func setFingerprint(t *testing.T, dir, fp string) {
	t.Helper()
	editMetadata(t, dir, func(md map[string]any) {
		for _, op := range md["Operators"].([]any) {
			op.(map[string]any)["Fingerprint"] = fp
		}
	})
}

// editMetadata calls edit with the savepoint's _metadata body and writes
// it back with its length and checksum made anew.
func editMetadata(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	meta := filepath.Join(dir, "_metadata")
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	var md map[string]any
	dec := json.NewDecoder(bytes.NewReader(b[20:]))
	dec.UseNumber() // int64s as they are, not as float64s
	if err := dec.Decode(&md); err != nil {
		t.Fatal(err)
	}
	edit(md)
	body, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	hdr := bytes.Clone(b[:20])
	binary.LittleEndian.PutUint32(hdr[12:], uint32(len(body)))
	binary.LittleEndian.PutUint32(hdr[16:], crc32.Checksum(body, castagnoli))
	if err := os.WriteFile(meta, append(hdr, body...), 0o644); err != nil {
		t.Fatal(err)
	}
}
