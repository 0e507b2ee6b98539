package tests

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strandsql/strand/session"
)

// BenchmarkSavepoint takes a savepoint of a window that holds about a
// million keys (overheadQuery's keys, in one day-long window, after 4M of
// its 8M rows: 1 - e^-4 = 98% of the 1M keys) while the job runs, and
// reports how long it takes, its size, and the job's rows per second
// before, during and after it, sampled every 100 ms.
//
//	go test -run '^$' -bench Savepoint -benchtime 1x ./tests
func BenchmarkSavepoint(b *testing.B) {
	const rows = 8_000_000
	query := strings.Replace(overheadQuery, "INTERVAL '1' HOUR", "INTERVAL '1' DAY", 1)
	for i := 0; i < b.N; i++ {
		var log syncBuffer
		sess := session.New(&bytes.Buffer{}, &log)
		sess.Parallelism = 2
		dir := b.TempDir()
		sess.Durable = session.Durability{StateDir: filepath.Join(dir, "state"), Name: "sp"}
		sess.Config[session.KeyCheckpointInterval] = "1h" // only the savepoint
		errc := make(chan error, 1)
		go func() { errc <- sess.ExecScript(context.Background(), fmt.Sprintf(query, rows)) }()
		var job *session.Job
		for job == nil || job.Metrics.RowsRead.Load() < 3_500_000 {
			time.Sleep(5 * time.Millisecond)
			if js := sess.Jobs.List(); len(js) > 0 {
				job = js[0]
			}
		}
		var during atomic.Bool
		type sample struct {
			rate   float64
			during bool
		}
		var samples []sample
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			last, at := job.Metrics.RowsRead.Load(), time.Now()
			for {
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
				n, now := job.Metrics.RowsRead.Load(), time.Now()
				samples = append(samples, sample{float64(n-last) / now.Sub(at).Seconds(), during.Load()})
				last, at = n, now
			}
		}()
		time.Sleep(500 * time.Millisecond)
		during.Store(true)
		start := time.Now()
		path, err := job.Savepoint(context.Background(), filepath.Join(dir, "sp"))
		took := time.Since(start)
		during.Store(false)
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		close(stop)
		<-sampled
		if err := <-errc; err != nil {
			b.Fatalf("%v\n%s", err, log.String())
		}
		var before, in, after []float64
		seen := false
		for _, s := range samples {
			switch {
			case s.during:
				in, seen = append(in, s.rate), true
			case seen:
				after = append(after, s.rate)
			default:
				before = append(before, s.rate)
			}
		}
		b.ReportMetric(took.Seconds()*1000, "savepoint-ms")
		b.ReportMetric(float64(dirSize(path))/(1<<20), "savepoint-MiB")
		b.ReportMetric(mean(before), "rows/s-before")
		b.ReportMetric(mean(in), "rows/s-during")
		b.ReportMetric(mean(after), "rows/s-after")
		b.Logf("savepoint %s in %v; rows/s before %v, during %v, after %v", filepath.Base(path), took.Round(time.Millisecond),
			rounded(before), rounded(in), rounded(after))
		if !strings.Contains(log.String(), "savepoint") {
			b.Fatalf("no savepoint in the log:\n%s", log.String())
		}
	}
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func rounded(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}
