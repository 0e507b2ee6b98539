package bench

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runUsage is what a run cost.
type runUsage struct {
	wall, cpu float64 // seconds
	peakRSS   int64   // bytes
}

// measure runs f and returns its wall time, the process's CPU time (user
// and system, all goroutines) and the peak resident set size while it ran.
// Its CPU profile samples are labeled run=<what>, query=<q>.
func measure(ctx context.Context, what, q string, f func() error) (runUsage, error) {
	// Start from a clean heap, so that one run's garbage is not the next
	// one's memory.
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	cpu0 := cpuSeconds()
	start := time.Now()
	var err error
	pprof.Do(ctx, pprof.Labels("run", what, "query", q), func(context.Context) { err = f() })
	u := runUsage{wall: time.Since(start).Seconds(), cpu: cpuSeconds() - cpu0, peakRSS: peakRSS()}
	return u, err
}

// cpuSeconds is the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// resetPeakRSS restarts the kernel's peak-RSS count (Linux: VmHWM), so
// that each query's peak is its own.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the peak resident set size since resetPeakRSS: VmHWM, or,
// where /proc is missing, the process's maximum (getrusage's maxrss).
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss << 10
}
