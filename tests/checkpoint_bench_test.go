package tests

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/strandsql/strand/session"
)

// overheadQuery keeps up to 1M keys in one hour-long window, so that each
// checkpoint holds about a million groups.
const overheadQuery = `
CREATE TABLE ev (ts TIMESTAMP(3), k BIGINT, v DOUBLE, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '%d', 'rows-per-second' = '0', 'splits' = '2', 'seed' = '1',
  'fields.ts.step' = '1 ms', 'fields.k.min' = '1', 'fields.k.max' = '1000000', 'fields.v.min' = '0', 'fields.v.max' = '1');
CREATE TABLE sink_t (ws TIMESTAMP(3), k BIGINT, c BIGINT, s DOUBLE) WITH ('connector' = 'blackhole');
INSERT INTO sink_t
SELECT window_start, k, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' HOUR))
GROUP BY window_start, window_end, k;
`

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runOverhead runs the query once and returns events per CPU-second, the
// session log, and the bytes its retained checkpoints hold.
func runOverhead(b *testing.B, rows int, interval string) (float64, string, int64) {
	b.Helper()
	var log bytes.Buffer
	sess := session.New(&bytes.Buffer{}, &log)
	sess.Parallelism = 2
	stateDir := filepath.Join(b.TempDir(), "state")
	sess.Durable = session.Durability{StateDir: stateDir, Name: "overhead"}
	if interval != "" {
		sess.Config[session.KeyCheckpointInterval] = interval
	}
	start := cpuTime()
	if err := sess.ExecScript(context.Background(), fmt.Sprintf(overheadQuery, rows)); err != nil {
		b.Fatalf("%v\n%s", err, log.String())
	}
	cpu := cpuTime() - start
	return float64(rows) / cpu.Seconds(), log.String(), dirSize(filepath.Join(stateDir, "checkpoints"))
}

var completedIn = regexp.MustCompile(`checkpoint \d+ completed in ([0-9.]+)(ms|s)`)

// BenchmarkCheckpointOverhead compares the throughput of a tumbling-window
// query over 1M keys with exactly-once checkpoints every second against
// the same query without checkpoints, in one run, and reports the
// checkpoints' duration and size.
//
//	go test -run '^$' -bench CheckpointOverhead -benchtime 1x ./tests
func BenchmarkCheckpointOverhead(b *testing.B) {
	const rows = 12_000_000
	for i := 0; i < b.N; i++ {
		base, _, _ := runOverhead(b, rows, "")
		with, log, size := runOverhead(b, rows, "1s")
		var durs []float64
		for _, m := range completedIn.FindAllStringSubmatch(log, -1) {
			d, _ := strconv.ParseFloat(m[1], 64)
			if m[2] == "s" {
				d *= 1000
			}
			durs = append(durs, d)
		}
		b.ReportMetric(base, "events/cpu-s")
		b.ReportMetric(with, "events/cpu-s-ckpt")
		b.ReportMetric(100*(base-with)/base, "%slower")
		b.ReportMetric(float64(len(durs)), "checkpoints")
		b.ReportMetric(float64(size)/(1<<20), "retained-MiB")
		if len(durs) > 0 {
			max := 0.0
			for _, d := range durs {
				max = maxf(max, d)
			}
			b.ReportMetric(max, "max-ckpt-ms")
		}
	}
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
