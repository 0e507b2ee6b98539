package tests

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestREPLMemoryFlat runs an unbounded SELECT over datagen at 100K rows/s
// in tableau mode and samples the REPL's resident memory (VmRSS) each
// second: it must stay flat, since tableau keeps no rows. 10 s here, a
// minute with STRAND_SOAK=1 (make soak).
func TestREPLMemoryFlat(t *testing.T) {
	run := 10 * time.Second
	if os.Getenv("STRAND_SOAK") != "" {
		run = time.Minute
	}
	dir := t.TempDir()
	tm := startREPL(t, dir, "--parallelism", "1")
	tm.send("CREATE TABLE g (n BIGINT, s STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '100000', 'fields.s.length' = '10');\r")
	tm.prompt()
	tm.send("SELECT n, s FROM g;\r")
	tm.expect(" n | s ")
	// The status line under the rows, redrawn in place.
	tm.expectRe(regexp.MustCompile(`\r\x1b\[Krows read \d+ \| rows emitted \d+ \| watermark - \| \d+\.\d s`))
	tm.mu.Lock()
	tm.draining = true
	tm.mu.Unlock()
	var rss []int64
	start := time.Now()
	for time.Since(start) < run {
		time.Sleep(time.Second)
		rss = append(rss, vmRSS(t, tm.cmd.Process.Pid))
	}
	tm.mu.Lock()
	lines := tm.lines
	tm.draining = false
	tm.mu.Unlock()
	rate := float64(lines) / time.Since(start).Seconds()
	tm.send("\x03")
	tm.expect("Query stopped after")
	tm.prompt()
	t.Logf("%.0f rows/s shown; VmRSS each second (KiB): %v", rate, rss)
	if rate < 50000 {
		t.Errorf("only %.0f rows/s reached the terminal, want about 100000", rate)
	}
	// Flat: after the first seconds (buffers and pools filling) the
	// resident set grows by less than 20%, and 32 MiB.
	base := rss[2]
	for i, v := range rss[3:] {
		if v > base+base/5 && v > base+32<<10 {
			t.Errorf("VmRSS grew from %d KiB at 3 s to %d KiB at %d s: %v", base, v, i+4, rss)
			break
		}
	}
	tm.exit()
}

// vmRSS returns the resident set of process pid in KiB.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q", rest)
			}
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
