package window

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/strandsql/strand/types"
)

// BenchmarkSessionsIdleKeys measures what firing costs beside many open
// sessions that do not fire: idle keys each hold a session far ahead of the
// watermark, and 1,000 active keys get a batch of rows (one per
// millisecond) whose sessions of 100 ms fire as the watermark follows 50 ms
// behind. An op is one batch of 4,096 rows and one watermark advance: its
// cost should not grow with the idle keys. The machine is shared: the
// CPU time per row (cpu-ns/row, the process's, collector included) is the
// figure to compare, not the wall time.
func BenchmarkSessionsIdleKeys(b *testing.B) {
	const n, gap = 4096, 100
	for _, idle := range []int{1000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("idle%d", idle), func(b *testing.B) {
			s, err := NewSessions(sessionSpec(gap), memory.DefaultAllocator)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Release()
			emit := func(r arrow.RecordBatch) error { r.Release(); return nil }
			const far = int64(1) << 40
			for lo := 0; lo < idle; lo += n {
				rows := make([]row, 0, n)
				for k := lo; k < min(lo+n, idle); k++ {
					rows = append(rows, row{ts: far, k: int64(1_000_000 + k), v: 1})
				}
				bt := batchOf(rows)
				if _, err := s.Add(bt); err != nil {
					b.Fatal(err)
				}
				bt.Release()
			}
			rows := make([]row, n)
			ts := int64(0)
			cpu := processCPU()
			for b.Loop() {
				for j := range rows {
					rows[j] = row{ts: ts, k: int64(j % 1000), v: 1}
					ts += 1 + int64(j%7)/6
				}
				bt := batchOf(rows)
				if _, err := s.Add(bt); err != nil {
					b.Fatal(err)
				}
				bt.Release()
				if err := s.Advance(ts-50, emit); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/n, "cpu-ns/row")
			if err := s.Advance(types.MaxWatermark, emit); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
